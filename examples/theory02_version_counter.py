import torch

from minigpt.graph import same_memory

t = torch.zeros(4)
print(f"{'':<28} t._version")
print(f"{'t = torch.zeros(4)':<28} {t._version}")
t.add_(1)
print(f"{'t.add_(1)':<28} {t._version}")
t.mul_(3)
print(f"{'t.mul_(3)':<28} {t._version}")
u = t * 2  # out-of-place
print(f"{'u = t * 2':<28} {t._version}   (u._version = {u._version})")
t[0] = 5.0  # in-place (copy_)
print(f"{'t[0] = 5.0':<28} {t._version}")
v = t[1:3]
v.mul_(2)
print(f"{'v = t[1:3]; v.mul_(2)':<28} {t._version}   "
      f"(v._version = {v._version})")
t.detach().zero_()
print(f"{'t.detach().zero_()':<28} {t._version}")
# en: the same memory, a new counter that starts at 0
# es: la misma memoria, un contador nuevo que empieza en 0
d = t.data
d.add_(1)
print(f"{'d = t.data; d.add_(1)':<28} {t._version}   "
      f"(d._version = {d._version})")

print("same_memory(v, t):", same_memory(v, t),
      "| same_memory(d, t):", same_memory(d, t))


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert u._version == 0, "the page says an out-of-place op starts a new tensor with its own count"
assert v._version == t._version, "the page says a view shares its base's counter"
assert same_memory(v, t) and same_memory(d, t), "the page says v and t.data share t's memory"
assert d._version == 1 and t._version == 5, "the page says t.data has a counter of its own"
