#!/usr/bin/env bash
# ONE command for a lent GPU (under 7 minutes on one H100/H200), run from the repository root:
#   OUT=/some/folder bash benchmarks/gpu/gpu_check.sh
# It writes under $OUT (at most 8 files: the device tool brings back no more):
#   gpu_check.json     every step's exit code and seconds, the pytest summary, the ResNet-20 epochs
#   calibration.json   seconds per training step per cell (holdout plan --calibration reads it)
#   logs.tar.gz        every step's log, pytest's junit XML, the ResNet-20 training log
#   resnet20_state.tar the ResNet-20 run's resumable state (GPU_CHECK_RESUME=that file continues it)
# Steps, each time-boxed so a slow one cannot starve the rest:
#   (a) our wheels from .whl/ (if carried) into /tmp/site; the machine's facts
#   (b) pytest -m gpu (tests/training/test_gpu_path.py), while (d) starts training beside it
#   (c) the calibration (holdout.training.calibration measure), with (d) paused (SIGSTOP) so that
#       nothing else runs on the GPU while it times
#   (d) hysts' ResNet-preact-20 recipe (benchmarks/gpu/train_resnet20.py) until the time is up
# GPU_CHECK_TINY=1 shrinks every step to seconds on the CPU (tests/infra/test_gpu_check.py).
set -uo pipefail
: "${OUT:?set OUT to the folder for the results}"
cd "$(dirname "$0")/../.."
TINY=${GPU_CHECK_TINY:-0}
TOTAL=${GPU_CHECK_SECONDS:-410}
PY=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/gpu_check.XXXXXX)
LOGS=$WORK/logs
mkdir -p "$LOGS" "$OUT"
START=$SECONDS
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg
left() { echo $((TOTAL - (SECONDS - START))); }
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$LOGS/steps.tsv"; }  # step, exit code, seconds
run_step() {  # name, limit (s), command...
    local name=$1 limit=$2 t0=$SECONDS rc
    shift 2
    timeout -k 5 "$limit" "$@" >"$LOGS/$name.log" 2>&1
    rc=$?
    record "$name" "$rc" $((SECONDS - t0))
    echo "[$((SECONDS - START)) s] $name: exit $rc ($((SECONDS - t0)) s)"
}

if [ "$TINY" = 1 ]; then
    export OMP_NUM_THREADS=1  # two spinning OpenMP pools on a small CPU cost minutes
    DEVICE=cpu CELLS=benchmarks/gpu/cells_tiny.json T_PYTEST=120 T_CAL=150
    CAL_ARGS=(--min-seconds 0.05 --eval-images 64 --cells-budget-s 20 --concurrent 1 2 --concurrent-seconds 0.5
        --concurrent-startup 30)
    TRAIN_ARGS=(--epochs 2 --train-n 256)
    DATA=${GPU_CHECK_DATA:-$WORK/tiny.npz}
else
    DEVICE=cuda CELLS=benchmarks/gpu/cells.json T_PYTEST=100 T_CAL=230
    CAL_ARGS=(--min-seconds 0.25 --cells-budget-s 75 --concurrent 1 2 4 8 --concurrent-seconds 4
        --concurrent-cell "ResNet-preact-110 (basic, 16 ch) | batch 128 | views 1 | 32 px"
        --compile-cell "ResNet-preact-110 (basic, 16 ch) | batch 128 | views 1 | 32 px"
        --compile-cell "shake_shake_64d_cutout | batch 64 | views 1 | 32 px")
    TRAIN_ARGS=()
    DATA=${GPU_CHECK_DATA:-.gpudata/cifar10_q95.npz}
fi

# (a) wheels and facts
t0=$SECONDS
if compgen -G ".whl/*.whl" >/dev/null; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        >"$LOGS/wheels.log" 2>&1
    record wheels $? $((SECONDS - t0))
fi
export PYTHONPATH="$PWD/src:$PWD/benchmarks/gpu${PYTHONPATH:+:$PYTHONPATH}:/tmp/site"
{ nvidia-smi 2>&1 || true; $PY -c "import json; from holdout.training.calibration import machine_facts; print(json.dumps(machine_facts()))"; } \
    >"$LOGS/facts.log" 2>&1
record facts $? $((SECONDS - t0))
if [ "$TINY" = 1 ] && [ ! -f "$DATA" ]; then
    $PY benchmarks/gpu/cifar10_pack.py synthetic --out "$DATA" >"$LOGS/tiny_data.log" 2>&1
fi

# (d) starts now, beside (b): its state goes to $WORK/state, resumed from GPU_CHECK_RESUME if given
mkdir -p "$WORK/resnet20" "$WORK/state"
[ -n "${GPU_CHECK_RESUME:-}" ] && tar -xf "$GPU_CHECK_RESUME" -C "$WORK/state"
$PY benchmarks/gpu/train_resnet20.py --data "$DATA" --out "$WORK/resnet20" --state "$WORK/state" \
    --device "$DEVICE" "${TRAIN_ARGS[@]}" >"$LOGS/resnet20.log" 2>&1 &
TRAIN_PID=$!
T_TRAIN0=$SECONDS

# (b) the gpu tests (in parallel workers where pytest-xdist is installed)
XDIST=()
$PY -c "import xdist" 2>/dev/null && XDIST=(-n 8)
run_step pytest_gpu "$T_PYTEST" $PY -m pytest -m gpu tests/training/test_gpu_path.py -q -p no:cacheprovider -rs \
    "${XDIST[@]}" --junitxml="$LOGS/pytest_gpu.xml"

# (c) the calibration, alone on the GPU
kill -STOP $TRAIN_PID 2>/dev/null
run_step calibration "$T_CAL" $PY -m holdout.training.calibration measure --cells "$CELLS" \
    --out "$WORK/calibration.json" --device "$DEVICE" --budget-s $((T_CAL - 30)) "${CAL_ARGS[@]}"
kill -CONT $TRAIN_PID 2>/dev/null

# (d) the ResNet-20 run until 25 s are left, then stopped (its state holds the last whole epoch)
while kill -0 $TRAIN_PID 2>/dev/null && [ "$(left)" -gt 25 ]; do sleep 1; done
kill -TERM $TRAIN_PID 2>/dev/null
wait $TRAIN_PID
record resnet20 $? $((SECONDS - T_TRAIN0))

# results: at most 8 files under $OUT
cp "$WORK/resnet20/training_log.csv" "$LOGS/resnet20_training_log.csv" 2>/dev/null
[ -f "$WORK/calibration.json" ] && cp "$WORK/calibration.json" "$OUT/calibration.json"
tar -cf "$OUT/resnet20_state.tar" -C "$WORK/state" . 2>/dev/null
$PY benchmarks/gpu/summarize.py --logs "$LOGS" --out "$OUT/gpu_check.json"
tar -czf "$OUT/logs.tar.gz" -C "$WORK" logs
echo "[$((SECONDS - START)) s] done: $OUT"
