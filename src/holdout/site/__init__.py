"""``holdout site``: an honest leaderboard for many benchmarks at once.

Every benchmark of a SPEC goes through ``holdout audit`` (the same readers and lenses, no second
implementation); the site reads the files each audit wrote and sets the benchmarks side by side.

Spec
----
- `load_spec`   a YAML SPEC or a folder of benchmarks -> SiteSpec (`SpecError` names the file and key)
- `SiteSpec`    the site's title, benchmarks and model aliases
- `Benchmark`   one benchmark: name, input kind, inputs, audit options

Build
-----
- `build_site`  audit every benchmark, write the pages and every number beside them (atomically)
- `Site`        what was built: folder, index rows, models, the audits' runs
- `SiteError`   a site that cannot be built (one line)

Numbers
-------
- `read_benchmark`  one benchmark's index row from its audit's files
- `adjacent_resolved` adjacent models in rank order whose paired difference is significant (Holm)
"""

from holdout._lazy import lazy_exports

__all__ = [
    "Benchmark",
    "Site",
    "SiteError",
    "SiteSpec",
    "SpecError",
    "adjacent_resolved",
    "build_site",
    "load_spec",
    "read_benchmark",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Benchmark": "spec",
        "SiteSpec": "spec",
        "SpecError": "spec",
        "load_spec": "spec",
        "Site": "build",
        "SiteError": "build",
        "build_site": "build",
        "read_benchmark": "collect",
        "adjacent_resolved": "collect",
    },
)
