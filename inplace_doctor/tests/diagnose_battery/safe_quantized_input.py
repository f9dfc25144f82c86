"""An input stored quantized (uint8, as a data pipeline keeps images) and dequantized for a
float layer: the quantized tensor is never written.

Kind: harmless
"""
import torch

torch.manual_seed(0)
stored = torch.quantize_per_tensor(torch.rand(16, 8), 1 / 255, 0, torch.quint8)
w = torch.randn(8, 1, requires_grad=True)
x = stored.dequantize()  # twin: x = stored.dequantize()
loss = (x @ w).pow(2).mean()
loss.backward()
