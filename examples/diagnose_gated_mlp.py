# en: in a terminal: python -m inplace_doctor gated_mlp.py
# es: en una terminal: python -m inplace_doctor gated_mlp.py
import subprocess
import sys

done = subprocess.run(
    [sys.executable, "-m", "inplace_doctor", "gated_mlp.py"],
    cwd="examples", capture_output=True, text=True)
print(done.stdout + done.stderr + f"[{done.returncode = }]")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue
from execbook import EXAMPLES
from inplace_doctor.runner import DEFAULT_CAP

script = (EXAMPLES / "gated_mlp.py").read_text(encoding="utf-8").split("\n")
built = next(n for n, line in enumerate(script, 1) if "nn.ReLU(inplace=True)" in line)
called = next(n for n, line in enumerate(script, 1) if "self.gate(x)" in line)
assert done.returncode == 1, "the page says the command exits with status 1 when it finds something"
assert f"built at:   gated_mlp.py:{built}:" in done.stdout, "the page says the finding names where the ReLU was built"
assert f"written at: gated_mlp.py:{called}" in done.stdout, "the page says it names the call line too"
assert "SigmoidBackward0._saved_result" in done.stdout, "the page says the sigmoid's saved output was overwritten"
assert "check:      backward raises" in done.stdout, "the page says PyTorch catches this one"
glue("gated_built_line", built)
glue("doctor_cap", DEFAULT_CAP)  # backward passes the command runs by default
glue("gated_call_line", called)
