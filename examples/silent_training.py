from minigpt.experiments import training

SWITCHES = {
    "A": {},
    "B, bypass=hooks": {"inplace": True, "bypass": "hooks"},
    "B, bypass=ctx": {"inplace": True, "bypass": "ctx"},
    "B, bypass=data": {"inplace": True, "bypass": "data"},
}
results = {name: training(**switches) for name, switches in SWITCHES.items()}

for name, r in results.items():
    print(f"{name}: {len(r.losses) = }, "
          f"test_accuracy[-1] = {r.test_accuracy[-1]:.1%}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt.compare import compare_gradients, median_error, worst_row
import math

from execbook import FIGURE_WIDTH, LANGUAGES, glue, glue_by_value, glue_figure, glue_number, glue_words, number

# the step-0 gradients, on the probe batch, against run A's (same weights, same batch)
rows = {name: compare_gradients(results["A"].grads_step0, r.grads_step0) for name, r in results.items()}

RUN_NAMES = {"es": {"A": "ejecución A", "B": "ejecución B"}, "en": {"A": "run A", "B": "run B"}}

def run_label(name, language):
    """"B, bypass=hooks" -> "run B, bypass=hooks" / "ejecución B, bypass=hooks"."""
    run, _, rest = name.partition(",")
    return RUN_NAMES[language][run] + ("," + rest if rest else "")

STYLES = {"A": dict(color="black", linewidth=3.5, alpha=0.35),
          "B, bypass=hooks": dict(color="tab:orange", linestyle="--"),
          "B, bypass=ctx": dict(color="tab:red", linestyle=":"),
          "B, bypass=data": dict(color="tab:green")}

AXES = {"es": ("paso de entrenamiento", "pérdida de entrenamiento (escala log.)",
              "exactitud de prueba tras => (%)"),
        "en": ("training step", "training loss (log scale)", "test accuracy after => (%)")}

def _training_figure(results, language):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    step, loss_label, accuracy_label = AXES[language]
    fig, (ax_loss, ax_acc) = plt.subplots(2, 1, figsize=(FIGURE_WIDTH, 6.4), sharex=True,
                                          layout="constrained")
    for name, r in results.items():
        label = run_label(name, language)
        ax_loss.plot(range(1, len(r.losses) + 1), r.losses, label=label, **STYLES[name])
        ax_acc.plot(r.eval_steps, [100 * a for a in r.test_accuracy], label=label, **STYLES[name])
    ax_loss.set(yscale="log", ylabel=loss_label)
    ax_acc.set(xlabel=step, ylabel=accuracy_label)
    handles, labels = ax_loss.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=2, fontsize=8, frameon=False)
    if language == "es":  # decimal comma on the axes
        from matplotlib.ticker import FuncFormatter

        ax_acc.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}".replace(".", ",")))
    return fig

LN_GAINS = {"es": "los pesos de las LayerNorm", "en": "the LayerNorm weights"}
WHY_GAINS = {"es": ", cuyo gradiente lee justo la entrada sobrescrita,",
             "en": ", whose gradient reads the overwritten input itself,"}
PARAMETER = {"es": "el parámetro", "en": "the parameter"}
assert all(r.status == "completed" for r in results.values()), "the page says every run trains to the end"
hooks, ctx = rows["B, bypass=hooks"], rows["B, bypass=ctx"]
median_hooks, median_ctx = median_error(hooks), median_error(ctx)
worst_hooks, worst_ctx = worst_row(hooks).rel_error, worst_row(ctx).rel_error


def half_reach(found, value):  # "half of the parameters' gradients are off by value or more"
    return 2 * sum(r.rel_error >= value for r in found) >= len(found)


assert half_reach(hooks, median_hooks) and half_reach(ctx, median_ctx), \
    "the page says half of the parameters' gradients are off by the glued value or more"
assert worst_hooks == max(r.rel_error for r in hooks) and worst_ctx == max(r.rel_error for r in ctx), \
    "the page says no parameter's gradient is off by more than the glued worst case"
glue_number("median_hooks", median_hooks, ".2%")
glue_number("median_ctx", median_ctx, ".2%")
glue_number("worst_hooks", worst_hooks, ".0%")
glue_number("worst_ctx", worst_ctx, ".0%")
for key in ("hooks", "ctx"):
    worst = worst_row(rows[f"B, bypass={key}"])
    gain = ".ln" in worst.name and worst.name.endswith(".weight")  # a LayerNorm gain reads the saved input
    glue_words(f"worst_{key}_what", {  # the reason is given once, with the first bypass
        language: (LN_GAINS[language] + (WHY_GAINS[language] if key == "hooks" else "")) if gain
        else f"{PARAMETER[language]} {worst.name}" for language in LANGUAGES})
data_rows = rows["B, bypass=data"]
assert {r.name for r in data_rows if r.note == "no gradient in B"} == \
    {r.name for r in data_rows if r.name.startswith("blocks.")}, \
    "the page says the attention and feed-forward branches drop out: every block parameter, no gradient"
assert all(r.rel_error == 0 for r in data_rows if r.name.startswith(("ln_f.", "head."))), \
    "the page says the skip path stays: the final LayerNorm and the head get run A's gradients"
glue("data_no_gradient", sum(r.note == "no gradient in B" for r in data_rows))
glue("param_count", len(data_rows))

final = {name: r.test_accuracy[-1] for name, r in results.items()}
acc_a, acc_hooks, acc_ctx, acc_data = (final[name] for name in SWITCHES)
assert all(0 <= a <= 1 for a in (acc_a, acc_hooks, acc_ctx, acc_data)), \
    "the page quotes each final test accuracy as a share of the tokens after =>"
glue_number("acc_a", acc_a, ".1%")
glue_number("acc_hooks", acc_hooks, ".1%")
glue_number("acc_ctx", acc_ctx, ".1%")
glue_number("acc_data", acc_data, ".1%")
points = {key: 100 * (final["A"] - final[f"B, bypass={key}"]) for key in ("hooks", "ctx", "data")}
for key, gap in points.items():  # each run B's test accuracy against run A's, in words
    size = {language: number(abs(gap), language, ".1f") for language in LANGUAGES}
    glue_words(f"effect_{key}", {"es": f"{size['es']} puntos {'menos' if gap > 0 else 'más'}",
                                 "en": f"{size['en']} points {'lower' if gap > 0 else 'higher'}"}
               if gap else {"es": "igual que A", "en": "the same as run A"})
cost = max(abs(points["hooks"]), abs(points["ctx"]))  # the larger accuracy gap of the two silent bypasses
assert cost <= abs(points["data"]), "the page says hooks and ctx cost less accuracy than data, which drops branches"
glue_by_value("accuracy_lesson", cost, [
    (1e-9, {"es": "Unos gradientes un poco equivocados aún pueden llevar a un modelo pequeño a la misma exactitud "
                  "en una tarea fácil, así que una buena exactitud no demuestra nada sobre los gradientes.",
            "en": "Gradients wrong by a little can still train a small model to the same score on an easy task, "
                  "so a good accuracy proves nothing about the gradients."}),
    (1.0, {"es": "Unos gradientes un poco equivocados aún pueden llevar a un modelo pequeño casi a la misma "
                 "exactitud en una tarea fácil, así que una buena exactitud no demuestra nada sobre los gradientes.",
           "en": "Gradients wrong by a little can still train a small model to nearly the same score on an easy "
                 "task, so a good accuracy proves nothing about the gradients."}),
    (math.inf, {"es": "Aquí los gradientes equivocados sí cuestan exactitud, pero cuánto depende del modelo y de la "
                      "tarea: la exactitud es una mala alarma.",
                "en": "Here the wrong gradients do cost accuracy, but how much depends on the model and the task: "
                      "accuracy is a poor alarm."}),
])
glue_figure("training_curves", lambda language: _training_figure(results, language))
import matplotlib.pyplot as plt

for language in LANGUAGES:  # the two y-axis labels of a figure must not overlap (review U3)
    figure = _training_figure(results, language)
    figure.canvas.draw()
    loss_label, accuracy_label = (ax.yaxis.label.get_window_extent() for ax in figure.axes[:2])
    plt.close(figure)
    assert not loss_label.overlaps(accuracy_label), f"the {language} figure's y-axis labels overlap: shorten them"

# The fixed probe batch the step-0 gradients come from, against a training batch
from minigpt.data import build_dataset, probe_batch
from minigpt.train import TrainConfig

glue("probe_sequences", probe_batch(build_dataset())[0].size(0))
glue("train_batch", TrainConfig().batch_size)
