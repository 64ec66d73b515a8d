"""The audit's lenses, one module each: ``lens(evidence, options) -> LensResult``, None when the options
do not ask for it or the evidence cannot carry it. Which lens needs what:
[`holdout.audit.registry`][holdout.audit.registry]. No lens imports another lens."""
