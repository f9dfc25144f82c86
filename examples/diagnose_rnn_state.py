# The RNN script under the diagnoser, as it is and with --offload (the script's
# own argument, passed on to it):
#     python -m minigpt.diagnose rnn_state.py
#     python -m minigpt.diagnose rnn_state.py --offload
import subprocess
import sys

from book.config import EXAMPLES

runs = {}
for arguments in (["rnn_state.py"], ["rnn_state.py", "--offload"]):
    runs[" ".join(arguments)] = done = subprocess.run(
        [sys.executable, "-m", "minigpt.diagnose", *arguments], cwd=EXAMPLES, capture_output=True, text=True)
    print(f"$ python -m minigpt.diagnose {' '.join(arguments)}")
    print(done.stdout + done.stderr + f"[exit status {done.returncode}]\n")


# %% hidden checks: what the page says of this example, and the values its prose quotes

import re

from book.checks import glue, glue_number

plain, offload = runs["rnn_state.py"], runs["rnn_state.py --offload"]
script = (EXAMPLES / "rnn_state.py").read_text(encoding="utf-8").split("\n")
write = next(n for n, line in enumerate(script, 1) if "h += cell(x_t, h)" in line)
assert plain.returncode == offload.returncode == 1, "the page says both runs find the write (exit status 1)"
assert f"written at: rnn_state.py:{write}:" in plain.stdout and f"written at: rnn_state.py:{write}:" in offload.stdout
assert "check:      backward raises" in plain.stdout, "the page says PyTorch catches the plain run"
assert "check:      silent" in offload.stdout, "the page says the offloaded run is silent"
alone = subprocess.run([sys.executable, "rnn_state.py", "--offload"], cwd=EXAMPLES, capture_output=True, text=True)
assert alone.returncode == 0, "the page says PyTorch itself runs the offloaded script to its end"
glue("rnn_write_line", write)
glue_number("rnn_silent_norm", float(re.search(r"weight_hh (\d+\.\d+)", alone.stdout).group(1)), ".4f")
