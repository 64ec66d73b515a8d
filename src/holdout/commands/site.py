"""``holdout site SPEC --out DIR`` (also ``python -m holdout.commands.site``): audit many benchmarks with
``holdout audit`` and publish them side by side as a static site (index, one page per benchmark and
per shared model, every number as CSV)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]

EXAMPLES = """examples:
  holdout site config/site.yaml --out site
  holdout site my_benchmarks/ --out site --jobs 2
  holdout site config/site.yaml --root ../shared/data --out site

SPEC is a YAML file (benchmarks: name -> one input and the audit's options) or a folder with one
subfolder per benchmark (a correctness.csv or evaluation logs, optional item_dates.csv ... and an
options.yaml); see docs/studies/site.md."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="holdout site",
        description="An honest leaderboard for many benchmarks: every benchmark audited by holdout audit, "
        "published as one static folder.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", metavar="SPEC", help="the site's YAML file, or a folder with one subfolder per benchmark")
    p.add_argument("--out", required=True, help="the site's folder (written whole, or not at all)")
    p.add_argument("--root", help="folder the YAML's relative input paths start from (overrides its root: key)")
    p.add_argument(
        "--jobs", type=int, default=1, help="audits run at once in separate processes (default 1: one after another)"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (2: bad SPEC or input, one line naming the file and key)."""
    args = build_parser().parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    from holdout.site.build import SiteError, build_site
    from holdout.site.spec import SpecError, load_spec

    if args.jobs < 1:
        print(f"holdout site: error: --jobs {args.jobs}: give 1 or more", file=sys.stderr)
        return 2
    try:
        spec = load_spec(args.spec, args.root)
        site = build_site(spec, args.out, args.jobs, lambda line: print(line, flush=True))
    except (SpecError, SiteError) as exc:
        print(f"holdout site: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"holdout site: interrupted: {args.out}: nothing written", file=sys.stderr)
        return 130
    print(f"wrote {site.out}/index.html: {len(site.results)} benchmarks in {site.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
