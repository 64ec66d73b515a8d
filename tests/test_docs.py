"""The short README, the documentation pages' links, and the configuration page generated from the schema."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from holdout.docs_schema import (
    iter_keys,
    load_schema,
    missing_descriptions,
    schema_markdown,
    section_markdown,
    type_text,
)

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
# Pages that the MkDocs hook docs/hooks/schema_page.py generates at build time (never on disk).
GENERATED = {DOCS / "configuration.md"}

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _markdown_files() -> list[Path]:
    """README.md and every page under docs/ except the notes of work in progress (docs/_incoming/)."""
    pages = [p for p in sorted(DOCS.rglob("*.md")) if "_incoming" not in p.relative_to(DOCS).parts]
    return [REPO / "README.md", *pages]


def _relative_links(path: Path) -> list[str]:
    """Targets of the Markdown links and images of a file, outside code, without URLs or pure anchors."""
    text = CODE_SPAN.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    targets = [m.group(1) for m in LINK.finditer(text)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_readme_is_short():
    """The README (also the package's long description) has at most 200 lines."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move details to docs/"


def test_pyproject_long_description_is_the_readme():
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^readme = "README.md"$', text, re.M)


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_point_to_existing_files(path):
    """Every relative link of README.md and docs/**/*.md names a file of the checkout (or a generated page)."""
    broken = []
    for target in _relative_links(path):
        dest = (path.parent / target.split("#", 1)[0]).resolve()
        if not dest.exists() and dest not in GENERATED:
            broken.append(target)
    assert not broken, f"{path.relative_to(REPO)}: links to missing files: {broken}"


def test_link_checker_sees_links(tmp_path):
    """The link pattern finds links and images and skips code, URLs and anchors (so the test above can fail)."""
    sample = tmp_path / "sample.md"
    sample.write_text('[a](x.md) ![b](img.png "t") `[c](no.md)` [d](https://e.org) [f](#g)\n```\n[h](no.md)\n```\n')
    assert _relative_links(sample) == ["x.md", "img.png"]


def test_generated_page_is_declared_by_the_hook():
    hook = (DOCS / "hooks" / "schema_page.py").read_text(encoding="utf-8")
    assert 'PAGE = "configuration.md"' in hook
    assert not (DOCS / "configuration.md").exists(), "configuration.md is generated: no hand-kept copy in docs/"
    mkdocs = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert "docs/hooks/schema_page.py" in mkdocs["hooks"]


def _nav_pages(nav) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [p for v in nav.values() for p in _nav_pages(v)]
    return [p for item in nav for p in _nav_pages(item)]


def test_nav_pages_exist_and_data_is_excluded():
    mkdocs = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    missing = [p for p in _nav_pages(mkdocs["nav"]) if not (DOCS / p).exists() and DOCS / p not in GENERATED]
    assert not missing, missing
    assert {"hooks/", "measurements/"} <= set(mkdocs["exclude_docs"].split())


def test_outputs_page_lists_every_output_paper_by_paper():
    """docs/outputs.md has one table per paper (in the papers' order); the README's compact table
    names every results folder those tables write to."""
    page = (DOCS / "outputs.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", page, re.M)
    assert [s.split(" ")[0] for s in sections[:5]] == ["Recht", "Recht", "Mania", "Werpachowski", "Arora"], sections
    rows = [r for r in page.splitlines() if r.startswith("| ") and not r.startswith("| figure / table |")]
    assert len(rows) >= 33, len(rows)
    folders = {m.split("/")[0] for r in rows for m in re.findall(r"`([a-z0-9_]+)/", r.split(" | ")[1])}
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = sorted(f for f in folders if f"results/{f}/" not in readme)
    assert not missing, f"README.md's outputs table misses results folders {missing}"


# --- holdout.docs_schema ----------------------------------------------------------------------

SMALL = {
    "type": "object",
    "properties": {
        "study": {
            "type": "object",
            "default": {},
            "description": "A study.",
            "properties": {
                "eps": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 1,
                    "default": 0.01,
                    "description": "Tolerance | of *every* model <x>.",
                },
                "form": {"type": "string", "enum": ["a", "b"], "default": "a", "description": "Form."},
                "size": {"type": ["integer", "null"], "default": None, "description": "Size or null."},
                "rows": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                    "default": [{"name": "r|1"}],
                    "description": "Rows.",
                },
                "sets": {
                    "type": "object",
                    "description": "Per set.",
                    "additionalProperties": {"type": "object", "properties": {"n": {"type": "integer"}}},
                },
                "mode": {"oneOf": [{"type": "string"}, {"type": "integer", "minimum": 1}], "description": "M."},
            },
        }
    },
}


def test_iter_keys_walks_properties_items_and_mappings():
    keys = list(iter_keys(SMALL))
    assert [k.path for k in keys] == [
        "study",
        "study.eps",
        "study.form",
        "study.size",
        "study.rows",
        "study.rows[].name",
        "study.sets",
        "study.sets.<name>.n",
        "study.mode",
    ]
    size = next(k for k in keys if k.path == "study.size")
    assert size.has_default and size.default is None
    assert not next(k for k in keys if k.path == "study.sets").has_default
    assert missing_descriptions(SMALL) == ["study.rows[].name", "study.sets.<name>.n"]


def test_type_text():
    props = SMALL["properties"]["study"]["properties"]
    assert type_text(props["eps"]) == "number (> 0, <= 1)"
    assert type_text(props["form"]) == 'string: one of "a", "b"'
    assert type_text(props["size"]) == "integer or null"
    assert type_text(props["mode"]) == "string or integer (>= 1)"
    assert type_text({"type": "array", "items": {"type": "integer"}}) == "array of integer"


def test_section_markdown_escapes_table_cells():
    text = section_markdown("study", SMALL["properties"]["study"])
    assert text.startswith("## study\n\nA study.\n\n| key | type | default | description |")
    eps_row = next(line for line in text.splitlines() if "study.<wbr>eps" in line)
    assert eps_row.count("|") == 5  # the description's pipe does not open a sixth cell
    assert "&#124;" in eps_row and "&lt;x&gt;" in eps_row and "&#42;every&#42;" in eps_row
    assert "<code>0.01</code>" in eps_row
    rows_row = next(line for line in text.splitlines() if "<code>study.<wbr>rows</code>" in line)
    assert "r&#124;1" in rows_row and rows_row.count("|") == 5


def test_the_real_schema_documents_every_key():
    """config/schema.yaml promises a description for every key (the configuration page shows them)."""
    schema = load_schema(REPO / "config" / "schema.yaml")
    assert missing_descriptions(schema) == []
    page = schema_markdown(schema)
    for name in schema["properties"]:
        assert f"\n## {name}\n" in page
    keys = list(iter_keys(schema))
    assert len(keys) > 200
    for key in keys[1:]:
        if "." not in key.path:
            continue  # a top-level section: its heading and description, checked above
        escaped = key.path
        for char, entity in (("_", "&#95;"), ("<", "&lt;"), (">", "&gt;"), ("[", "&#91;"), ("]", "&#93;")):
            escaped = escaped.replace(char, entity)
        assert f"<code>{escaped}</code>" in page.replace("<wbr>", ""), key.path


def test_load_schema_refuses_a_non_mapping(tmp_path):
    bad = tmp_path / "schema.yaml"
    bad.write_text("- a\n- b\n")
    with pytest.raises(ValueError, match="schema.yaml: a JSON schema must be a mapping"):
        load_schema(bad)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mkdocs") is None, reason="mkdocs not installed (pip install -e '.[docs]')")
def test_mkdocs_build_strict(tmp_path):
    """The site builds with --strict: no broken link, no missing API object, no undocumented key."""
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "site" / "configuration" / "index.html").exists()
