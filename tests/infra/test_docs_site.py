"""The documentation speaks to users and renders as written.

Fast checks of the Markdown sources (README.md, docs/, profiles/, config headers): lists have a
blank line before them (else Python-Markdown renders them as one run-on paragraph), no words about
how the work was organised (issue numbers, sessions, branch names), every ``holdout.x.y`` name
resolves, the architecture page's tree lists every package, `docs/audit.md` documents every option of
`holdout audit`, and every measured number equals its data file. Slow: the built site has no
paragraph that starts with "- ", and the one-GPU block of docs/running.md plans with `snakemake -n`.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def markdown_pages() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def rel(path: Path) -> str:
    return str(path.relative_to(REPO))


# --- lists ---------------------------------------------------------------------------------------

LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+\S")


def lists_after_paragraph(text: str) -> list[int]:
    """Line numbers of list items that directly follow a paragraph line (no blank line between),
    outside code fences: Python-Markdown renders such a list as part of the paragraph."""
    bad: list[int] = []
    in_fence, state = False, "blank"  # state: blank | para | list | listblank
    for i, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence, state = not in_fence, "blank"
            continue
        if in_fence:
            continue
        if not line.strip():
            state = "listblank" if state == "list" else "blank"
        elif LIST_ITEM.match(line):
            if state == "para":
                bad.append(i)
            state = "list"
        elif state == "list" or (state == "listblank" and line.startswith((" ", "\t"))):
            state = "list"  # a list item's continuation
        elif line.startswith(("#", "<")):
            state = "blank"
        else:
            state = "para"
    return bad


def test_list_check_finds_a_list_glued_to_a_paragraph():
    assert lists_after_paragraph("Intro:\n- a\n- b\n") == [2]
    assert lists_after_paragraph("Intro:\n\n- a\n  more\n- b\nlazy\n\n1. c\n") == []
    assert lists_after_paragraph("```\ntext\n- not a list\n```\n") == []


@pytest.mark.parametrize("page", markdown_pages(), ids=rel)
def test_lists_have_a_blank_line_before(page):
    bad = lists_after_paragraph(page.read_text(encoding="utf-8"))
    assert not bad, f"{rel(page)}: a list right after a paragraph line (add a blank line) at lines {bad}"


# --- vocabulary ----------------------------------------------------------------------------------

# words about how the work was organised, not about the software
JARGON = [
    re.compile(r"\bissues?[- ]?#?\d+", re.I),
    re.compile(r"\(issue\b", re.I),
    re.compile(r"\bsessions?\b", re.I),
    re.compile(r"\bbranch(?:es)?\s+`?i\d+", re.I),
    re.compile(r"`i\d{2}[a-z]?(?:-[a-z]+)?`"),
    re.compile(r"\bi\d{2}[a-z]?-[a-z]+\b"),
    re.compile(r"_incoming"),
    re.compile(r"\bRenamed in \d", re.I),
    re.compile(r"\bwork[- ]?logs?\b", re.I),
    re.compile(r"\blent to\b", re.I),
    re.compile(r"\bthis work\b", re.I),
    re.compile(r"\bthe issue\b", re.I),
]
ISSUE_NUMBER = JARGON[0]


def comment_lines(path: Path) -> list[tuple[int, str]]:
    return [(i, line) for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "#" in line]


def user_facing_lines() -> list[tuple[str, int, str]]:
    """(file, line number, text) of the pages, mkdocs.yml, and the comments of config/ and profiles/."""
    out = []
    for page in [*markdown_pages(), REPO / "mkdocs.yml"]:
        out += [(rel(page), i, t) for i, t in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)]
    for path in sorted((REPO / "config").rglob("*.yaml")) + sorted((REPO / "profiles").rglob("*.yaml")):
        out += [(rel(path), i, t[t.index("#") :]) for i, t in comment_lines(path)]
    return out


def jargon_hits(lines: list[tuple[str, int, str]], patterns=JARGON) -> list[str]:
    return [
        f"{f}:{i}: {m.group(0)!r} in: {t.strip()[:100]}" for f, i, t in lines for p in patterns if (m := p.search(t))
    ]


def test_vocabulary_check_catches_work_log_words():
    lines = [("a.md", 3, "as issue 21 asked (branch `i22-code`)"), ("b.md", 1, "see https://x/issues/5")]
    hits = jargon_hits(lines)
    assert hits and all(h.startswith("a.md:3:") for h in hits)


def test_docs_readme_and_config_comments_speak_to_users():
    hits = jargon_hits(user_facing_lines())
    assert not hits, "words about how the work was organised, not about the software:\n" + "\n".join(hits)


def test_source_strings_name_no_issue_numbers():
    lines = []
    for path in sorted((REPO / "src").rglob("*.py")):
        lines += [(rel(path), i, t) for i, t in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)]
    hits = jargon_hits(lines, [ISSUE_NUMBER, JARGON[1]])
    assert not hits, "issue numbers in docstrings, comments or messages:\n" + "\n".join(hits)


# --- dotted names --------------------------------------------------------------------------------

DOTTED = re.compile(r"(?<![\w/.-])holdout(?:\.[A-Za-z_]\w*)+")
FILE_SUFFIXES = (".md", ".py", ".yaml", ".json", ".log", ".html")


def resolves(name: str) -> bool:
    """``holdout.a.b.c``: the longest importable module prefix, then attributes for the rest."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        module = ".".join(parts[:k])
        try:
            if importlib.util.find_spec(module) is None:
                continue
        except (ImportError, ValueError):
            continue
        obj = importlib.import_module(module)
        for attr in parts[k:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def mentioned_names() -> dict[str, list[str]]:
    files = [*markdown_pages()]
    files += sorted((REPO / "config").rglob("*.yaml")) + sorted((REPO / "profiles").rglob("*.yaml"))
    out: dict[str, list[str]] = {}
    for path in files:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in DOTTED.finditer(line):
                if not m.group(0).endswith(FILE_SUFFIXES):  # holdout.md, a page, not a module
                    out.setdefault(m.group(0), []).append(f"{rel(path)}:{i}")
    return out


def test_dotted_name_check():
    assert resolves("holdout.bounds.core.union_bound_k") and resolves("holdout.stats")
    assert not resolves("holdout.gpu.gpu_slot") and not resolves("holdout.bounds.core.no_such_name")
    assert DOTTED.findall("`holdout.training.gpu.gpu_slot()`, src/holdout.egg-info") == [
        "holdout.training.gpu.gpu_slot"
    ]


def test_every_holdout_name_in_docs_profiles_and_config_resolves():
    """Every ``holdout.x.y`` written in README.md, docs/, profiles/ and config/ imports (resolved now,
    so names added later by other modules count as soon as they exist)."""
    bad = [
        f"{name} ({', '.join(where[:3])})" for name, where in sorted(mentioned_names().items()) if not resolves(name)
    ]
    assert not bad, "names that do not import:\n" + "\n".join(bad)


# --- architecture tree ---------------------------------------------------------------------------


def test_architecture_tree_lists_every_package_and_module():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    tree = re.search(r"^```\nsrc/holdout/\n(.*?)^```", text, re.S | re.M)
    assert tree, "docs/architecture.md: no ```-block starting with src/holdout/"
    package_part = tree.group(1).split("\nworkflow/")[0]
    listed = set(re.findall(r"^[├└]── (\S+)", package_part, re.M))
    src = REPO / "src" / "holdout"
    actual = {p.name + "/" for p in src.iterdir() if (p / "__init__.py").is_file()}
    actual |= {p.name for p in src.glob("*.py") if p.name != "__init__.py"}
    missing, extra = sorted(actual - listed), sorted(listed - actual)
    assert not missing and not extra, f"docs/architecture.md tree: missing {missing}, not in src/holdout: {extra}"


# --- holdout audit options -----------------------------------------------------------------------


def test_audit_page_documents_every_option():
    """Every option of `holdout audit` (read from its parser now) appears in docs/audit.md."""
    import argparse

    from holdout.audit.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    options = [
        s for a in sub.choices["audit"]._actions for s in a.option_strings if s.startswith("--") and s != "--help"
    ]
    page = (DOCS / "audit.md").read_text(encoding="utf-8")
    missing = [o for o in options if not re.search(rf"`[^`]*{re.escape(o)}(?![\w-])[^`]*`", page)]
    assert not missing, f"docs/audit.md does not document {missing} (write each in `code`, with an example)"


# --- measured numbers ----------------------------------------------------------------------------


def _updater():
    spec = importlib.util.spec_from_file_location("update_docs_numbers", REPO / "benchmarks" / "update_docs_numbers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _bench_workflow():
    spec = importlib.util.spec_from_file_location("bench_workflow", REPO / "benchmarks" / "bench_workflow.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_workflow", mod)  # its dataclass resolves annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def test_every_page_number_equals_its_measurement_file():
    """`python benchmarks/update_docs_numbers.py` would change nothing."""
    upd = _updater()
    measurements = upd.load_measurements()
    problems = []
    for page in upd.pages():
        problems += upd.update_text(page.read_text(encoding="utf-8"), measurements, rel(page))[1]
    assert not problems, "run python benchmarks/update_docs_numbers.py:\n" + "\n".join(problems)


def test_number_markers_are_checked_and_rewritten():
    upd = _updater()
    data = {"run": {"what": "w", "command": "c", "date": "2026-01-02", "load": "idle", "wall_s": 573.2}}
    data["run"]["machine"] = {"cpu": "AMD EPYC", "cores": 2}
    text = "took <!-- num run.wall_s:minsec -->10 min<!-- /num --> (<!-- num run.stamp -->?<!-- /num -->)"
    new, problems = upd.update_text(text, data, "p.md")
    stamp = "<!-- num run.stamp -->2026-01-02, AMD EPYC, 2 cores, idle<!-- /num -->"
    assert new == f"took <!-- num run.wall_s:minsec -->9 min 33 s<!-- /num --> ({stamp})"
    assert problems[0].startswith("p.md:1: run.wall_s shows '10 min'")
    assert upd.update_text(new, data, "p.md") == (new, [])
    assert "no key" in upd.update_text("x <!-- num run.nope -->1<!-- /num -->", data, "p.md")[1][0]
    assert "starts the line" in upd.update_text("a\n<!-- num run.wall_s -->573.2<!-- /num -->", data, "p.md")[1][0]
    # indented, inside a list item, it ends the paragraph just the same
    assert "starts the line" in upd.update_text("- a\n  <!-- num run.wall_s -->573.2<!-- /num -->", data, "p.md")[1][0]


def test_the_main_job_numbers_come_from_the_measurement():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for key in ("default_run.wall_s", "default_run.tree_cpu_s", "default_run.stamp"):
        assert f"<!-- num {key}" in readme, f"README.md: the main job's {key} is not taken from docs/measurements/"


def test_bench_workflow_writes_what_the_pages_read():
    bench = _bench_workflow()
    res = {
        "command": "snakemake --cores 2",
        "machine": {"cpu": "AMD EPYC", "cores": 2, "ONEDNN_MAX_CPU_ISA": "AVX2"},
        "load": [0.1, 1.9, 1.8],
        "others_cpu_s": 3.0,
        "jobs": 130,
        "wall_s": 600.04,
        "tree_cpu_s": 1000.0,
        "tree_user_s": 900.0,
        "tree_sys_s": 100.0,
        "rules_cpu_s": 900.0,
        "second_run": {"wall_s": 2.5, "nothing_to_do": True},
        "top_rules": [{"rule": "search/train", "cpu_time": 150.0}],
    }
    doc = bench.docs_measurement(res, "")
    upd = _updater()
    assert all(k in doc for k in upd.REQUIRED)
    assert upd.value_text("x.wall_s", "minsec", {"x": doc}) == "10 min 00 s"
    assert (doc["tree_cpu_s"], doc["rules_cpu_s"], doc["gap_cpu_s"], doc["second_run_s"]) == (1000.0, 900.0, 100.0, 2.5)
    assert upd.stamp(doc).endswith(
        "oneDNN limited to AVX2, load average 0.1 at start, 1.9 at the end; idle machine (nothing else running)"
    )
    # Other work beside the run (more than a tenth of a core on average) is said, with the wall time an upper bound.
    busy = bench.docs_measurement({**res, "others_cpu_s": 1200.0}, "")
    assert "other work shared the machine (1,200 CPU-s beside the run, 2.0 of 2 cores" in busy["load"]
    assert bench.budget_misses(res, 600, 1000, 5) == ["wall time 600 s > budget 600 s"]
    assert bench.budget_misses({**res, "wall_s": 500.0}, 600, 1000, 5) == []
    slow = {**res, "wall_s": 500.0, "tree_cpu_s": 1001.0, "second_run": {"wall_s": 6.0, "nothing_to_do": False}}
    assert len(bench.budget_misses(slow, 600, 1000, 5)) == 3
    assert bench.budget_misses(slow, 0, 0, 0) == []


def test_bench_workflow_measures_the_whole_process_tree(tmp_path):
    """The tree's CPU time counts what the children and grandchildren of the command used."""
    bench = _bench_workflow()
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    grandchild = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}])"
    cmd = [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {grandchild!r}])"]
    run = bench.run_tree(cmd, tmp_path, dict(os.environ), tmp_path / "log.txt", sample_s=0.05)
    assert run.returncode == 0
    assert run.cpu_s >= 0.3  # the grandchild's busy loop is in the tree
    assert run.wall_s >= 0.3 and len(run.load) >= 2
    assert 0 <= run.main_cpu_s <= run.cpu_s  # the command's own process, sampled


def test_bench_workflow_reads_each_jobs_own_account(tmp_path):
    """Per rule, the CPU each job's process reported in its log (holdout.runlog), beside the
    sampler's cpu_time, which misses the last seconds of a job; a job without an account adds 0."""
    from holdout.runlog import JobResources

    bench = _bench_workflow()
    logs = tmp_path / "logs" / "search"
    logs.mkdir(parents=True)
    header = "s\th:m:s\tmax_rss\tcpu_time\n"
    jobs = [("train_m000", 20.0, (30.5, 2.0)), ("train_m001", 21.0, (31.5, 1.0)), ("sample", 0.0, None)]
    for name, cpu_time, account in jobs:
        (logs / f"{name}.benchmark.tsv").write_text(header + f"40.0\t0:00:40\t500\t{cpu_time}\n")
        if account:
            line = JobResources(account[0] - account[1], account[1], 700.0, 1000).line()
            (logs / f"{name}.log").write_text(f"2026-11-27 INFO holdout: started\n2026-11-27 INFO holdout: {line}\n")
    rows = bench.read_benchmarks(tmp_path)
    summary = bench.summarise(rows)
    assert summary["jobs"] == 3 and summary["jobs_accounted"] == 2
    assert summary["jobs_cpu_s"] == pytest.approx(62.0) and summary["jobs_sys_s"] == pytest.approx(3.0)
    top = summary["top_rules"][0]
    assert (top["rule"], top["jobs"], top["cpu_time"]) == ("search/train", 2, 41.0)
    assert top["job_cpu_s"] == pytest.approx(62.0)
    assert summary["studies"] == {"search": {"jobs": 3, "job_cpu_s": pytest.approx(62.0)}}
    shares = bench.study_shares(summary["studies"], tree_cpu_s=80.0, jobs_cpu_s=62.0)
    assert (shares["network_studies"], shares["network_studies_jobs"], shares["other_studies_jobs"]) == (
        ["search"],
        3,
        0,
    )
    assert (
        shares["network_studies_job_cpu_s"],
        shares["tree_minus_jobs_cpu_s"],
        shares["network_share_of_tree_pct"],
    ) == (
        62.0,
        18.0,
        78,
    )


# --- versions named in the docs ------------------------------------------------------------------


def test_torch_version_named_in_the_docs_is_the_one_installed():
    """Pages that name the torch version the numbers were measured with name the one pip installs.
    A GPU measurement's stamp (``<!-- num gpu.stamp -->``) names the torch of the lent GPU machine,
    which is that machine's, not ours: it is taken from docs/measurements/gpu.json as measured."""
    torch_version = importlib.metadata.version("torch").split("+")[0]
    gpu_stamp = re.compile(r"<!-- num gpu\.stamp -->[^<]*<!-- /num -->")
    bad = [
        f"{rel(p)}:{i}: {m.group(0)}"
        for p in markdown_pages()
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        for m in re.finditer(r"\btorch (\d+\.\d+(?:\.\d+)?)\b", gpu_stamp.sub("", line))
        if m.group(1).split(".") != torch_version.split(".")[: m.group(1).count(".") + 1]
    ]
    assert not bad, f"torch {torch_version} is installed; pages name another version:\n" + "\n".join(bad)


# --- the built site (slow) -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if shutil.which("mkdocs") is None:
        pytest.skip("mkdocs not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)


def paragraphs_starting_with(html: str, prefixes: tuple[str, ...]) -> list[str]:
    return [p[:80] for p in PARAGRAPH.findall(html) if p.lstrip().startswith(prefixes) or "\n- " in p]


def test_paragraph_check_sees_run_on_lists():
    assert paragraphs_starting_with("<p>Intro:\n- a\n- b</p><p>ok</p>", ("- ",)) == ["Intro:\n- a\n- b"]


@pytest.mark.slow
def test_built_pages_have_no_run_on_lists(site):
    bad = []
    for page in sorted(site.rglob("*.html")):
        hits = paragraphs_starting_with(page.read_text(encoding="utf-8"), ("- ",))
        bad += [f"{page.relative_to(site)}: {h!r}" for h in hits]
    assert not bad, "paragraphs that should be lists:\n" + "\n".join(bad)


def _running_block(title: str) -> str:
    text = (DOCS / "running.md").read_text(encoding="utf-8")
    block = re.search(rf"\*\*{re.escape(title)}\*\*.*?```bash\n(.*?)```", text, re.S)
    assert block, f"docs/running.md: no block after **{title}**"
    return block.group(1)


def test_running_page_opens_with_three_blocks():
    laptop, gpu, slurm = (
        _running_block(t) for t in ("Laptop CPU", "One GPU workstation", "SLURM cluster at the papers' scale")
    )
    assert "--configfile config/offline.yaml" in laptop
    assert "--profile profiles/local --configfile config/gpu.yaml" in gpu
    assert "--profile profiles/slurm --configfile config/paper.yaml" in slurm and "offline" not in slurm
    assert "'.[train,test,slurm]'" in slurm


@pytest.mark.slow  # 3-10 s each: one Snakemake dry run of the whole GPU- or paper-scale DAG
@pytest.mark.parametrize("title", ["One GPU workstation", "SLURM cluster at the papers' scale"])
def test_run_block_plans_with_its_profile(title, tmp_path):
    """The block's snakemake line, as written (with its profile and config), plans the workflow
    with `-n`: the training jobs of search and seeds are in the plan."""
    if "SLURM" in title and importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm not installed (pip install -e '.[slurm]')")
    line = next(cmd for cmd in _running_block(title).splitlines() if cmd.startswith("snakemake "))
    args = line.split("#")[0].split()[1:]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-m", "snakemake", *args, "-n", "--directory", str(tmp_path), "--quiet", "rules"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", proc.stdout, flags=re.M))
    assert int(counts.get("search_train", 0)) > 0 and int(counts.get("seeds_train", 0)) > 0, proc.stdout[-2000:]


# --- cross-references in the API pages (slow) ----------------------------------------------------

# A Sphinx role as the built page shows it: ":func:<code>x</code>" or ":mod:`x`" (mkdocstrings renders
# Markdown, so a role stays raw text).
SPHINX_ROLE = re.compile(r":(?:py:)?(?:func|mod|class|meth|attr|data|exc|obj|ref|const):(?=<code>|`)")
API_PAGES = sorted(p.stem for p in (DOCS / "api").glob("*.md") if p.stem != "index")
# Raw roles allowed per API page: none. Cross-references in docstrings are Markdown autorefs
# ([`name`][holdout.module.name]), which the strict build resolves or fails on.
ROLES_LEFT: dict[str, int] = {}


def sphinx_roles(html: str) -> list[str]:
    """The raw Sphinx roles in a built page, each with the text after it."""
    return [html[m.start() : m.end() + 40] for m in SPHINX_ROLE.finditer(html)]


def test_role_check_sees_raw_roles():
    assert len(sphinx_roles("<p>see :func:<code>union_bound_k</code> and :mod:`x`</p>")) == 2
    assert sphinx_roles('<a href="#x"><code>union_bound_k</code></a> at 12:30:<code>x</code>') == []


@pytest.mark.slow
@pytest.mark.parametrize("page", API_PAGES)
def test_no_sphinx_roles_in_api_pages(site, page):
    """API pages render cross-references as links, not as raw ':func:`x`' (at most ROLES_LEFT[page])."""
    roles = sphinx_roles((site / "api" / page / "index.html").read_text(encoding="utf-8"))
    allowed = ROLES_LEFT.get(page, 0)
    assert len(roles) <= allowed, (
        f"api/{page}: {len(roles)} raw Sphinx roles (allowed {allowed}); write cross-references as "
        f"[`name`][holdout.module.name]. First: {roles[:3]}"
    )


def test_no_sphinx_roles_in_docstrings():
    """Docstrings write cross-references as Markdown autorefs, never as Sphinx roles (raw text on the site)."""
    role = re.compile(r":(?:py:)?(?:func|mod|class|meth|attr|data|exc|obj):`")
    hits = [
        f"{path.relative_to(REPO)}:{i}"
        for path in sorted((REPO / "src" / "holdout").rglob("*.py"))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if role.search(line)
    ]
    assert not hits, f"Sphinx roles (write [`name`][holdout.module.name] instead): {hits[:10]}"


# --- shipped files -------------------------------------------------------------------------------

REPO_PATH = re.compile(r"`((?:benchmarks|config|docs|workflow|src|tests)/[A-Za-z0-9_./-]*[A-Za-z0-9_])/?`")


def test_every_file_the_pages_name_is_tracked_by_git():
    """A file the docs point to must ship with a clone: present here is not enough when .gitignore
    hides it (CI runs on a fresh clone). Placeholders in capitals (NAME.json) are skipped."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    tracked_set = set(tracked)
    missing = []
    for page in markdown_pages():
        for path in REPO_PATH.findall(page.read_text(encoding="utf-8")):
            if re.search(r"/[A-Z]+\.", path):
                continue
            if path in tracked_set or any(t.startswith(path + "/") for t in tracked):
                continue
            missing.append(f"{rel(page)}: {path}")
    assert not missing, "named by the docs but not in git (ignored or missing):\n" + "\n".join(missing)
