# Helpers of the rvw stage (included by rvw.smk): the configured tables, description
# file paths, and rvw_targets() for "rule all".


def rvw_tables():
    """The configured tables, by id (config rvw.tables); ids must be unique."""
    tables = config.get("rvw", {}).get("tables", [])
    ids = [t["id"] for t in tables]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"config rvw.tables: duplicate table id(s) {dup}; each id names one output file")
    return {t["id"]: t for t in tables}


def rvw_description_path(path):
    """A row's description file: as given when absolute or present in the working
    directory, else relative to the repository (where the shipped examples live)."""
    p = Path(path)
    if p.is_absolute() or p.exists():
        return str(p)
    return str(REPO / p)


def rvw_descriptions(wildcards):
    """Description files that the rows of one table read (re-run when they change)."""
    rows = rvw_tables()[wildcards.table]["rows"]
    return [rvw_description_path(r["description"]) for r in rows if "description" in r]


def rvw_rows(wildcards):
    """The table's rows with description paths resolved."""
    rows = []
    for r in rvw_tables()[wildcards.table]["rows"]:
        r = dict(r)
        if "description" in r:
            r["description"] = rvw_description_path(r["description"])
        rows.append(r)
    return rows


def rvw_targets():
    """Final outputs of the rvw stage (empty when the stage is disabled)."""
    if not study_enabled("rvw"):
        return []
    return expand(list(rules.rvw_table.output), table=list(rvw_tables()))
