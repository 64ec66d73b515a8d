# Shared by the studies that train their own models (search, seeds) and by predict:
# CIFAR-10 as uint8 arrays (N x 3 x 32 x 32) in one uncompressed .npz, decoded once
# from the verified archive, so that every training and prediction job loads it in a second.


from holdout.training.cap import WorkCap as _WorkCap

TRAINING_CIFAR10_ARRAYS = "resources/cifar10/cifar10_uint8.npz"
# The dress rehearsal's work cap (training.cap; all null: off): less work, same networks and recipes.
TRAINING_CAP = _WorkCap.from_config(config["training"]["cap"])
TRAINING_STATE = "resources/training_state"  # resumable state: outside every declared output
CIFAR10_TRAIN_SIZE = 50000


rule training_cifar10_arrays:
    """CIFAR-10 training and test images as uint8 N x 3 x 32 x 32 arrays, with labels."""
    input:
        archive=data_raw_path(DATA_CIFAR10_ARCHIVE),
    output:
        TRAINING_CIFAR10_ARRAYS,
    log:
        log_path("training", "cifar10_arrays"),
    benchmark:
        bench_path("training", "cifar10_arrays")
    conda:
        "../../envs/analysis.yaml"
    threads: 1
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    script:
        "../scripts/training_cifar10_arrays.py"
