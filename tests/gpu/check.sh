#!/bin/bash
# The GPU check of issue #27, in one call on a lent GPU machine (docs/gpu-collection.md, "On a real
# GPU"). Prepared here by tests/gpu/prepare.sh (.gpu/, carried); run there from the repository root:
#
#   OUT=$OUT bash tests/gpu/check.sh            # on the GPU machine (carry .gpu; timeout_s 560)
#   OUT=/tmp/dry bash tests/gpu/check.sh --cpu  # a dry run of every step on a CPU (PY=... its torch)
#
# The same training loop (tests/gpu/train_loop.py) is recorded by torch.profiler, by
# `kinetoscope record --capture cpu,cuda,shapes,memory` (the unmodified script) and by
# kinetoscope.profile swapped in; then live sessions with and without a schedule and one stopped
# mid-run. The traces and the tables come back in $OUT/traces.tgz, the log in $OUT/check.log, the
# comparison (tests/gpu/compare.py) in $OUT/compare.txt. Each step has its own time limit, and a
# failing step does not stop the others.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root" || exit 1
out="${OUT:-$root/gpu-out}"
# $OUT brings back at most 8 files: the work happens beside it, and only check.log, compare.txt and
# traces.tgz go there.
work="$(mktemp -d "${TMPDIR:-/tmp}/ks-gpu-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/t"
exec > >(tee -a "$out/check.log") 2>&1
device=cuda
small=()
if [ "${1:-}" = --cpu ]; then
    device=cpu
    small=(--batch 4 --image 8) # the same code paths, at a size a CPU runs in seconds
fi
PY="${PY:-python3}"
prefix="${KS_GPU_PREFIX:-$root/.gpu/prefix}"
stop_after="${KS_GPU_STOP_AFTER:-20}"
# Seconds from now by which everything is done (give the device call a little more).
deadline=$(($(date +%s) + ${KS_GPU_DEADLINE:-500}))
[ -x "$prefix/bin/kinetoscope" ] || {
    echo "check: $prefix/bin/kinetoscope missing: run tests/gpu/prepare.sh and carry .gpu"
    exit 1
}
export PATH="$prefix/bin:$PATH"
# Only the carried libraries this system lacks: a Debian 12 zlib in front of a newer system's would
# be loaded into python and torch too.
deps="$work/deps"
mkdir -p "$deps"
for lib in "$root"/.gpu/deps/*; do
    [ -f "$lib" ] || continue
    ldconfig -p 2>/dev/null | grep -q "^[[:space:]]$(basename "$lib") (" || ln -s "$lib" "$deps/"
done
echo "carried libraries used: $(ls "$deps" | tr '\n' ' ')"
export LD_LIBRARY_PATH="$deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$prefix/share/kinetoscope/python${PYTHONPATH:+:$PYTHONPATH}"
export KINETOSCOPE_CACHE_DIR="${KINETOSCOPE_CACHE_DIR:-/tmp/ks-gpu-cache}"
export PYTHONUNBUFFERED=1
loop="$root/tests/gpu/train_loop.py"
t="$work/t"
failures=0
step() { echo; echo "=== $* ($(date +%T))"; }
run() { # run LIMIT_S NAME CMD...: one step; its output also in $t/NAME.out, its status and time in
    # steps.txt. Exit statuses in $OK (default 0) pass.
    local limit="$1" name="$2" s e rc left
    shift 2
    # The device tool's call has one time limit for everything: each step gets what is left of
    # the deadline, less a minute for the bring-back, so the traces always come back.
    left=$((deadline - $(date +%s) - 60))
    if [ "$left" -lt 10 ]; then
        echo "$name: skipped, the deadline is near" | tee -a "$t/steps.txt"
        failures=$((failures + 1))
        return 0
    fi
    [ "$limit" -le "$left" ] || limit="$left"
    s=$(date +%s%N)
    timeout -k 10 "$limit" "$@" > >(tee "$t/$name.out") 2>&1
    rc=$?
    e=$(date +%s%N)
    printf '%s: exit %s in %s ms\n' "$name" "$rc" "$(((e - s) / 1000000))" | tee -a "$t/steps.txt"
    case " ${OK:-0} " in *" $rc "*) ;; *) failures=$((failures + 1)) ;; esac
    return 0
}

step "machine"
uname -a
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
"$PY" - <<'PY'
import glob, os, site, sys
import torch
print("python", sys.version.split()[0], sys.executable)
print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for p in sorted(glob.glob(os.path.join(r, "nvidia", "*", "lib", "libcupti.so*"))):
        print("cupti wheel:", p)
PY
ldd "$prefix/bin/kinetoscope" $(find "$prefix/lib" -name 'libkinetoscope.so.1' -o -name 'libkinetoscope_inject.so') 2>&1 |
    grep -E "not found|^/" || true
"$PY" -c "import kinetoscope as ks; print('kinetoscope', ks.__file__); print('supported', ks.supported_activities())"

step "the observer for this torch (first-use build)"
run 600 observer-build "$PY" - <<'PY'
import time
t = time.time()
import torch
import kinetoscope.torchobserver as obs
lib = obs.load()
print("observer:", lib, obs.load_error(), f"{time.time() - t:.1f} s")
raise SystemExit(0 if lib else 1)
PY

step "plain (baseline)"
run 300 plain "$PY" "$loop" --mode plain --device "$device" "${small[@]}"
step "torch.profiler"
run 300 torch "$PY" "$loop" --mode torch --device "$device" "${small[@]}" --out "$t"
step "kinetoscope.profile swapped in"
run 300 kinetoscope "$PY" "$loop" --mode kinetoscope --device "$device" "${small[@]}" --out "$t"
step "kinetoscope record --capture cpu,cuda,shapes,memory (unmodified script)"
cap=cpu,shapes,memory
[ "$device" = cuda ] && cap=cpu,cuda,shapes,memory
run 300 record kinetoscope record --capture "$cap" --latency -o "$t/record.pt.trace.json" -- \
    "$PY" "$loop" --mode plain --device "$device" "${small[@]}"

step "live, native mode, steps spaced so they arrive one by one"
run 300 live kinetoscope record --capture "$cap" --latency -o "$t/live.pt.trace.json" -- \
    "$PY" "$loop" --mode plain --device "$device" "${small[@]}" --steps 12 --sleep-ms 150
step "live, torch.profiler windows with a short schedule"
run 300 windows kinetoscope record --mode windows --schedule 1,1,2,2 --capture "${cap%,memory}" \
    -o "$t/windows.pt.trace.json" -- "$PY" "$loop" --mode plain --device "$device" "${small[@]}" --steps 12 --sleep-ms 50
step "live, stopped mid-run (--stop-after $stop_after of a much longer run)"
# record exits with the program's status: 130 when the SIGINT that stops it ends it.
OK="0 130 143" run 300 stopped kinetoscope record --quiet --capture "$cap" --stop-after "$stop_after" -o "$t/stopped.pt.trace.json" -- \
    "$PY" "$loop" --mode plain --device "$device" "${small[@]}" --steps 100000 --sleep-ms 20

step "tables and analyses of the traces, here"
for name in torch kinetoscope record; do
    [ -f "$t/$name.pt.trace.json" ] || continue
    sort=cuda_time_total
    [ "$device" = cpu ] && sort=cpu_time_total
    kinetoscope summary "$t/$name.pt.trace.json" --sort-by "$sort" --row-limit -1 >"$t/$name.summary.txt" 2>&1
    kinetoscope analyze "$t/$name.pt.trace.json" >"$t/$name.analyze.txt" 2>&1
done
# torch's own table against ours rebuilt from torch's trace: byte for byte.
if [ -f "$t/torch.table.txt" ] && [ -f "$t/torch.summary.txt" ]; then
    if diff -u "$t/torch.table.txt" "$t/torch.summary.txt" >"$t/torch.table.diff"; then
        echo "summary of torch's trace: identical to torch's key_averages().table()"
    else
        echo "summary of torch's trace differs from torch's table: $(wc -l <"$t/torch.table.diff") diff lines"
        head -n 40 "$t/torch.table.diff"
        failures=$((failures + 1))
    fi
fi
run 120 compare "$PY" "$root/tests/gpu/compare.py" --dir "$t"
cp "$t/compare.out" "$out/compare.txt"

step "bring back"
gzip -f "$t"/*.pt.trace.json
# The stopped run is long: its trace comes back only when small (compare.txt has its counts).
[ "$(stat -c %s "$t/stopped.pt.trace.json.gz" 2>/dev/null || echo 0)" -lt 4000000 ] || rm -f "$t/stopped.pt.trace.json.gz"
tar -C "$work" -czf "$out/traces.tgz" t
ls -la "$out/traces.tgz"
echo "failures: $failures"
[ "$failures" = 0 ]
