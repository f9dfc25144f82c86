#!/usr/bin/env bash
# The lesson on a CUDA GPU: records what its claims do there, for the pages to cite.
#
#   OUT=/some/folder gpu/lesson_cuda.sh
#
# Run from anywhere in the repository on a machine with an NVIDIA GPU, Python >= 3.11, torch built
# for CUDA, numpy and packaging (no Sphinx, no network, nothing of this project installed: it runs
# with PYTHONPATH set to the repository). Writes into $OUT:
#   records/torch-<release>-cuda.json  the claims that run the mini-GPT, measured on the GPU
#                                      (python -m phase25 record --device cuda): commit it as
#                                      records/torch-<release>-cuda.json, the pages cite it
#   drift-record.log, minigpt.log      what was printed; gpu.txt, the GPU and its driver
# Takes well under a minute on an H200 once torch is loaded. Exit status: 0, or that of the first
# step that failed (1 from phase25: a claim no longer holds there; the record is written all the same).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder that receives the record}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg
status=0

python3 -c 'import sys, torch; sys.exit(None if torch.cuda.is_available() else
    f"lesson_cuda.sh: torch {torch.__version__} sees no CUDA GPU")' || exit 2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1 || true

mkdir -p "$OUT/records"
timeout 240 python3 -m phase25 record --device cuda --out "$OUT/records" 2>&1 | tee "$OUT/drift-record.log"
step=${PIPESTATUS[0]}; [ "$status" -eq 0 ] && status=$step

# The command line on the GPU: run A trains; run B stops at its first backward (exit status 1),
# naming a torch.cuda.FloatTensor.
work=$(mktemp -d)
{
  timeout 120 python3 -m minigpt train device=cuda steps=20 out="$work/25-A-cuda"
  echo "exit status $?"
  timeout 120 python3 -m minigpt train inplace=true device=cuda out="$work/25-B-cuda"
  echo "exit status $? (1 expected: backward raised)"
} > "$OUT/minigpt.log" 2>&1
cat "$OUT/minigpt.log"
rm -rf "$work"
grep -q "torch.cuda.FloatTensor" "$OUT/minigpt.log" || { echo "lesson_cuda.sh: run B did not name a CUDA tensor"; [ "$status" -eq 0 ] && status=1; }
exit "$status"
