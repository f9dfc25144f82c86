import torch

a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(2, 3, requires_grad=True)
y = a.exp()
saved = y.grad_fn._saved_result
print("saved.data_ptr() == y.data_ptr():", saved.data_ptr() == y.data_ptr())
print("(a * b).grad_fn._saved_self is a:", (a * b).grad_fn._saved_self is a)


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert y.grad_fn._saved_result.data_ptr() == y.data_ptr(), "the page says saving keeps a reference"
assert (a * b).grad_fn._saved_self is a, "the page says mul keeps a itself"
