# Step 3: find the in-place writes mechanically. find_inplace_calls parses the
# source with ast (no text search) and lists every candidate, harmless or not.
from contextlib import chdir
from pathlib import Path

from myst_nb import glue

import minigpt.model
from minigpt.diagnose import find_inplace_calls

candidates = find_inplace_calls(minigpt.model)
with chdir(Path(minigpt.__file__).parent.parent):  # paths relative to the repo
    for candidate in candidates:
        print(candidate)
glue("scan_candidates", len(candidates), display=False)
