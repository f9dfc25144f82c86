import torch
from torch.utils._pytree import tree_map

torch.manual_seed(0)


class Wrapper(torch.Tensor):
    @staticmethod
    def __new__(cls, inner):
        return torch.Tensor._make_wrapper_subclass(
            cls, inner.shape, dtype=inner.dtype, requires_grad=inner.requires_grad
        )

    def __init__(self, inner):
        self.inner = inner

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def unwrap(x):
            return x.inner if isinstance(x, Wrapper) else x

        def wrap(x):
            return Wrapper(x) if isinstance(x, torch.Tensor) else x

        return tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))


w = Wrapper(torch.randn(4)).requires_grad_()
h = w.sigmoid()
h.mul_(2)  # WRITE
h.sum().backward()
print("grad", type(w.grad).__name__)
