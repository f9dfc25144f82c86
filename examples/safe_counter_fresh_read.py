import torch

torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
h0 = torch.randn(4)

# en: out of place: a list of new tensors, stacked at the end
# es: out-of-place: una lista de tensores nuevos, apilados al final
states = [h0]
for t in range(1, 5):
    states.append(torch.tanh(states[-1] @ W))
torch.stack(states).sum().backward()
print("torch.stack(states): backward() ✓")

# en: in place: one fresh buffer, written row by row
# es: in-place: un búfer recién creado, escrito fila a fila
states = torch.zeros(5, 4)
states[0] = h0
for t in range(1, 5):
    # en: the product saves states[t - 1]
    # es: el producto guarda states[t - 1]
    states[t] = torch.tanh(states[t - 1] @ W)
states.sum().backward()  # RuntimeError
