"""Every rule of the workflow is ready for a cluster: log, benchmark, env, resources.

Checked on the rule sources (workflow/rules/*.smk), so it covers every stage as
it is merged: each ``rule`` block has ``log:``, ``benchmark:``, ``conda:``,
``threads:`` and ``resources:`` with ``mem_mb`` and ``runtime`` (minutes); a
rule that asks for a GPU uses the torch environment.
"""

from __future__ import annotations

import re

from smk_rules import smk_rule_blocks

DIRECTIVES = ("log:", "benchmark:", "conda:", "threads:", "resources:")


def rule_blocks(repo):
    for smk in sorted((repo / "workflow" / "rules").glob("*.smk")):
        for name, body in smk_rule_blocks(smk.read_text(), uses=False):
            yield smk.name, name, body


def test_every_rule_declares_log_benchmark_env_and_resources(repo):
    problems = []
    for smk, name, body in rule_blocks(repo):
        missing = [d for d in DIRECTIVES if not re.search(rf"^\s+{d}", body, flags=re.M)]
        res = re.search(r"^\s+resources:\s*\n((?:\s{8,}.*\n?)*)", body, flags=re.M)
        res_text = res.group(1) if res else ""
        missing += [k for k in ("mem_mb", "runtime") if not re.search(rf"\b{k}\s*=", res_text)]
        if re.search(r"\b(gpu|gres)\s*=", res_text) and "envs/torch.yaml" not in body:
            problems.append(f"{smk}: rule {name} asks for a GPU outside envs/torch.yaml")
        if missing:
            problems.append(f"{smk}: rule {name} lacks {', '.join(missing)}")
    assert not problems, "\n".join(problems)
