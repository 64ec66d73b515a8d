"""The rules of a Snakemake rules file, as the workflow tests read them (no Snakemake import)."""

from __future__ import annotations

import re

__all__ = ["RULE_LINE", "smk_rule_blocks"]

#: a rule's first line: ``rule NAME:``, ``use rule X as NAME with:``, or ``rule:`` (its name in a
#: ``name:`` directive, as rules made in a loop have), at any indentation (rules inside ``if``)
RULE_LINE = re.compile(
    r"^(?P<indent>[ \t]*)(?:use rule \w+ as (?P<alias>\w+)(?: with)?|rule(?: (?P<name>\w+))?)\s*:\s*$", re.M
)


def smk_rule_blocks(text: str, uses: bool = True) -> list[tuple[str, str]]:
    """(name, body) of every rule in a rules file's text; the body ends at the next line indented no
    deeper than the rule's first line. A ``rule:`` named in its ``name:`` directive gets that name
    with any f-string field removed (``search_train_group{_g:03d}`` -> ``search_train_group``).
    ``uses=False`` leaves out ``use rule ... with:`` blocks (they inherit their directives)."""
    out = []
    for m in RULE_LINE.finditer(text):
        if m.group("alias") and not uses:
            continue
        rest = text[m.end() :]
        stop = re.search(rf"^[ \t]{{0,{len(m.group('indent'))}}}\S", rest, flags=re.M)
        body = rest[: stop.start()] if stop else rest
        name = m.group("name") or m.group("alias")
        if name is None:
            named = re.search(r"^\s+name:\s*\n?\s*f?[\"']([^\"']+)[\"']", body, flags=re.M)
            assert named, f"an anonymous rule without a name: directive: {body[:200]!r}"
            name = re.sub(r"\{[^}]*\}", "", named.group(1))
        out.append((name, body))
    return out
