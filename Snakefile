# holdout: reproduce the research on test-set reuse, end to end.
# Thin on purpose: config, validation, includes and the default target.
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")


configfile: Path(workflow.basedir) / "config/config.yaml"


report: "workflow/report/workflow.rst"


# Includes in data-flow order: the data stage; the shared training infrastructure; the studies of the
# published predictions; the synthetic and ImageNet adversarial studies; our own models (search, seeds,
# predict) and what reads their outputs (search_analysis, adversarial_cifar10); the audit; adaptive.
# The map study -> rules -> scripts -> library -> results -> tests -> config key: docs/architecture.md.
include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/training.smk"
include: "workflow/rules/cifar10_1.smk"
include: "workflow/rules/retraining.smk"
include: "workflow/rules/imagenetv2.smk"
include: "workflow/rules/similarity.smk"
include: "workflow/rules/bounds.smk"
include: "workflow/rules/rvw.smk"
include: "workflow/rules/adversarial_synthetic.smk"
include: "workflow/rules/adversarial_imagenet.smk"
include: "workflow/rules/search.smk"
include: "workflow/rules/seeds.smk"
include: "workflow/rules/predict.smk"
include: "workflow/rules/search_analysis.smk"
include: "workflow/rules/adversarial_cifar10.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/adaptive.smk"
include: "workflow/rules/leaderboards.smk"
include: "workflow/rules/contamination.smk"
include: "workflow/rules/site.smk"


rule all:
    default_target: True
    input:
        data_targets(),
        cifar10_1_targets(),
        retraining_targets(),
        imagenetv2_targets(),
        similarity_targets(),
        bounds_targets(),
        rvw_targets(),
        adversarial_synthetic_targets(),
        adversarial_imagenet_targets(),
        search_targets(),
        seeds_targets(),
        predict_targets(),
        search_analysis_targets(),
        adversarial_cifar10_targets(),
        audit_targets(),
        adaptive_targets(),
        leaderboards_targets(),
        contamination_targets(),
        site_targets(),
