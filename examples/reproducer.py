import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

A = "phase-25-train inplace=false"
B_ANOMALY = "phase-25-train inplace=true detect_anomaly=true"
B = "phase-25-train inplace=true detect_anomaly=false"
# en: (what follows `just`, its expected exit status, what it waits for)
# es: (lo que sigue a `just`, su estado de salida esperado, lo que espera)
COMMANDS = [
    (A, 0, ()),
    (B_ANOMALY, 1, ()),
    # en: both write experiments/25-B
    # es: las dos escriben experiments/25-B
    (B, 1, (B_ANOMALY,)),
    # en: the newest run B
    # es: la ejecución B más reciente
    ("phase-25-grad-compare experiments/25-A experiments/25-B", 0, (A, B)),
    # en: compares its run with run A
    # es: compara su ejecución con la A
    ("phase-25-silent", 0, (A,)),
]
justfile = os.path.abspath("justfile")
# en: where python, minigpt and just live
# es: donde están python, minigpt y just
bin_dir = str(Path(sys.executable).parent)
env = dict(os.environ, PATH=os.pathsep.join([bin_dir, os.environ["PATH"]]))


def just(arguments, scratch, after=()):
    for needed in after:
        # en: wait for the commands this one needs
        # es: espera a los comandos que este necesita
        needed.result()
    done = subprocess.run(
        ["just", "--justfile", justfile,
         "--working-directory", scratch, *arguments.split()],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.stdout, done.returncode


def excerpt(text, head=2, tail=3):
    lines = text.split("\n")
    if len(lines) <= head + tail + 1:
        return text
    left_out = f"[... {len(lines) - head - tail} ...]"
    return "\n".join([*lines[:head], left_out, *lines[-tail:]])


with (tempfile.TemporaryDirectory() as scratch,
      ThreadPoolExecutor(len(COMMANDS)) as pool):
    runs = {}
    # en: listed after the commands each one needs
    # es: listados tras los comandos que necesita cada uno
    for arguments, _, needs in COMMANDS:
        runs[arguments] = pool.submit(just, arguments, scratch,
                                      [runs[n] for n in needs])
    outputs = {arguments: run.result() for arguments, run in runs.items()}
statuses = []
for arguments, _, _ in COMMANDS:
    output, status = outputs[arguments]
    print(f"$ just {arguments}")
    print(excerpt(output.rstrip()))
    print(f"[{status = }]")
    statuses.append(status)


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert statuses == [expected for _, expected, _ in COMMANDS], statuses
from execbook import ABSOLUTE_PATH as ABSOLUTE

shown = "\n".join(excerpt(output.rstrip()) for output, _ in outputs.values())
assert not ABSOLUTE.findall(shown), f"the page shows a path of the build machine: {ABSOLUTE.findall(shown)}"
