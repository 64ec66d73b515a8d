"""``holdout plan``: every training job a set of config files asks for, before a GPU-hour is spent.

Config files are merged as Snakemake merges them (``config/config.yaml``, then each file in order,
[`update_config`](https://snakemake.readthedocs.io/en/stable/api_reference/snakemake_utils.html)
key by key), validated against ``config/schema.yaml`` with its defaults, and each study's scale is
applied ([`resolve_search`][holdout.training.recipes.resolve_search],
[`resolve_retraining`][holdout.training.recipes.resolve_retraining]). One row per training job: the
model, its parameter count and forward FLOPs per image (counted by ``torch.utils.flop_counter`` on
the meta device, once per distinct architecture), the recipe, the training-set size, checkpoints,
the declared resources, the recipe's source, and the projected GPU-hours.

The cost of each job ([`holdout.training.cost`][holdout.training.cost]): a projection range (counted FLOPs at
half and twice ``--tflops``, a per-step floor per layer, dual cutout counted twice; never a
measurement), and with ``--calibration FILE`` hours from seconds per step measured on one GPU
([`holdout.training.calibration`][holdout.training.calibration]; ``config/calibration/`` holds ours).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from holdout.training.cost import FLOOR_MS_PER_LAYER, STARTUP_S, architecture_key, cell_key, count_network
from holdout.training.recipes import PAPER_RETRAINING, resolve_retraining, resolve_search

__all__ = [
    "ASSUMED_TFLOPS",
    "JobSpec",
    "PlanRow",
    "add_plan_parser",
    "architecture_key",
    "count_model",
    "load_merged_config",
    "plan_jobs",
    "plan_specs",
    "plan_table",
]

#: Sustained training throughput the projection assumes (TFLOP/s per GPU, forward + backward).
#: An ASSUMPTION, not a measurement: an H100's dense bf16 peak is about 990 TFLOP/s, and small
#: CIFAR convolutions reach a few percent of it; 20 TFLOP/s is ResNet-preact-110 (0.51 GFLOP per
#: image forward) at about 13,000 images/s.
ASSUMED_TFLOPS = 20.0
CIFAR10_TRAIN = 50_000
CIFAR10_TEST = 10_000


@dataclass(frozen=True)
class PlanRow:
    """One training job of the workflow, as ``holdout plan`` prints it."""

    study: str
    job: str
    model: str
    params: int
    gflops_per_image: float
    epochs: int
    batch_size: int
    optimizer: str
    lr_schedule: str
    weight_decay: float
    weight_decay_covers: str
    augmentation: str
    train_images: int
    checkpoints: int
    threads: int
    mem_mb: int
    runtime_min: int
    gpus: int
    gpu_hours_projected: float
    views: int
    steps: int
    gpu_hours_low: float
    gpu_hours_high: float
    gpu_hours_calibrated: float
    calibration_basis: str
    cell: str
    source: str


def load_merged_config(configfiles: Sequence[str | Path], base: str | Path = "config/config.yaml") -> dict[str, Any]:
    """``base`` then ``configfiles`` merged as Snakemake does, with the schema's defaults and scales.

    A file that is not YAML, not a mapping, a misspelt key or a value the schema refuses raises
    [`ConfigError`][holdout.config.ConfigError] with one line naming the file or key."""
    from snakemake.utils import update_config

    from holdout.config import check_config_files, check_unknown_keys, load_config_file

    cfg: dict[str, Any] = {}
    for path in (base, *configfiles):
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"config file {p} not found (run from the repository root)")
        check_config_files([p])
        update_config(cfg, load_config_file(p) or {})
    schema = Path(base).parent / "schema.yaml"
    check_unknown_keys(cfg, schema)
    _validate(cfg, schema)
    cfg["search"] = resolve_search(cfg["search"])
    cfg["retraining"] = resolve_retraining(cfg["retraining"])
    return cfg


def _validate(cfg: dict[str, Any], schema: Path) -> None:
    """The schema's check with its defaults; its refusal as one line naming the key (not the whole config)."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    from holdout.config import schema_error

    try:
        validate(cfg, str(schema), set_default=True)
    except WorkflowError as exc:
        raise schema_error(exc) from None


def count_model(model_config: Any, image_size: int = 32) -> tuple[int, int]:
    """(trainable parameters, forward FLOPs of one image) of a ResNet-preact config or ModelSpec
    ([`count_network`][holdout.training.cost.count_network]: cached per distinct architecture)."""
    return count_network(model_config, image_size)[:2]


def _schedule(t: Any) -> str:
    if t.scheduler == "cosine":
        return f"cosine {t.base_lr:.3g} -> {t.lr_min_factor * t.base_lr:.3g}"
    return f"lr {t.base_lr:.3g} x{t.lr_decay:g} at {','.join(map(str, t.milestones)) or '-'}"


def _covers(t: Any) -> str:
    if t.weight_decay_scope == "keras_kernels":
        return "conv + hidden Dense kernels"
    return "all parameters" if t.weight_decay_bn else "all but BatchNorm"


def _augmentation(a: Any) -> str:
    parts = [f"crop {a.crop_padding}" if a.random_crop else "", "flip" if a.horizontal_flip else ""]
    parts += [f"cutout {a.cutout_size}" if a.cutout and not a.dual_cutout else ""]
    parts += [f"dual cutout {a.cutout_size}" if a.dual_cutout else "", "erasing" if a.random_erasing else ""]
    parts += ["mixup" if a.mixup else "", "label smoothing" if a.label_smoothing else ""]
    parts += [f"window {a.window}" if a.window else ""]
    return " + ".join(p for p in parts if p) or "none"


def _model_name(model_config: Any) -> str:
    from holdout.training.registry import describe_model

    return describe_model(model_config)


@dataclass(frozen=True)
class JobSpec:
    """One training job before it is costed: the network and recipe objects, the training-set size,
    checkpoints, declared resources (threads, mem_mb, runtime_min, gpus) and the recipe's source."""

    study: str
    job: str
    model: Any
    train: Any
    train_images: int
    checkpoints: int
    resources: tuple[int, int, int, int]
    source: str


def _row(spec: JobSpec, tflops: float, table: Any = None) -> PlanRow:
    from holdout.training.cost import job_hours, projected_step_seconds

    train = spec.train
    size, views = train.augment.window or 32, train.augment.num_views
    params, flops, layers = count_network(architecture_key(spec.model), size)
    steps = train.epochs * (spec.train_images // train.batch_size)
    hours = 3.0 * flops * spec.train_images * views * train.epochs / (tflops * 1e12) / 3600.0
    low, high = projected_step_seconds(flops / 1e9, train.batch_size, views, layers, tflops)
    key = cell_key(spec.model, train.batch_size, views, size)
    found = table.lookup(key, layers) if table is not None else None
    calibrated, basis = (job_hours(steps, found[0]), found[1]) if found else (float("nan"), "")
    if table is not None and found is None:
        basis = "not calibrated: see the projection range"
    return PlanRow(
        *(spec.study, spec.job, _model_name(spec.model), params, round(flops / 1e9, 4), train.epochs),
        *(train.batch_size, train.optimizer, _schedule(train), train.weight_decay, _covers(train)),
        *(_augmentation(train.augment), spec.train_images, spec.checkpoints, *spec.resources, round(hours, 3)),
        *(views, steps, round(job_hours(steps, low), 3), round(job_hours(steps, high), 3)),
        *(round(calibrated, 3), basis, key, spec.source),
    )


def _search_specs(cfg: Mapping[str, Any]) -> list[JobSpec]:
    from holdout.training.search import SearchScale, row_to_configs, row_to_record, sample_configs

    s = cfg["search"]
    scale = SearchScale(s["depth"], s["depth_bottleneck"], s["max_base_channels"], s["epochs"], s["reference_epochs"])
    n = s["train_subset_size"] or CIFAR10_TRAIN
    res = (s["threads"], s["mem_mb"], s["runtime"], 1)
    src = f"Mania et al. 2019 Sec. 5.2 / Table 2 draw (search.scale: {s['scale']})"
    specs = []
    for record in sample_configs(int(s["n_models"]), int(s["seed"])).to_dict("records"):
        model, train = row_to_configs(row_to_record(record), scale)
        specs.append(JobSpec("search", record["model"], model, train, n, s["num_checkpoints"], res, src))
    return specs


def _seeds_specs(cfg: Mapping[str, Any]) -> list[JobSpec]:
    from holdout.training.naming import seed_model_name
    from holdout.training.seeds import recipe_from_config

    s = cfg["seeds"]
    recipe = recipe_from_config(s)
    n = recipe.train_subset_size or CIFAR10_TRAIN
    res = (s["threads"], s["mem_mb"], s["runtime"], 1)
    src = "Werpachowski et al. 2019 Sec. 5.2 (N models of one recipe); the recipe: config seeds"
    return [
        JobSpec("seeds", seed_model_name(i), recipe.model, recipe.train, n, s["num_checkpoints"], res, src)
        for i in recipe.seeds
    ]


def _retraining_runs(rt: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """(model, run, training images) of every retraining job (Table 2 splits + standard, Sec. 5.5)."""
    per_class = rt["train_per_class"]
    full = CIFAR10_TRAIN if per_class is None else 10 * int(per_class)
    runs = [(m, f"split{k}", full) for m in rt["table2_models"] for k in range(1, int(rt["n_splits"]) + 1)]
    runs += [(m, "standard", full) for m in rt["table2_models"]]
    sec = rt["sec55"]
    runs += [(sec["model"], f"half{d}", full + int(sec["n_half"])) for d in sec["draws"]]
    if sec["model"] not in rt["table2_models"]:
        runs.append((sec["model"], "standard", full))
    return runs


def _retraining_specs(cfg: Mapping[str, Any]) -> list[JobSpec]:
    from holdout.training.optim import TrainConfig
    from holdout.training.registry import ModelSpec

    rt = cfg["retraining"]
    res = (rt["threads"], rt["mem_mb"], rt["runtime_min"], rt["gpus_per_job"])
    specs = []
    for model, run, n in _retraining_runs(rt):
        entry = rt["models"][model]
        spec, train = ModelSpec(model, dict(entry["overrides"])), TrainConfig.from_dict(dict(entry["train"]))
        published = PAPER_RETRAINING.get(model)
        src = f"retraining.scale: {rt['scale']}"
        if published is not None and entry == published.as_config():
            src = "; ".join(f"{k}: {v}" for k, v in published.sources.items())
        specs.append(JobSpec("retraining", f"{model}/{run}", spec, train, n, 1, res, src))
    return specs


def plan_specs(cfg: Mapping[str, Any]) -> list[JobSpec]:
    """Every training job of the (merged, resolved) config ``cfg``, in workflow order, uncosted."""
    specs: list[JobSpec] = []
    for study, make in (("search", _search_specs), ("seeds", _seeds_specs), ("retraining", _retraining_specs)):
        if cfg[study].get("enabled", True):
            specs += make(cfg)
    return specs


def plan_jobs(cfg: Mapping[str, Any], tflops: float = ASSUMED_TFLOPS, table: Any = None) -> list[PlanRow]:
    """Every training job of the (merged, resolved) config ``cfg``, in workflow order; ``table`` (a
    [`StepTable`][holdout.training.cost.StepTable]) adds hours from a measured calibration."""
    if not (math.isfinite(tflops) and tflops > 0):
        raise ValueError(f"--tflops: the assumed throughput must be a finite number > 0 TFLOP/s, got {tflops}")
    return [_row(spec, tflops, table) for spec in plan_specs(cfg)]


def plan_table(rows: Sequence[PlanRow]) -> Any:
    """The rows as a pandas DataFrame (the CSV ``--out`` writes)."""
    import pandas as pd

    return pd.DataFrame([asdict(r) for r in rows], columns=[f.name for f in fields(PlanRow)])


OFFICIAL_CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"


def _study_lines(df: Any, calibrated: bool) -> list[str]:
    lines = []
    for study, g in df.groupby("study", sort=False):
        lo, hi, mid = g["gpu_hours_low"].sum(), g["gpu_hours_high"].sum(), g["gpu_hours_projected"].sum()
        line = f"  {study}: {len(g)} jobs; projection {lo:,.1f}-{hi:,.1f} GPU-hours (FLOPs alone: {mid:,.1f})"
        cal = g["gpu_hours_calibrated"]
        if calibrated and cal.notna().any():
            bases = g.loc[cal.notna(), "calibration_basis"].astype(str).str.split(":").str[0].str.split(" \\(").str[0]
            how = ", ".join(f"{n} {b}" for b, n in bases.value_counts().items())
            missing = int(cal.isna().sum())
            line += f"; calibrated {cal.sum():,.1f} GPU-hours one job at a time ({how}"
            line += f"; {missing} not calibrated)" if missing else ")"
        lines.append(line)
    return lines


def _concurrency_line(df: Any, calibration: Mapping[str, Any]) -> list[str]:
    rows = calibration.get("concurrent") or []
    if not rows:
        return []
    one = next((r["images_per_s"] for r in rows if r["jobs"] == 1), None)
    best = max(rows, key=lambda r: r["images_per_s"])
    if not one:
        return []
    gain = best["images_per_s"] / one
    search = df.loc[df["study"] == "search", "gpu_hours_calibrated"].sum()
    return [
        f"  several jobs per GPU: {best['jobs']} concurrent jobs of {best['cell']} trained {best['images_per_s']:,.0f} "
        f"images/s together, {gain:.2f}x one job (measured); at that gain the search takes about "
        f"{search / gain:,.1f} GPU-hours (a projection from one cell's gain)"
    ]


def _compiled_line(calibration: Mapping[str, Any]) -> list[str]:
    out = []
    for key, cell in calibration.get("cells", {}).items():
        comp = [t for t in cell["timings"] if t["compiled"]]
        for t in comp:
            out.append(
                f"  torch.compile (off by default): {key}: {t['seconds_per_step'] * 1e3:.1f} ms per step "
                f"compiled, after {t['first_step_s']:.0f} s of compilation (the hours above use eager step times)"
            )
    return out


def _data_lines(cfg: Mapping[str, Any]) -> list[str]:
    checks = (cfg.get("data") or {}).get("checksums") or {}
    md5 = next((v for k, v in checks.items() if k.endswith("cifar-10-python.tar.gz")), f"md5:{OFFICIAL_CIFAR10_MD5}")
    paper = cfg["search"].get("scale") == "paper" or cfg["retraining"].get("scale") == "paper"
    lines = [f"  data: CIFAR-10 archive checked against {md5}"]
    if OFFICIAL_CIFAR10_MD5 not in md5:
        lines[0] += " (not the official file: the mirror's lossy JPEG rebuild, labels exact)"
        if paper:
            lines.append(
                "  WARNING: paper-scale recipes on the mirror's lossy rebuild: accuracies are not comparable "
                "with the papers' (use the official CIFAR-10 for a paper run)"
            )
    lines.append(
        "  precision: on CUDA the engine trains in bf16 autocast with channels_last, torch.compile off (hysts: fp32)"
    )
    cap = (cfg.get("training") or {}).get("cap") or {}
    if any(v is not None for v in cap.values()):
        lines.append("  training.cap is active: the rows and hours above are the UNCAPPED recipes")
    return lines


def _summary(df: Any, tflops: float, cfg: Mapping[str, Any] | None = None, calibration: Any = None) -> str:
    lines = _study_lines(df, calibration is not None)
    lo, hi = df["gpu_hours_low"].sum(), df["gpu_hours_high"].sum()
    lines.append(
        f"  total: {len(df)} training jobs; {lo:,.1f}-{hi:,.1f} GPU-hours: a PROJECTION, not measured (counted FLOPs "
        f"at {tflops / 2:g}-{tflops * 2:g} TFLOP/s, a per-step floor of {FLOOR_MS_PER_LAYER[0]:g}-"
        f"{FLOOR_MS_PER_LAYER[1]:g} ms per layer, dual cutout counted twice, {STARTUP_S:g} s start-up per job)"
    )
    if calibration is not None:
        m = calibration["machine"]
        cal = df["gpu_hours_calibrated"].sum()
        lines.append(
            f"  calibrated total: {cal:,.1f} GPU-hours on {m.get('device')} (torch {m.get('torch')}, {m.get('date')}): "
            "measured eager bf16 seconds per step x steps + start-up, one job at a time"
        )
        lines += _concurrency_line(df, calibration) + _compiled_line(calibration)
    return "\n".join(lines + (_data_lines(cfg) if cfg is not None else []))


def _check_out_file(out: str | Path, inputs: Sequence[str | Path]) -> Path:
    """Where ``--out`` writes: a symlink's target (the link is kept), never a folder, never one of
    the config files read, never a file that is not a table ``holdout plan`` wrote."""
    target = Path(out).resolve()
    if target.is_dir():
        raise ValueError(f"--out {out}: is a folder; give a file name such as {Path(out) / 'plan.csv'}")
    for item in inputs:
        if Path(item).exists() and target.exists() and os.path.samefile(item, target):
            raise ValueError(f"--out {out}: is the config file {item} read by this plan; give another file name")
    if target.exists():
        try:
            with open(target, encoding="utf-8", errors="replace") as fh:
                head = fh.readline(200)
        except OSError as exc:
            raise ValueError(f"--out {out}: cannot read the existing file ({exc.strerror})") from None
        if not head.startswith(_PLAN_HEADER):
            raise ValueError(
                f"--out {out}: exists and is not a table holdout plan wrote; give a new file name or remove it"
            )
    return target


#: the first columns of every CSV ``holdout plan`` writes: such a file may be replaced by a new plan
_PLAN_HEADER = "study,job,model,params,"


def _write_csv_atomic(df: Any, target: Path, out: str) -> None:
    """``df`` as CSV at ``target``, complete or not at all (a temporary file beside it, then renamed)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.partial-", dir=target.parent)
    except OSError as exc:
        raise ValueError(f"--out {out}: cannot create the file ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            df.to_csv(fh, index=False)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _calibration(path: str | None) -> tuple[Any, Any]:
    """(the calibration JSON, its StepTable), or (None, None) without ``--calibration``."""
    if path is None:
        return None, None
    from holdout.training.cost import StepTable, load_calibration

    data = load_calibration(path)
    return data, StepTable.from_calibration(data, str(path))


def _run(args: argparse.Namespace) -> int:
    try:
        target = _check_out_file(args.out, [args.base, *args.configfile]) if args.out else None
        cfg = load_merged_config(args.configfile, args.base)
        calibration, table = _calibration(args.calibration)
        rows = plan_jobs(cfg, args.tflops, table)
    except ModuleNotFoundError as exc:
        print(
            f"holdout plan: error: counting parameters and FLOPs needs {exc.name}: "
            "install the training extra (pip install -e '.[train]')",
            file=sys.stderr,
        )
        return 2
    except (OSError, ValueError) as exc:
        print(f"holdout plan: error: {exc}", file=sys.stderr)
        return 2
    df = plan_table(rows)
    show = ["study", "job", "model", "params", "gflops_per_image", "epochs", "batch_size", "optimizer"]
    show += ["lr_schedule", "weight_decay", "weight_decay_covers", "augmentation", "train_images", "checkpoints"]
    show += ["threads", "mem_mb", "runtime_min", "gpus", "views", "gpu_hours_low", "gpu_hours_high"]
    show += ["gpu_hours_calibrated", "calibration_basis"] if table is not None else []
    import pandas as pd

    with pd.option_context("display.max_rows", args.max_rows, "display.width", 250, "display.max_columns", None):
        print(df[show].to_string(index=False, max_rows=args.max_rows))
    print(_summary(df, args.tflops, cfg, calibration))
    from holdout.training.groups import group_lines

    print("\n".join(group_lines(cfg, df, plan_specs(cfg), calibration)))
    if target is not None:
        try:
            _write_csv_atomic(df, target, args.out)
        except (OSError, ValueError) as exc:
            print(f"holdout plan: error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.out} ({len(df)} rows, with each recipe's source)")
    return 0


def add_plan_parser(sub: Any) -> None:
    """The ``plan`` subcommand on the ``holdout`` parser's subparsers."""
    p = sub.add_parser(
        "plan",
        help="every training job of a set of config files, with recipes, sizes and projected GPU-hours",
        description="Merge config/config.yaml and FILEs as Snakemake does and list every training job: "
        "model, parameters, FLOPs, recipe and its source, resources, projected GPU-hours (an assumption).",
    )
    p.add_argument("--configfile", nargs="+", required=True, metavar="FILE", help="config files, later ones win")
    p.add_argument("--base", default="config/config.yaml", help="the workflow's own config file (merged first)")
    p.add_argument(
        "--out",
        help="also write the whole table (every column) as CSV here: a new file or one an earlier plan wrote",
    )
    p.add_argument(
        "--tflops", type=float, default=ASSUMED_TFLOPS, help="assumed sustained TFLOP/s per GPU for the projection"
    )
    p.add_argument(
        "--calibration",
        metavar="FILE",
        help="measured seconds per step on one GPU (python -m holdout.training.calibration measure; "
        "config/calibration/ holds ours): adds calibrated GPU-hours per job",
    )
    p.add_argument("--max-rows", type=int, default=40, help="rows printed (the CSV has all)")
    p.set_defaults(func=_run)
