from minigpt.compare import identical
from minigpt.data import build_dataset
from minigpt.train import switch_gradients

data = build_dataset()
out_of_place, in_place = (switch_gradients(data),
                          switch_gradients(data, exp_inplace=True))
same = identical(out_of_place, in_place)
print(f"{len(in_place) = }, {same = }")
