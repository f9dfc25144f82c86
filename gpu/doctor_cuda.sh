#!/usr/bin/env bash
# The diagnoser's GPU checks, in one run (issue 33): the whole battery with CUDA as the default
# device, the digest and empty-tensor tests, and the bench's GPU rows. Run from the repository
# root, with the repository on PYTHONPATH and nothing installed beyond torch, pytest and numpy:
#
#     PYTHONPATH=. OUT=/some/folder bash gpu/doctor_cuda.sh
#
# Writes at most 5 files into "$OUT" (default: gpu-out/): env.txt, battery_cuda.log,
# digest.log, bench_cuda.log, summary.txt. Each step has its own time limit; the whole run stays
# under 7 minutes (the battery: 91 cases, 4 runs each). Without a CUDA device the tests skip (with
# the reason) and the bench prints that the GPU rows are not run: a quick run anywhere.
set -u
OUT="${OUT:-gpu-out}"
mkdir -p "$OUT"
export PYTHONPATH="${PYTHONPATH:-.}"
export PYTHONDONTWRITEBYTECODE=1
export CUBLAS_WORKSPACE_CONFIG=:4096:8  # deterministic cuBLAS: the battery compares gradients bitwise
PY="${PYTHON:-python3}"
PYTEST=("$PY" -m pytest --noconftest -p no:cacheprovider -q -o addopts=-ra)

{
  date -u
  "$PY" -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.get_device_name() if torch.cuda.is_available() else '')"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
} > "$OUT/env.txt" 2>&1

start=$SECONDS
timeout 210 "${PYTEST[@]}" inplace_doctor/tests/test_diagnose_battery.py -k "test_case_on_cuda" > "$OUT/battery_cuda.log" 2>&1
battery=$?
timeout 40 "${PYTEST[@]}" inplace_doctor/tests/test_diagnose.py -k "digest_of or digest_sees or empty or own_failure" > "$OUT/digest.log" 2>&1
digest=$?
timeout 150 "$PY" bench/diagnose_overhead.py --device cuda --repeats "${REPEATS:-8}" > "$OUT/bench_cuda.log" 2>&1
bench=$?
{
  echo "battery (CUDA): exit $battery: $(tail -n 1 "$OUT/battery_cuda.log")"
  echo "digest tests: exit $digest: $(tail -n 1 "$OUT/digest.log")"
  echo "bench (GPU rows): exit $bench"
  grep -E "x  (MET|MISSED)|MISSED|no CUDA" "$OUT/bench_cuda.log"
  echo "took $((SECONDS - start)) s"
} > "$OUT/summary.txt"
cat "$OUT/summary.txt"
