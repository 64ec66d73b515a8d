#!/usr/bin/env bash
# ONE command for a lent GPU (about 10 minutes on one H100/H200, start-up not counted), run from the
# repository root with the CIFAR-10 pack carried (.gpudata/cifar10_q95.npz, benchmarks/gpu/cifar10_pack.py):
#   OUT=/some/folder bash benchmarks/gpu/gpu_check.sh
# It writes under $OUT (at most 8 files: the device tool brings back no more):
#   gpu_check.json     every step's exit code and seconds, the pytest summary, the throughput rows,
#                      the plan's totals, the ResNet-20 epochs
#   calibration.json   the committed eager calibration (GPU_CHECK_CALIBRATION) with this run's
#                      throughput rows added (holdout plan --calibration reads both)
#   plan.txt           holdout plan --configfile config/paper.yaml --calibration calibration.json
#   logs.tar.gz        every step's log, pytest's junit XML, the ResNet-20 training log
#   resnet20_state.tar the ResNet-20 run's resumable state (GPU_CHECK_RESUME=that file continues it)
# Steps, each time-boxed so a slow one cannot starve the rest:
#   (a) our wheels from .whl/ (if carried) into /tmp/site; the machine's facts
#   (b) pytest -m gpu (test_gpu_path.py, test_graphs.py), while (e) starts training beside it
#   (c) ResNet-preact-110 (basic, 16 ch) at batch 128: eager, whole-step CUDA graph, fused groups of
#       4, 8 and 16 (python -m holdout.training.throughput), with (e) paused (SIGSTOP) meanwhile
#   (d) the plan of config/paper.yaml with that calibration (CPU work, beside (e))
#   (e) hysts' ResNet-preact-20 recipe (benchmarks/gpu/train_resnet20.py), resumed from
#       GPU_CHECK_RESUME (default: the committed state of the last check), with CUDA graphs; if that
#       fails, on eagerly from its last saved epoch; stopped when the time is up
# GPU_CHECK_TINY=1 shrinks every step to seconds on the CPU (tests/training/test_gpu_check.py).
set -uo pipefail
: "${OUT:?set OUT to the folder for the results}"
cd "$(dirname "$0")/../.."
TINY=${GPU_CHECK_TINY:-0}
TOTAL=${GPU_CHECK_SECONDS:-600}
PY=${PYTHON:-python3}
WORK=$(mktemp -d /tmp/gpu_check.XXXXXX)
LOGS=$WORK/logs
mkdir -p "$LOGS" "$OUT"
START=$SECONDS
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg
CELL="ResNet-preact-110 (basic, 16 ch) | batch 128 | views 1 | 32 px"
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
    DEVICE=cpu T_PYTEST=240 T_TPUT=150 T_PLAN=240
    TPUT_ARGS=(--cells benchmarks/gpu/cells_tiny.json --members 2 --seconds 0.1)
    TRAIN_ARGS=(--epochs 2 --train-n 256) GRAPH_ARGS=()
    DATA=${GPU_CHECK_DATA:-$WORK/tiny.npz}
    BASE_CAL=${GPU_CHECK_CALIBRATION:-config/calibration/nvidia-h200-2026-11-27.json}
    RESUME=${GPU_CHECK_RESUME:-}
else
    DEVICE=cuda T_PYTEST=120 T_TPUT=170 T_PLAN=120
    TPUT_ARGS=(--cells benchmarks/gpu/cells.json --cell "$CELL" --members 4 8 16 --seconds 2)
    TRAIN_ARGS=() GRAPH_ARGS=(--cuda-graphs)
    DATA=${GPU_CHECK_DATA:-.gpudata/cifar10_q95.npz}
    BASE_CAL=${GPU_CHECK_CALIBRATION:-config/calibration/nvidia-h200-2026-11-27.json}
    RESUME=${GPU_CHECK_RESUME-benchmarks/gpu/results/2026-11-27-h200/resnet20_state.tar}
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

# (e) starts now, beside (b): its state goes to $WORK/state, resumed from $RESUME if given
mkdir -p "$WORK/resnet20" "$WORK/state"
[ -n "$RESUME" ] && tar -xf "$RESUME" -C "$WORK/state"
train_resnet20() {  # with CUDA graphs as asked; after a failure (not our stop), on eagerly from the saved state
    $PY benchmarks/gpu/train_resnet20.py --data "$DATA" --out "$WORK/resnet20" --state "$WORK/state" \
        --device "$DEVICE" "${TRAIN_ARGS[@]}" "${GRAPH_ARGS[@]}" >"$LOGS/resnet20.log" 2>&1
    local rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 143 ] && [ ${#GRAPH_ARGS[@]} -gt 0 ]; then
        echo "exit $rc with ${GRAPH_ARGS[*]}: continuing eagerly" >>"$LOGS/resnet20.log"
        exec $PY benchmarks/gpu/train_resnet20.py --data "$DATA" --out "$WORK/resnet20" --state "$WORK/state" \
            --device "$DEVICE" "${TRAIN_ARGS[@]}" >>"$LOGS/resnet20.log" 2>&1
    fi
    return $rc
}
train_resnet20 &
TRAIN_PID=$!
T_TRAIN0=$SECONDS
stop_training() { pkill "-$1" -P $TRAIN_PID 2>/dev/null; kill "-$1" $TRAIN_PID 2>/dev/null; }

# (b) the gpu tests (in parallel workers where pytest-xdist is installed)
XDIST=()
$PY -c "import xdist" 2>/dev/null && XDIST=(-n 8)
run_step pytest_gpu "$T_PYTEST" $PY -m pytest -m gpu tests/training/test_gpu_path.py tests/training/test_graphs.py \
    -q -p no:cacheprovider -rs "${XDIST[@]}" --junitxml="$LOGS/pytest_gpu.xml"

# (c) eager / graph / fused throughput, alone on the GPU, added to a copy of the committed calibration
cp "$BASE_CAL" "$WORK/calibration.json"
stop_training STOP
run_step throughput "$T_TPUT" $PY -m holdout.training.calibration throughput --into "$WORK/calibration.json" --device "$DEVICE" \
    "${TPUT_ARGS[@]}"
stop_training CONT

# (d) the re-calibrated plan of config/paper.yaml (fused groups of up to 16 jobs)
run_step plan "$T_PLAN" $PY -c "from holdout.audit.cli import main; raise SystemExit(main())" plan --configfile config/paper.yaml benchmarks/gpu/fused16.yaml \
    --calibration "$WORK/calibration.json" --max-rows 5
cp "$LOGS/plan.log" "$OUT/plan.txt"

# (e) the ResNet-20 run until 25 s are left, then stopped (its state holds the last whole epoch)
while kill -0 $TRAIN_PID 2>/dev/null && [ "$(left)" -gt 25 ]; do sleep 1; done
stop_training TERM
wait $TRAIN_PID
record resnet20 $? $((SECONDS - T_TRAIN0))

# results: at most 8 files under $OUT
cp "$WORK/resnet20/training_log.csv" "$LOGS/resnet20_training_log.csv" 2>/dev/null
cp "$WORK/calibration.json" "$OUT/calibration.json"
tar -cf "$OUT/resnet20_state.tar" -C "$WORK/state" . 2>/dev/null
$PY benchmarks/gpu/summarize.py --logs "$LOGS" --calibration "$WORK/calibration.json" --out "$OUT/gpu_check.json"
tar -czf "$OUT/logs.tar.gz" -C "$WORK" logs
echo "[$((SECONDS - START)) s] done: $OUT"
