import minigpt.model
from inplace_doctor import find_inplace_calls

candidates = find_inplace_calls(minigpt.model)
for candidate in candidates:
    print(candidate)


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

glue("scan_candidates", len(candidates))

# Which branch of Block.forward each add_ sits in, and what that branch's switches do at backward
import ast
from pathlib import Path

from minigpt.data import build_dataset
from minigpt.train import BackwardRaised, switch_gradients

BRANCHES = {"self.through_data": {"inplace": True, "bypass": "data"},
            "self.clone == 'after'": {"inplace": True, "clone": "after"},
            "self.clone == 'before'": {"inplace": True, "clone": "before"},
            "self.inplace": {"inplace": True}}
tree = ast.parse(Path(minigpt.model.__file__).read_text("utf-8"))
block = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Block")
forward = next(n for n in block.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
branch, lines = next(n for n in forward.body if isinstance(n, ast.If)), {}
while isinstance(branch, ast.If):
    lines[ast.unparse(branch.test)] = range(branch.body[0].lineno, branch.body[-1].end_lineno + 1)
    branch = branch.orelse[0] if len(branch.orelse) == 1 else None
assert set(lines) == set(BRANCHES), f"Block.forward's branches changed: {list(lines)}"


def raises(switches):
    try:
        switch_gradients(build_dataset(), **switches)
    except BackwardRaised:
        return True
    return False


adds = [c for c in candidates if c.kind == "in-place call add_"]
data_writes = [c for c in candidates if c.kind.startswith("write through .data")]
where = {c.line: next(test for test, span in lines.items() if c.line in span) for c in adds}
breaking = [c for c in adds if raises(BRANCHES[where[c.line]])]
fixing = [c for c in adds if not raises(BRANCHES[where[c.line]])]
assert {where[c.line] for c in breaking} == {"self.inplace", "self.clone == 'before'"}, \
    "the page says the add_ lines that break are run B's and clone='before''s"
assert {where[c.line] for c in fixing} == {"self.clone == 'after'"}, "the page says clone='after''s are fix 2"
assert len(candidates) == len(adds) + len(data_writes) + 2, "the page says the others are relu_ and exp_"
assert {c.kind for c in candidates} - {c.kind for c in adds + data_writes} == \
    {"in-place call relu_", "in-place call exp_"}, "the page says the others are relu_ and exp_"
glue("scan_adds", len(adds))
glue("scan_data", len(data_writes))
glue("scan_break_adds", len(breaking))
glue("scan_fix_adds", len(fixing))
