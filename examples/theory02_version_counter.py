# Every tensor's memory has a version counter: each in-place write bumps it, and views
# (which share the memory) share the counter.
import torch

t = torch.zeros(4)
print(f"{'step':<28} t._version")
print(f"{'t = torch.zeros(4)':<28} {t._version}")
t.add_(1)
print(f"{'t.add_(1)':<28} {t._version}")
t.mul_(3)
print(f"{'t.mul_(3)':<28} {t._version}")
u = t * 2  # out of place: a new tensor with its own counter; t is not written
print(f"{'u = t * 2':<28} {t._version}   (u._version = {u._version})")
t[0] = 5.0  # indexed assignment is an in-place write too (aten copy_)
print(f"{'t[0] = 5.0':<28} {t._version}")
v = t[1:3]  # a view: the same memory, so the same counter
v.mul_(2)
print(f"{'v = t[1:3]; v.mul_(2)':<28} {t._version}   (v._version = {v._version})")
d = t.detach()  # no history, but the same memory and counter
d.zero_()
print(f"{'t.detach().zero_()':<28} {t._version}")
print("v shares t's memory:", v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr())
