# The summary table, computed now: every case file of this page is run again and its verdict
# read from what happened. Safe cases end with an assertion on their check; unsafe ones raise.
import html

from IPython import get_ipython
from IPython.display import HTML, display

from drift.claims import EXAMPLES, SAFE_CASES, UNSAFE_CASES, run_case

CASES = SAFE_CASES + UNSAFE_CASES
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
