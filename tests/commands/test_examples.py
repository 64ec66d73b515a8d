"""Every example in the --help of `holdout power` and `holdout compare` runs on the data mirror and
gives the exit code its comment promises (0 for power; the decision's code for compare)."""

from __future__ import annotations

import shlex

import pytest

from holdout.commands import compare, power


def _examples(module) -> list[tuple[str, list[str]]]:
    """(comment, argv) of each example of the module's epilog, continuation lines joined."""
    text = module.EXAMPLES.replace("\\\n", " ")
    out, comment = [], ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#"):
            comment = line
        elif line.startswith("holdout "):
            out.append((comment, shlex.split(line)[2:]))
    return out


def _run(main, argv: list[str], shared_data, tmp_path) -> int:
    mirror = str(shared_data)
    args = [a.replace("../shared/data", mirror) for a in argv]
    args = [str(tmp_path / a.rsplit("/", 1)[-1]) if a.startswith("/tmp/") else a for a in args]
    return main(args)


@pytest.mark.parametrize(("comment", "argv"), _examples(power))
def test_power_examples_run(comment: str, argv: list[str], shared_data, tmp_path, capsys) -> None:
    assert _run(power.main, argv, shared_data, tmp_path) == 0, comment
    assert capsys.readouterr().out


@pytest.mark.parametrize(("comment", "argv"), _examples(compare))
def test_compare_examples_run(comment: str, argv: list[str], shared_data, tmp_path, capsys) -> None:
    code = _run(compare.main, argv, shared_data, tmp_path)
    assert code in (0, 1, 3), comment
    assert capsys.readouterr().out.split(" (exit ")[1].startswith(str(code))


def test_every_command_has_examples() -> None:
    assert len(_examples(power)) >= 3 and len(_examples(compare)) >= 3


def test_the_holdout_dispatcher_runs_both_commands(shared_data, capsys) -> None:
    from holdout.cli import main as holdout

    assert holdout(["power", "--accuracy", "0.80", "0.78", "--discordance", "0.15"]) == 0
    assert capsys.readouterr().out.startswith("n = 2,941 items")
    helm = shared_data / "evallogs/helm_safety_bbq/runs/v4/bbq:subject=all,method=multiple_choice_joint,model={}"
    base, candidate = str(helm).format("meta_llama-3-8b-chat"), str(helm).format("meta_llama-3-70b-chat")
    assert holdout(["compare", base, candidate]) == 1
