from minigpt.compare import identical
from minigpt.data import build_dataset
from minigpt.train import switch_gradients

data = build_dataset()
out_of_place, in_place = (switch_gradients(data),
                          switch_gradients(data, relu_inplace=True))
# en: bit for bit, every parameter's gradient
# es: bit a bit, el gradiente de cada parámetro
same = identical(out_of_place, in_place)
print(f"{len(in_place) = }, {same = }")
