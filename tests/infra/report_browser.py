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


# --- one self-contained HTML page (holdout audit's report.html) at a given width ---------------------

#: injected first into the page: collects uncaught errors, failed loads and console.error / warn
ERROR_TRAP = """<script>
window.__holdoutErrors = [];
addEventListener('error', e => __holdoutErrors.push(String(e.message || (e.target && (e.target.src || e.target.href))
  || 'error event')), true);
addEventListener('unhandledrejection', e => __holdoutErrors.push('unhandled rejection: ' + e.reason));
for (const level of ['error', 'warn']) { const orig = console[level];
  console[level] = (...args) => { __holdoutErrors.push(level + ': ' + args.join(' ')); orig.apply(console, args); }; }
</script>"""

#: run after load inside the page: layout, images, text, and the tables' sorting and filtering
PAGE_CHECK = r"""<script>
window.addEventListener('load', () => setTimeout(() => {
  const W = innerWidth, out = {width: W, errors: window.__holdoutErrors, height: document.documentElement.scrollHeight};
  out.pageScrollWidth = document.documentElement.scrollWidth;
  out.images = [...document.images].map(i => { const r = i.getBoundingClientRect();
    return {alt: i.alt, natural: i.naturalWidth, shown: r.width, right: r.right,
            decoded: i.complete && i.naturalWidth > 0}; });
  out.tables = [...document.querySelectorAll('table')].map(t => { const box = t.closest('.scroll');
    const r = (box || t).getBoundingClientRect();
    return {caption: t.caption ? t.caption.textContent : '', rows: t.tBodies[0] ? t.tBodies[0].rows.length : 0,
            right: r.right, scrolls: !!box, sortable: t.querySelectorAll('th button').length > 0}; });
  const text = document.body.innerText;
  out.badText = [...text.matchAll(/.{0,40}\b(nan|NaN|None|undefined|Infinity)\b.{0,40}/g)].map(m => m[0]);
  out.sections = [...document.querySelectorAll('h2')].map(h => h.textContent);
  out.glance = [...document.querySelectorAll('.glance li')].map(li => li.textContent);
  out.links = [...document.querySelectorAll('a[download]')].map(a => a.getAttribute('href'));
  out.sorting = [];
  for (const box of document.querySelectorAll('.tbl')) {
    const table = box.querySelector('table'), rows = () => [...table.tBodies[0].rows].filter(r => !r.hidden);
    const heads = [...table.querySelectorAll('th button')];
    const col = heads.findIndex((b, i) => rows().length > 1 && rows().every(r => r.cells[i].dataset.v !== undefined));
    const rec = {caption: table.caption ? table.caption.textContent : '', column: col, ok: true, filter: null};
    if (col >= 0) for (const dir of [1, -1]) {
      heads[col].click();
      const v = rows().map(r => r.cells[col].dataset.v).filter(x => x !== '').map(Number);
      rec.ok = rec.ok && v.every((x, i) => i === 0 || dir * (x - v[i - 1]) >= 0);
    }
    const input = box.querySelector('input'), first = rows()[0];
    if (input && first) {
      const word = first.cells[0].textContent.trim();
      input.value = word; input.dispatchEvent(new Event('input'));
      const kept = rows();
      rec.filter = {word: word, kept: kept.length, all: table.tBodies[0].rows.length,
                    ok: kept.length >= 1 && kept.every(r => r.textContent.includes(word))};
      input.value = ''; input.dispatchEvent(new Event('input'));
    }
    out.sorting.push(rec);
  }
  const pre = document.createElement('pre'); pre.id = 'holdout-check'; pre.textContent = JSON.stringify(out);
  (window.parent !== window ? parent.document.body : document.body).appendChild(pre);
}, 200));
</script>"""


def _framed(page_html: str, width: int, height: int, extra: str = "") -> str:
    """``page_html`` inside an iframe ``width`` px wide (headless Chromium's window is at least 500 px
    wide, a phone's viewport 390 px: the frame is the viewport, media queries and all)."""
    import html as _html

    doc = page_html.replace("<head>", "<head>" + ERROR_TRAP, 1)
    doc = doc.replace("</body>", extra + "</body>", 1) if extra else doc
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='margin:0;background:#fff'>"
        f"<iframe style='border:0;display:block;width:{width}px;height:{height}px' "
        f'srcdoc="{_html.escape(doc, quote=True)}"></iframe></body></html>'
    )


def _chromium(args: list[str], workdir: Path, timeout: float) -> subprocess.CompletedProcess:
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("chromium")
    cmd = [chromium, *CHROMIUM_FLAGS, "--hide-scrollbars", f"--user-data-dir={workdir / 'chromium-profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def check_page(page: Path, width: int, workdir: Path, timeout: float = 120) -> dict:
    """Open ``page`` (a self-contained HTML file) at a viewport ``width`` px wide in headless Chromium
    and return what [PAGE_CHECK] found: errors, page and table overflow, image sizes, text such as
    'nan', the headings, the at-a-glance lines, the CSV links, and whether sorting and filtering work."""
    workdir.mkdir(parents=True, exist_ok=True)
    framed = workdir / f"{page.stem}_{width}_check.html"
    framed.write_text(_framed(page.read_text(), width, 900, PAGE_CHECK))
    win = f"--window-size={max(width, 500)},900"
    proc = _chromium([win, "--virtual-time-budget=20000", "--dump-dom", framed.resolve().as_uri()], workdir, timeout)
    match = re.search(r'<pre id="holdout-check">(.*?)</pre>', proc.stdout, flags=re.S)
    if proc.returncode != 0 or match is None:
        raise RuntimeError(f"chromium gave no check output (rc {proc.returncode}): {proc.stderr[-3000:]}")
    text = match.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    data = json.loads(text)
    data["console"] = [line for line in proc.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    return data


def screenshot(page: Path, width: int, height: int, png: Path, workdir: Path, timeout: float = 120) -> Path:
    """A screenshot of the top ``height`` px of ``page`` at a viewport ``width`` px wide (cropped to it)."""
    workdir.mkdir(parents=True, exist_ok=True)
    framed = workdir / f"{page.stem}_{width}_shot.html"
    framed.write_text(_framed(page.read_text(), width, height))
    raw = workdir / f"{png.stem}_raw.png"
    win = f"--window-size={max(width, 500)},{height}"
    args = [win, "--virtual-time-budget=5000", f"--screenshot={raw}", framed.resolve().as_uri()]
    proc = _chromium(args, workdir, timeout)
    if proc.returncode != 0 or not raw.is_file():
        raise RuntimeError(f"chromium made no screenshot (rc {proc.returncode}): {proc.stderr[-3000:]}")
    from PIL import Image

    with Image.open(raw) as img:
        img.crop((0, 0, width, height)).save(png)
    return png
