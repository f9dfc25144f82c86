# The first draft's reproducer, verbatim, with the repository's justfile, run in
# a scratch directory: experiments/ starts empty, the repository is not touched.
# Commands that do not depend on each other run side by side (each stage waits
# for the one before); the outputs are shown in the draft's order, each by its
# first and last lines (brief: frames outside the repository folded, paths
# relative to it).
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from book import repo_root
from book.tracebacks import brief, excerpt

COMMANDS = [  # (what follows `just`, the exit status it should have, stage)
    ("phase-25-train inplace=false", 0, 1),
    ("phase-25-train inplace=true detect_anomaly=true", 1, 1),
    ("phase-25-train inplace=true detect_anomaly=false", 1, 2),
    ("phase-25-grad-compare experiments/25-A experiments/25-B", 0, 3),
    ("phase-25-silent", 0, 2),
]
justfile = repo_root() / "justfile"
bin_dir = str(Path(sys.executable).parent)  # where python, minigpt, just live
env = dict(os.environ, PATH=os.pathsep.join([bin_dir, os.environ["PATH"]]))
outputs = {}
with tempfile.TemporaryDirectory() as scratch:
    for stage in sorted({stage for *_, stage in COMMANDS}):
        running = {
            arguments: subprocess.Popen(
                ["just", "--justfile", str(justfile), "--working-directory", scratch,
                 *arguments.split()],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for arguments, _, at in COMMANDS if at == stage}
        for arguments, process in running.items():
            output, _ = process.communicate()
            outputs[arguments] = (output, process.returncode)
statuses = []
for arguments, _, _ in COMMANDS:
    output, status = outputs[arguments]
    print(f"$ just {arguments}")
    print(excerpt(brief(output.rstrip()), head=2, tail=3))
    print(f"[exit status {status}]")
    statuses.append(status)
