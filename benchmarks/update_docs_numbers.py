"""Write the measured numbers of ``docs/measurements/*.json`` into the pages that show them.

One source per number: a measurement is a JSON file under ``docs/measurements/`` (written by a
benchmark script, e.g. ``bench_workflow.py --docs default_run``, or by hand from a script's output),
with its date, machine and load. A page (README.md or any ``docs/**/*.md``) shows a value between
two markers, invisible in the rendered page::

    <!-- num default_run.wall_s:minsec -->9 min 33 s<!-- /num -->
    <!-- num default_run.stamp -->2026-11-25, AMD EPYC, 2 cores, ...<!-- /num -->

``default_run`` names ``docs/measurements/default_run.json``, ``wall_s`` a key in it (dotted for
nested keys), ``minsec`` a format (FORMATS). The key ``stamp`` gives date, machine and load.

    python benchmarks/update_docs_numbers.py           # rewrite the numbers in every page
    python benchmarks/update_docs_numbers.py --check   # change nothing; exit 1 naming file:line of each mismatch

``tests/infra/test_docs_numbers.py`` runs the check: a page that disagrees with its data fails it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEASUREMENTS = REPO / "docs" / "measurements"
MARKER = re.compile(
    r"<!-- num (?P<ref>[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)+)(?::(?P<fmt>[a-z0-9]+))? -->(?P<text>.*?)<!-- /num -->"
)
REQUIRED = ("what", "date", "machine", "load", "command")


def _minsec(x: float) -> str:
    m, s = divmod(round(float(x)), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


FORMATS: dict[str, Callable[[object], str]] = {
    "str": str,
    "int": lambda x: f"{round(float(x)):,}",  # 1,726
    "f0": lambda x: f"{float(x):.0f}",
    "f1": lambda x: f"{float(x):.1f}",
    "f2": lambda x: f"{float(x):.2f}",
    "f3": lambda x: f"{float(x):.3f}",
    "f4": lambda x: f"{float(x):.4f}",
    "p": lambda x: f"{float(x):.1g}" if float(x) > 0 else "< 1e-300",  # a p-value (0: below double range)
    "names": lambda x: ", ".join(f"`{v}`" for v in x),
    "signed3": lambda x: f"{float(x):+.3f}",
    "pct0": lambda x: f"{100 * float(x):.0f}%",  # a fraction as a whole percent
    "pct2": lambda x: f"{100 * float(x):.2f}%",  # 0.7825 -> 78.25%
    # an adaptive headline row (results_numbers.py): mean ± sd of the overfit over splits, (largest)
    "overfit": lambda d: f"{d['overfit_mean']:.3f} ± {d['overfit_sd']:.3f}",
    "overfitmax": lambda d: f"{d['overfit_mean']:.3f} ± {d['overfit_sd']:.3f} ({d['overfit_max']:.3f})",
    "minsec": _minsec,  # 573.2 -> 9 min 33 s
    "rules": lambda d: ", ".join(f"{k} {round(float(v))}" for k, v in d.items()),  # {rule: CPU-s}
}


def stamp(data: dict) -> str:
    """Date, machine and load of a measurement, as the pages print it."""
    m = data["machine"]
    if "gpu" in m:  # a GPU measurement: the card and the torch that drove it
        return f"{data['date']}, {m['gpu']}, torch {m['torch']}"
    machine = f"{m['cpu']}, {m['cores']} cores" + (f", {m['isa']}" if m.get("isa") else "")
    return f"{data['date']}, {machine}, {data['load']}"


def load_measurements(folder: Path = MEASUREMENTS) -> dict[str, dict]:
    """Every ``<name>.json`` of ``folder`` by name; each must have the keys in REQUIRED."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        missing = [k for k in REQUIRED if k not in data]
        if missing:
            raise ValueError(f"{path.relative_to(REPO)}: missing {missing} (every measurement names them)")
        out[path.stem] = data
    return out


def value_text(ref: str, fmt: str | None, measurements: dict[str, dict]) -> str:
    """The text a marker shows: ``name.key.sub`` looked up in measurement ``name``, formatted."""
    name, *keys = ref.split(".")
    if name not in measurements:
        raise KeyError(f"no docs/measurements/{name}.json")
    data = measurements[name]
    if keys == ["stamp"]:
        return stamp(data)
    value: object = data
    for k in keys:
        if not isinstance(value, dict) or k not in value:
            raise KeyError(f"docs/measurements/{name}.json has no key {'.'.join(keys)}")
        value = value[k]
    if (fmt or "str") not in FORMATS:
        raise KeyError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    return FORMATS[fmt or "str"](value)


def update_text(text: str, measurements: dict[str, dict], where: str) -> tuple[str, list[str]]:
    """``text`` with every marker's value rewritten, and a 'file:line: ...' line per changed or broken marker."""
    problems: list[str] = []

    def sub(m: re.Match) -> str:
        line = text.count("\n", 0, m.start()) + 1
        start = text.rfind("\n", 0, m.start()) + 1
        if not text[start : m.start()].strip():  # also after an indent: it ends the paragraph
            problems.append(
                f"{where}:{line}: a marker starts the line: Markdown makes it an HTML block (put a word first)"
            )
        try:
            new = value_text(m.group("ref"), m.group("fmt"), measurements)
        except KeyError as err:
            problems.append(f"{where}:{line}: {m.group('ref')}: {err.args[0]}")
            return m.group(0)
        if new != m.group("text"):
            problems.append(f"{where}:{line}: {m.group('ref')} shows {m.group('text')!r}, the data says {new!r}")
        return m.group(0).replace(f"-->{m.group('text')}<!--", f"-->{new}<!--", 1)

    return MARKER.sub(sub, text), problems


def pages(repo: Path = REPO) -> list[Path]:
    return [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page disagrees with its data")
    args = ap.parse_args(argv)
    measurements = load_measurements()
    all_problems = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new, problems = update_text(text, measurements, str(page.relative_to(REPO)))
        all_problems += problems
        if not args.check and new != text:
            page.write_text(new, encoding="utf-8")
            print(f"updated {page.relative_to(REPO)}")
    for p in all_problems:
        print(p, file=sys.stderr)
    broken = [p for p in all_problems if "shows" not in p]
    return 1 if (broken or (args.check and all_problems)) else 0


if __name__ == "__main__":
    raise SystemExit(main())
