"""Accuracy of every model of one predictions file."""

from holdout.predictions import load_predictions
from holdout.runlog import script_logger, timed

log = script_logger(snakemake.log[0])
with timed(log, "accuracies"):
    p = load_predictions(snakemake.input[0])
    with open(snakemake.output[0], "w") as fh:
        fh.write("test_set\tmodel\tcorrect\tn\taccuracy\n")
        for name, c, a in zip(p.model_names, p.correct_counts(), p.accuracies()):
            fh.write(f"{p.test_set}\t{name}\t{int(c)}\t{p.num_examples}\t{float(a)!r}\n")
