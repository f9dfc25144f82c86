# The three ways run B really is silent, each trained to the end next to run A:
# same seed, same batches; only the residual, and how it escapes the version
# check, differ.
from book.experiments import training
from minigpt.compare import compare_gradients, summary_line

SWITCHES = {
    "A": {},
    "B, bypass=hooks": {"inplace": True, "bypass": "hooks"},
    "B, bypass=ctx": {"inplace": True, "bypass": "ctx"},
    "B, bypass=data": {"inplace": True, "bypass": "data"},
}
results = {name: training(**switches) for name, switches in SWITCHES.items()}

# Step-0 gradients on the probe batch: same weights, same batch as run A.
rows = {name: compare_gradients(results["A"].grads_step0, r.grads_step0)
        for name, r in results.items()}
for name, r in results.items():
    print(f"{name}: {r.status}, test accuracy {r.test_accuracy[-1]:.1%}")
    print(f"  gradients vs A: {summary_line(rows[name])}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt.compare import median_error, worst_row
from book.checks import glue, glue_figure, glue_number

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
               "exactitud en test tras '=>' (%)"),
        "en": ("training step", "training loss (log scale)", "test accuracy after '=>' (%)")}

def _training_figure(results, language):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    step, loss_label, accuracy_label = AXES[language]
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    for name, r in results.items():
        label = run_label(name, language)
        ax_loss.plot(range(1, len(r.losses) + 1), r.losses, label=label, **STYLES[name])
        ax_acc.plot(r.eval_steps, [100 * a for a in r.test_accuracy], label=label, **STYLES[name])
    ax_loss.set(yscale="log", xlabel=step, ylabel=loss_label)
    ax_acc.set(xlabel=step, ylabel=accuracy_label)
    ax_acc.legend(fontsize=8)
    if language == "es":  # decimal comma on the axes
        from matplotlib.ticker import FuncFormatter

        ax_acc.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}".replace(".", ",")))
    return fig

assert all(r.status == "completed" for r in results.values()), "the page says every run trains to the end"
final = {name: r.test_accuracy[-1] for name, r in results.items()}
for key in ("hooks", "ctx"):  # "off by a few tenths of a percent; tens of percent for the LayerNorm gains"
    found = rows[f"B, bypass={key}"]
    worst, median = worst_row(found), median_error(found)
    assert 0.001 <= median < 0.01, f"{key}: median {median:.2%} is not a few tenths of a percent"
    assert 0.1 <= worst.rel_error < 1 and ".ln" in worst.name, f"{key}: worst {worst.name} {worst.rel_error:.2%}"
    glue_number(f"median_{key}", median, ".2%")
    glue_number(f"worst_{key}", worst.rel_error, ".0%")
data_rows = rows["B, bypass=data"]
glue("data_no_gradient", sum(r.note == "no gradient in B" for r in data_rows))
glue("param_count", len(data_rows))
same = [key for key in ("hooks", "ctx") if final[f"B, bypass={key}"] == final["A"]]
assert same == ["hooks", "ctx"], "the page says hooks and ctx reach run A's test accuracy exactly"
assert final["B, bypass=data"] < final["A"] - 0.2, "the page says bypass=data fails in the open"
for key, name in (("a", "A"), ("hooks", "B, bypass=hooks"), ("ctx", "B, bypass=ctx"), ("data", "B, bypass=data")):
    glue_number(f"acc_{key}", final[name], ".1%")
glue_number("gap_data", 100 * (final["A"] - final["B, bypass=data"]), ".1f")
glue_figure("training_curves", lambda language: _training_figure(results, language))
