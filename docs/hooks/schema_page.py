"""MkDocs hook: the page ``configuration.md``, generated from ``config/schema.yaml`` at build time.

Declared in ``mkdocs.yml`` under ``hooks:``. The Markdown comes from
:func:`holdout.docs_schema.schema_markdown` (unit-tested in ``tests/test_docs.py``); nothing is
written into ``docs/``, so there is no hand-kept copy to drift from the schema. A key without a
description is a warning, which ``mkdocs build --strict`` turns into a failure.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "config" / "schema.yaml"
PAGE = "configuration.md"

try:
    from holdout.docs_schema import load_schema, missing_descriptions, schema_markdown
except ImportError:  # building from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT / "src"))
    from holdout.docs_schema import load_schema, missing_descriptions, schema_markdown

log = logging.getLogger("mkdocs.hooks.schema_page")


def on_files(files: Files, config) -> Files:
    """Add the generated configuration page to the site's files."""
    schema = load_schema(SCHEMA)
    for path in missing_descriptions(schema):
        log.warning("config/schema.yaml: key %s has no description", path)
    files.append(File.generated(config, PAGE, content=schema_markdown(schema)))
    return files


def on_serve(server, config, builder):
    """`mkdocs serve` rebuilds when the schema changes."""
    server.watch(str(SCHEMA))
    return server
