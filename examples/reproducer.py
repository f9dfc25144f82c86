# The seed's reproducer, verbatim, with the repository's justfile, run in a
# scratch directory: experiments/ starts empty, the repository is not touched.
# Each command's output is shown by its first and last lines (brief: frames
# outside the repository folded, paths relative to it).
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from book import repo_root
from book.tracebacks import brief, excerpt

COMMANDS = [  # (what follows `just`, the exit status it should have)
    ("phase-25-train inplace=false", 0),
    ("phase-25-train inplace=true detect_anomaly=true", 1),
    ("phase-25-train inplace=true detect_anomaly=false", 1),
    ("phase-25-grad-compare experiments/25-A experiments/25-B", 0),
    ("phase-25-silent", 0),
]
justfile = repo_root() / "justfile"
bin_dir = str(Path(sys.executable).parent)  # where python, minigpt, just live
env = dict(os.environ, PATH=os.pathsep.join([bin_dir, os.environ["PATH"]]))
statuses = []
with tempfile.TemporaryDirectory() as scratch:
    for arguments, _ in COMMANDS:
        print(f"$ just {arguments}", flush=True)
        command = ["just", "--justfile", str(justfile),
                   "--working-directory", scratch, *arguments.split()]
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        print(excerpt(brief(done.stdout.rstrip()), head=2, tail=3))
        print(f"[exit status {done.returncode}]", flush=True)
        statuses.append(done.returncode)
