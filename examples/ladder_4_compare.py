from minigpt.compare import compare_gradients
from minigpt.data import build_dataset
from minigpt.train import build_model, model_config, probe_gradients

data = build_dataset()
config_a = model_config(data)
config_b = model_config(data, inplace=True, bypass="hooks")
_, grads_a = probe_gradients(build_model(config_a, seed=0), data)
_, grads_b = probe_gradients(build_model(config_b, seed=0), data)
rows = compare_gradients(grads_a, grads_b)
for row in sorted(rows, key=lambda r: -r.rel_error)[:4]:
    print(f"  {row.name:<22} {row.rel_error:7.2%}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from execbook import FIGURE_WIDTH, glue_figure

from minigpt.compare import XLABEL, plot_comparison

titles = {"es": "ejecución B (bypass=hooks) frente a la A,\nmismos pesos",
          "en": "run B (bypass=hooks) vs run A, same weights"}
xlabels = {"es": "error relativo del gradiente (%), escala log.\n"
                 "gris: idéntico (dibujado en el mínimo del eje)\nrojo: sin gradiente en un lado",
           "en": XLABEL}
glue_figure("grad_compare", lambda language: plot_comparison(
    rows, None, titles[language], xlabel=xlabels[language], width=FIGURE_WIDTH))
