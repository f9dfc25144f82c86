"""A softmax by hand: logits.exp_() after logsumexp had saved the logits.

Kind: raises
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(8, 5)
logits = fc(torch.randn(16, 8))
log_norm = torch.logsumexp(logits, dim=-1, keepdim=True)
probs = logits.exp_() / log_norm.exp()  # WRITE twin: probs = logits.exp() / log_norm.exp()
loss = probs[:, 0].log().mean()
loss.backward()
