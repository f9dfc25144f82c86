import torch

x = torch.randn(4, requires_grad=True)


def named_op(forward):
    try:
        forward().sum().backward()
    except RuntimeError as exc:
        return str(exc).split("output 0 of ")[1].split(",")[0]


def tanh_then_relu_():
    # en: tanh saves its output y; relu_ writes into y
    # es: tanh guarda su salida y; relu_ escribe en y
    y = torch.tanh(x)
    return y.relu_()


def exp_then_mul_():
    # en: exp saves its output y; mul_ writes into y
    # es: exp guarda su salida y; mul_ escribe en y
    y = x.exp()
    return y.mul_(2)


def view_then_add_():
    h = x * 1
    v = h.view(2, 2)
    # en: mul saves v, a view of h; add_ writes into h, and so into v
    # es: mul guarda v, una vista de h; add_ escribe en h, y por tanto en v
    y = v * v
    h.add_(1)
    return y


for forward in (tanh_then_relu_, exp_then_mul_, view_then_add_):
    print(f"{forward.__name__:<16} output 0 of {named_op(forward)}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import glue

named = {f.__name__: named_op(f) for f in (tanh_then_relu_, exp_then_mul_, view_then_add_)}
assert named["tanh_then_relu_"].lower().startswith("tanh"), "the page says tanh's saved output is named tanh"
assert named["exp_then_mul_"].lower().startswith("exp"), "the page says exp's saved output is named exp"
assert not any(w in n.lower() for n in named.values() for w in ("relu", "mul", "add")), \
    "the page says the op that wrote the saved tensor is not named"
glue("view_name", named["view_then_add_"])


def message_of(forward):
    try:
        forward().sum().backward()
    except RuntimeError as exc:
        return str(exc)


def leaf_then_add_():  # a saved leaf is the output of no op
    w = torch.randn(4, requires_grad=True)
    leaf = torch.randn(4)
    y = w * leaf  # mul saves the leaf, for w's gradient
    leaf.add_(1)
    return y


def base_then_view_write():  # a base written through one of its views
    h = x * 1
    y = h * h  # mul saves h
    h[:2].mul_(2)  # the write goes through a view of h
    return y


assert "output 0 of" not in message_of(leaf_then_add_), "the page says a saved leaf's message has no 'output 0 of'"
base_view_name = message_of(base_then_view_write).split("output 0 of ")[1].split(",")[0]
assert "CopySlices" in base_view_name, \
    "the compatibility page says a tensor written through a view is named after a backward node (review M3)"
glue("base_view_name", base_view_name)
