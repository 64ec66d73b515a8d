"""report.html of holdout audit opens in headless Chromium: every figure decodes, every lens shows.

Skipped (with the reason) where no Chromium is installed; `.ci/run` installs Debian's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from holdout.audit.cli import main

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "infra"))
import report_browser  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHECK = """
<script>
window.addEventListener('load', () => {
  const imgs = [...document.querySelectorAll('img')];
  const out = {images: imgs.length, decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
               widths: imgs.map(i => i.naturalWidth),
               sections: [...document.querySelectorAll('h2')].map(h => h.textContent),
               verdicts: document.querySelectorAll('.verdict').length};
  const pre = document.createElement('pre'); pre.id = 'holdout-check'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def test_audit_report_renders_in_chromium(tmp_path):
    chromium = report_browser.find_chromium()
    if chromium is None:
        pytest.skip("headless Chromium not installed (`.ci/run` installs Debian's chromium)")
    out = tmp_path / "audit"
    assert (
        main(
            [
                "audit",
                str(REPO / "config/examples/user_predictions.csv"),
                "--labels",
                str(REPO / "config/examples/user_labels.npy"),
                "--out",
                str(out),
                "--search-size",
                "3",
            ]
        )
        == 0
    )
    page = tmp_path / "check.html"
    page.write_text((out / "report.html").read_text().replace("</body>", CHECK + "</body>"))
    cmd = [
        chromium,
        *report_browser.CHROMIUM_FLAGS,
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=10000",
        "--dump-dom",
        page.resolve().as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    match = re.search(r'<pre id="holdout-check">(.*?)</pre>', proc.stdout, flags=re.DOTALL)
    assert proc.returncode == 0 and match, proc.stderr[-2000:]
    seen = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert seen["images"] == 5 and seen["decoded"] == 5, seen
    assert min(seen["widths"]) > 300, seen
    assert seen["sections"] == [
        "Accuracy with exact intervals",
        "Model similarity",
        "How many models this test set supports",
        "Rip van Winkle's Razor on the selected model",
    ], seen
    assert seen["verdicts"] == 4
