# The summary table, computed now: every case file of this page is run again and its verdict
# read from what happened. Safe cases end with an assertion on their check; unsafe ones raise.
import contextlib
import io
import traceback
from pathlib import Path

from IPython import get_ipython
from IPython.display import Markdown, display

import minigpt

EXAMPLES = Path(minigpt.__file__).resolve().parent.parent / "examples"
CASES = ["safe_optimizer.py", "safe_no_grad.py", "safe_fresh_tensor.py", "safe_relu_linear.py",
         "safe_exp_scores.py", "safe_masked_fill.py", "safe_dropout_linear.py", "safe_embedding_sum.py",
         "safe_counter_step_before_backward.py", "safe_counter_relu_tanh.py",
         "safe_counter_dropout_softmax.py", "safe_counter_leaf.py"]


def run_case(path):
    """(case, verdict, how it was checked) from running one case file."""
    scope = {"__name__": "__main__", "__file__": str(path)}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), scope)
    except RuntimeError as exc:
        frame = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)][-1]
        line = frame.line.split("#")[0].strip()
        where = "at backward" if line.endswith(".backward()") else "at the op itself"
        message = str(exc).split(" Hint:")[0]
        return scope["CASE"], f"**unsafe**: raises {where}, `{line}`", f"RuntimeError: {message}"
    return scope["CASE"], "safe", scope["CHECK"]


rows = [run_case(EXAMPLES / name) for name in CASES]
table = ["| case | verdict | how it was checked |", "|---|---|---|"]
table += [f"| {case} | {verdict} | {how} |" for case, verdict, how in rows]
if get_ipython() is None:  # run standalone: plain text
    print("\n".join(table))
else:
    display(Markdown("\n".join(table)))
