# Four ways to overwrite a saved tensor without PyTorch noticing. The forward is
# y = exp(a), whose backward multiplies by the saved y; after the forward, y is
# doubled in place. The right gradient of y.sum() is exp(a); a backward that
# reads the doubled y returns 2 exp(a).
import torch
from torch.autograd.graph import saved_tensors_hooks


class ExpKeepingCtx(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        # a ctx attribute instead of ctx.save_for_backward(y): never checked
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.y


def run(variant):
    a = torch.linspace(-1.0, 1.0, 5, requires_grad=True)
    if variant == "ctx attribute":
        y = ExpKeepingCtx.apply(a)
    elif variant == "saved_tensors_hooks":
        # identity pack/unpack
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            y = a.exp()
    else:
        y = a.exp()
    loss = y.sum()
    if variant == ".data":
        y.data.mul_(2)  # a write the version counter does not see
    elif variant == "NumPy alias":
        # NumPy writes the memory; torch never hears of it
        y.detach().numpy()[:] *= 2
    else:
        y.mul_(2)
    try:
        loss.backward()
    except RuntimeError as exc:
        return ("RuntimeError: ..."
                + str(exc).split(" inplace operation:")[1].split(" Hint:")[0])
    ratio = (a.grad / a.detach().exp()).tolist()
    return "no error; a.grad / exp(a) = " + ", ".join(f"{r:g}" for r in ratio)


for variant in ("y.mul_(2)", ".data", "NumPy alias", "saved_tensors_hooks",
                "ctx attribute"):
    print(f"{variant:<20} {run(variant)}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert run("y.mul_(2)").startswith("RuntimeError"), "the page says the plain in-place write is caught"
for variant in (".data", "NumPy alias", "saved_tensors_hooks", "ctx attribute"):
    assert run(variant) == "no error; a.grad / exp(a) = 2, 2, 2, 2, 2", \
        f"the page says {variant} returns twice the right gradient without an error"
