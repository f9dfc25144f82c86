# The first draft's reproducer, verbatim, with the repository's justfile (run
# from the repository's root), in a scratch directory: experiments/ starts
# empty, the repository is not touched. Each command starts as soon as the one
# it needs has finished, so independent ones run side by side; the outputs are
# shown in the draft's order, each by its first and last lines.
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

A = "phase-25-train inplace=false"
B_ANOMALY = "phase-25-train inplace=true detect_anomaly=true"
B = "phase-25-train inplace=true detect_anomaly=false"
# (what follows `just`, the exit status it should have, what it waits for)
COMMANDS = [
    (A, 0, ()),
    (B_ANOMALY, 1, ()),
    (B, 1, (B_ANOMALY,)),  # both write experiments/25-B
    # the newest run B
    ("phase-25-grad-compare experiments/25-A experiments/25-B", 0, (A, B)),
    ("phase-25-silent", 0, (A,)),  # compares its run with run A
]
justfile = os.path.abspath("justfile")
bin_dir = str(Path(sys.executable).parent)  # where python, minigpt, just live
env = dict(os.environ, PATH=os.pathsep.join([bin_dir, os.environ["PATH"]]))


def just(arguments, scratch, after=()):
    for needed in after:
        needed.result()  # wait for the commands this one needs
    done = subprocess.run(
        ["just", "--justfile", justfile,
         "--working-directory", scratch, *arguments.split()],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.stdout, done.returncode


def excerpt(text, head=2, tail=3):
    lines = text.split("\n")
    if len(lines) <= head + tail + 1:
        return text
    left_out = f"[... {len(lines) - head - tail} lines left out ...]"
    return "\n".join([*lines[:head], left_out, *lines[-tail:]])


with (tempfile.TemporaryDirectory() as scratch,
      ThreadPoolExecutor(len(COMMANDS)) as pool):
    runs = {}
    # listed after the commands each one needs
    for arguments, _, needs in COMMANDS:
        runs[arguments] = pool.submit(just, arguments, scratch,
                                      [runs[n] for n in needs])
    outputs = {arguments: run.result() for arguments, run in runs.items()}
statuses = []
for arguments, _, _ in COMMANDS:
    output, status = outputs[arguments]
    print(f"$ just {arguments}")
    print(excerpt(output.rstrip()))
    print(f"[exit status {status}]")
    statuses.append(status)


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert statuses == [expected for _, expected, _ in COMMANDS], statuses
from execbook import ABSOLUTE_PATH as ABSOLUTE

shown = "\n".join(excerpt(output.rstrip()) for output, _ in outputs.values())
assert not ABSOLUTE.findall(shown), f"the page shows a path of the build machine: {ABSOLUTE.findall(shown)}"
