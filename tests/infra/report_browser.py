"""Open a Snakemake HTML report in headless Chromium and list what it shows.

The report is a single self-contained page rendered by JavaScript (React), so
the raw HTML alone proves little. :func:`inspect_report` copies the report,
appends a small script that walks the rendered page -- for every category and
subcategory it opens the results table (``app.setView``, as the menu does), reads
the file names shown in the table, clicks each row's "view" (eye) button and
records whether an ``<img>`` appeared in the content pane and decoded (its
``naturalWidth``) -- and lets Chromium dump the final DOM (``--dump-dom``).
The walker's findings come back as JSON inside ``<pre id="holdout-check">``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")

# Flags that keep a headless browser from calling home or needing a display.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)

WALKER = r"""
<script>
window.addEventListener('load', async () => {
  const wait = ms => new Promise(r => setTimeout(r, ms));
  const out = {error: null, results: {}};
  try {
    await wait(300);
    for (const cat of Object.keys(categories)) {
      for (const sub of Object.keys(categories[cat])) {
        // leave the results view first: React keeps a mounted results table
        // (and its data) when only its props change
        app.setView({navbarMode: 'menu'});
        await wait(200);
        app.setView({navbarMode: 'subcategory', category: cat, subcategory: sub});
        await wait(300);
        const rows = [...document.querySelectorAll('nav table tbody tr')];
        for (const row of rows) {
          const file = row.querySelector('td').textContent.trim();
          const rec = {category: cat, subcategory: sub, img: false, width: 0};
          const eye = row.querySelector('a[iconname="eye"]');
          if (eye && eye.getAttribute('href') === '#') {
            eye.click();
            await wait(400);
            const img = [...document.querySelectorAll('#app img')].find(
              i => i.src.startsWith('data:image/') && !i.src.includes('filename=logo.svg'));
            if (img) { rec.img = true; rec.width = img.naturalWidth; }
          }
          out.results[file] = rec;
        }
      }
    }
  } catch (err) { out.error = String(err); }
  const pre = document.createElement('pre');
  pre.id = 'holdout-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def inspect_report(report: Path, workdir: Path, timeout: float = 120) -> dict[str, dict]:
    """Return ``{file: {category, subcategory, img, width}}`` as rendered by Chromium.

    Raises ``RuntimeError`` when Chromium fails or the walker reports an error.
    """
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("chromium")
    workdir.mkdir(parents=True, exist_ok=True)
    page = workdir / "report_walk.html"
    page.write_text(report.read_text() + WALKER)
    cmd = [
        chromium,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={workdir / 'chromium-profile'}",
        "--virtual-time-budget=30000",
        "--dump-dom",
        page.resolve().as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    match = re.search(r'<pre id="holdout-check">(.*?)</pre>', proc.stdout, flags=re.S)
    if proc.returncode != 0 or match is None:
        raise RuntimeError(
            f"chromium gave no walker output (rc {proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-3000:]}"
        )
    text = match.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    data = json.loads(text)
    if data["error"]:
        raise RuntimeError(f"report walker failed in the page: {data['error']}")
    return data["results"]
