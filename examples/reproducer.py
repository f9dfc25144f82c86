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


def just(arguments, scratch, language, after=()):
    for needed in after:
        # en: wait for the commands this one needs
        # es: espera a los comandos que este necesita
        needed.result()
    done = subprocess.run(
        ["just", "--justfile", justfile,
         "--working-directory", scratch, *arguments.split()],
        # en: minigpt speaks the terminal's language
        # es: minigpt habla la lengua del terminal
        env=dict(env, LANGUAGE=language),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.stdout, done.returncode


def excerpt(text, head=2, tail=3):
    lines = text.split("\n")
    if len(lines) <= head + tail + 1:
        return text
    left_out = f"[... {len(lines) - head - tail} ...]"
    return "\n".join([*lines[:head], left_out, *lines[-tail:]])


def transcript(language):
    with (tempfile.TemporaryDirectory() as scratch,
          ThreadPoolExecutor(len(COMMANDS)) as pool):
        runs = {}
        # en: listed after the commands each one needs
        # es: listados tras los comandos que necesita cada uno
        for arguments, _, needs in COMMANDS:
            runs[arguments] = pool.submit(
                just, arguments, scratch, language, [runs[n] for n in needs])
        return {arguments: run.result() for arguments, run in runs.items()}


# en: the trainings run once; the second language finds them kept
# es: cada entrenamiento se ejecuta una vez; la otra lengua lo halla hecho
outputs = {language: transcript(language) for language in ("en", "es")}
shown = {}
for language, runs in outputs.items():
    lines = []
    for arguments, (output, status) in runs.items():
        lines += [f"$ just {arguments}", excerpt(output.rstrip()),
                  f"[{status = }]"]
    shown[language] = "\n".join(lines)


# %% hidden checks: what the page says of this example, and the values its prose quotes

from IPython.display import Pretty

from execbook import ABSOLUTE_PATH as ABSOLUTE
from execbook import glue

for language, runs in outputs.items():
    statuses = [status for _, status in runs.values()]
    assert statuses == [expected for _, expected, _ in COMMANDS], (language, statuses)
    found = ABSOLUTE.findall(shown[language])
    assert not found, f"the page shows a path of the build machine: {found}"
# the same commands, the same runs: only minigpt's words differ (its numbers' decimal mark too)
assert shown["es"] != shown["en"] and shown["es"].count("\n") == shown["en"].count("\n")
for language, text in shown.items():
    # en: Pretty: the transcript itself as the output's text, not its repr
    # es: Pretty: la propia transcripción como texto de la salida, no su repr
    glue(f"reproducer_{language}", Pretty(text))
