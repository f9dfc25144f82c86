# %%inplace_doctor
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder, head = nn.Linear(8, 16), nn.Linear(16, 1)
x, y = torch.randn(32, 8), torch.randn(32, 1)
h = torch.tanh(encoder(x))
h.data.clamp_(min=0)
loss = (head(h) - y).pow(2).mean()
loss.backward()


# %% hidden checks: what the page says of this example

twin_encoder, twin_head = nn.Linear(8, 16), nn.Linear(16, 1)
twin_encoder.load_state_dict(encoder.state_dict())
twin_head.load_state_dict(head.state_dict())
twin_h = torch.tanh(twin_encoder(x)).clamp(min=0)
(twin_head(twin_h) - y).pow(2).mean().backward()
assert torch.equal(h, twin_h.detach()), "the page says the forward is the same as with clamp out of place"
assert not torch.allclose(encoder.weight.grad, twin_encoder.weight.grad), \
    "the page says the gradients are wrong, silently"
