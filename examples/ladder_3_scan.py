# Step 3: find the in-place writes mechanically. find_inplace_calls parses the
# source with ast (no text search) and lists every candidate, harmless or not.
import minigpt.model
from inplace_doctor import find_inplace_calls

candidates = find_inplace_calls(minigpt.model)
for candidate in candidates:
    print(candidate)


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook.checks import glue

glue("scan_candidates", len(candidates))
