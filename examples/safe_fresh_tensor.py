import torch

torch.manual_seed(0)
x = torch.randn(5, 3)
w = torch.randn(3, 4, requires_grad=True)


def gradient(inplace):
    a, b = x @ w, (2 * x) @ w
    if inplace:
        # en: fresh: no history, saved by nobody
        # es: recién creado: sin historial, nadie lo ha guardado
        out = torch.zeros(5, 4)
        out.add_(a)
        out.add_(b.tanh())
    else:
        out = a + b.tanh()
    (out * out).sum().backward()
    grad, w.grad = w.grad, None
    return grad


same = torch.equal(gradient(inplace=False), gradient(inplace=True))
print(f"{same = }")
