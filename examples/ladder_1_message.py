from minigpt import message
from minigpt.data import build_dataset, probe_batch
from minigpt.train import build_model, model_config

data = build_dataset()
x, y = probe_batch(data)
model = build_model(model_config(data, inplace=True), seed=0)
_, loss = model(x, y)
try:
    loss.backward()
except RuntimeError as exc:
    parts = message.parts(str(exc))

now, saved = int(parts["version_now"]), int(parts["version_expected"])
batch, tokens, width = x.size(0), x.size(1), model.config.n_embd
print(f"tensor: {parts['tensor']}")
print(f"  (batch, tokens, n_embd) = ({batch}, {tokens}, {width})")
print(f"output 0 of: {parts['output_of']}")
print(f"{now} - {saved} = {now - saved}")
