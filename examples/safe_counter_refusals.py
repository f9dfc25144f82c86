import torch

# en: a leaf, as a parameter is; h is not: the result of an op
# es: una hoja, como un parámetro; h no: el resultado de una operación
w = torch.ones(6, requires_grad=True)
h = w * 2
with torch.no_grad():
    made_under_no_grad = h[:2]

writes = {
    "w[:2]": lambda: w[:2].mul_(2),
    "made_under_no_grad": lambda: made_under_no_grad.mul_(2),
    "h.split(2)[0]": lambda: h.split(2)[0].mul_(2),
    "h.chunk(3)[0]": lambda: h.chunk(3)[0].mul_(2),
    "h.unbind()[0]": lambda: h.unbind()[0].mul_(2),
    "h.split(2)[0][:1]": lambda: h.split(2)[0][:1].mul_(2),
    "h.split(2)[0].clone()": lambda: h.split(2)[0].clone().mul_(2),
    "h[:2]": lambda: h[:2].mul_(2),
}
for what, write in writes.items():
    try:
        write()
        print(f"{what}.mul_(2): ✓")
    except RuntimeError as error:
        print(f"{what}.mul_(2): {str(error).split('.')[0]}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

MULTIPLE = "This view is the output of a function that returns multiple views"
expected = [  # a fragment of the error, in the order of `writes`; None: allowed
    "a view of a leaf Variable that requires grad is being used in an in-place operation",
    "A view was created in no_grad mode and is being modified inplace",
    MULTIPLE, MULTIPLE, MULTIPLE, MULTIPLE,
    None, None,
]
assert len(expected) == len(writes)
for (what, write), fragment in zip(writes.items(), expected):
    try:
        write()
        message = None
    except RuntimeError as error:
        message = str(error)
    if fragment is None:
        assert message is None, f"the page says this write is allowed: {what}; it raised {message}"
    else:
        assert message is not None, f"the page says autograd refuses this write at the op itself: {what}"
        assert fragment in message, f"{what}: the message changed: {message}"
assert h.grad_fn.name().endswith("CopySlices"), "the page says autograd records the write into h[:2]"
assert w._version == 0, "no write reached the leaf"
