# en: in a terminal: python -m inplace_doctor rnn_state.py [--offload]
# es: en una terminal: python -m inplace_doctor rnn_state.py [--offload]
import subprocess
import sys

runs = {}
for arguments in (["rnn_state.py"], ["rnn_state.py", "--offload"]):
    runs[" ".join(arguments)] = done = subprocess.run(
        [sys.executable, "-m", "inplace_doctor", *arguments],
        cwd="examples", capture_output=True, text=True)
    print(f"$ python -m inplace_doctor {' '.join(arguments)}")
    print(done.stdout + done.stderr + f"[{done.returncode = }]\n")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue, glue_number
from execbook import EXAMPLES

plain, offload = runs["rnn_state.py"], runs["rnn_state.py --offload"]
script = (EXAMPLES / "rnn_state.py").read_text(encoding="utf-8").split("\n")
write = next(n for n, line in enumerate(script, 1) if "h += cell(x_t, h)" in line)
assert plain.returncode == offload.returncode == 1, "the page says both runs find the write (exit status 1)"
assert f"written at: rnn_state.py:{write}:" in plain.stdout and f"written at: rnn_state.py:{write}:" in offload.stdout
assert "check:      backward raises" in plain.stdout, "the page says PyTorch catches the plain run"
assert "check:      silent" in offload.stdout, "the page says the offloaded run is silent"
import contextlib
import io
import runpy

argv, sys.argv = sys.argv, ["rnn_state.py", "--offload"]  # PyTorch alone, as `python rnn_state.py --offload`
try:
    with contextlib.redirect_stdout(io.StringIO()):
        alone = runpy.run_path(str(EXAMPLES / "rnn_state.py"), run_name="__main__")  # raises if PyTorch does
finally:
    sys.argv = argv
glue("rnn_write_line", write)
silent_norm = alone["cell"].weight_hh.grad.norm().item()
assert silent_norm > 0, "the page says the silent run computes a gradient, a wrong one"
glue_number("rnn_silent_norm", silent_norm, ".4f")
