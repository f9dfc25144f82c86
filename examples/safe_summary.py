# The summary table, computed now: every case file of this page is run again and its verdict
# read from what happened. Safe cases end with an assertion on their check; unsafe ones raise.
import contextlib
import html
import io
import traceback
from pathlib import Path

from IPython import get_ipython
from IPython.display import HTML, display

import minigpt

EXAMPLES = Path(minigpt.__file__).resolve().parent.parent / "examples"
CASES = ["safe_optimizer.py", "safe_no_grad.py", "safe_fresh_tensor.py", "safe_relu_linear.py",
         "safe_exp_scores.py", "safe_masked_fill.py", "safe_dropout_linear.py", "safe_embedding_sum.py",
         "safe_counter_step_before_backward.py", "safe_counter_relu_tanh.py",
         "safe_counter_dropout_softmax.py", "safe_counter_leaf.py"]


def run_case(path):
    """(case, verdict, line that raised or None, how it was checked) from running one case file."""
    scope = {"__name__": "__main__", "__file__": str(path)}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), scope)
    except RuntimeError as exc:
        frame = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)][-1]
        line = frame.line.split("#")[0].strip()
        where = "at backward" if line.endswith(".backward()") else "at the op itself"
        return scope["CASE"], f"unsafe: raises {where}", line, "RuntimeError: " + str(exc).split(" Hint:")[0]
    return scope["CASE"], "safe", None, scope["CHECK"]


rows = [run_case(EXAMPLES / name) for name in CASES]
if get_ipython() is None:  # run standalone: plain text
    for case, verdict, line, how in rows:
        print(f"{case} | {verdict}{f' ({line})' if line else ''} | {how}")
else:
    cells = lambda case, verdict, line, how: [
        html.escape(case), f"<strong>{verdict}</strong><br><code>{html.escape(line)}</code>" if line else verdict,
        html.escape(how)]
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in cells(*row)) + "</tr>" for row in rows)
    display(HTML('<table class="table"><thead><tr><th>case</th><th>verdict</th><th>how it was checked</th>'
                 f"</tr></thead><tbody>{body}</tbody></table>"))
