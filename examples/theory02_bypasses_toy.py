import torch


def run(write):
    a = torch.linspace(-1.0, 1.0, 5, requires_grad=True)
    y = a.exp()
    loss = y.sum()
    if write == ".data":
        # en: a write the version counter does not see
        # es: una escritura que el contador de versiones no ve
        y.data.mul_(2)
    elif write == ".numpy()":
        # en: NumPy writes the memory; torch never hears of it
        # es: NumPy escribe la memoria; torch no se entera
        y.detach().numpy()[:] *= 2
    else:
        y.mul_(2)
    try:
        loss.backward()
    except RuntimeError as exc:
        return ("RuntimeError: ..."
                + str(exc).split(" inplace operation:")[1].split(" Hint:")[0])
    ratio = (a.grad / a.detach().exp()).tolist()
    return "✓; a.grad / exp(a) = " + ", ".join(f"{r:g}" for r in ratio)


for write in ("y.mul_(2)", ".data", ".numpy()"):
    print(f"{write:<20} {run(write)}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

assert run("y.mul_(2)").startswith("RuntimeError"), "the page says the plain in-place write is caught"
for write in (".data", ".numpy()"):
    assert run(write) == "✓; a.grad / exp(a) = 2, 2, 2, 2, 2", \
        f"the page says {write} returns twice the right gradient without an error"
