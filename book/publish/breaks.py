"""Publishers of the break page's examples (book.publish): the values its prose quotes, its
figure in each language, and the checks of what its sentences say."""

from minigpt.compare import median_error, worst_row

from .. import message
from . import glue_figure, glue_number, publisher

RUN_NAMES = {"es": {"A": "ejecución A", "B": "ejecución B"}, "en": {"A": "run A", "B": "run B"}}


def run_label(name, language):
    """"B, bypass=hooks" -> "run B, bypass=hooks" / "ejecución B, bypass=hooks"."""
    run, _, rest = name.partition(",")
    return RUN_NAMES[language][run] + ("," + rest if rest else "")


@publisher
def symptom_forward(ns, glue, error):
    import torch

    assert torch.equal(ns["logits_a"], ns["logits_b"]), "the page says the forward outputs are bitwise equal"


@publisher
def symptom_backward(ns, glue, error):
    import torch

    glue("torch_version", torch.__version__)
    assert message.CORE in str(error)
    glue("error_core", f"{type(error).__name__}: {str(error).split(':')[0]}")


@publisher
def anomaly_off_hint(ns, glue, error):
    runs, off, on = ns["runs"], ns["off"], ns["on"]
    assert all(runs[anomaly] is not None for anomaly in (False, True)), "the page says both raise"
    assert message.before_hint(runs[False].error) == message.before_hint(runs[True].error), \
        "the page says the messages agree up to the hint"
    glue("hint_off", off["hint"])
    glue("hint_on", on["hint"])
    glue("msg_version_now", off["version_now"])
    glue("msg_version_saved", off["version_expected"])
    glue("failing_node", ns["failing"])


@publisher
def silent_training(ns, glue, error):
    results, rows = ns["results"], ns["rows"]
    assert all(r.status == "completed" for r in results.values()), "the page says every run trains to the end"
    final = {name: r.test_accuracy[-1] for name, r in results.items()}
    for key in ("hooks", "ctx"):  # "off by a few tenths of a percent; tens of percent for the LayerNorm gains"
        found = rows[f"B, bypass={key}"]
        worst, median = worst_row(found), median_error(found)
        assert 0.001 <= median < 0.01, f"{key}: median {median:.2%} is not a few tenths of a percent"
        assert 0.1 <= worst.rel_error < 1 and ".ln" in worst.name, f"{key}: worst {worst.name} {worst.rel_error:.2%}"
        glue_number(glue, f"median_{key}", median, ".2%")
        glue_number(glue, f"worst_{key}", worst.rel_error, ".0%")
    data_rows = rows["B, bypass=data"]
    glue("data_no_gradient", sum(r.note == "no gradient in B" for r in data_rows))
    glue("param_count", len(data_rows))
    same = [key for key in ("hooks", "ctx") if final[f"B, bypass={key}"] == final["A"]]
    assert same == ["hooks", "ctx"], "the page says hooks and ctx reach run A's test accuracy exactly"
    assert final["B, bypass=data"] < final["A"] - 0.2, "the page says bypass=data fails in the open"
    for key, name in (("a", "A"), ("hooks", "B, bypass=hooks"), ("ctx", "B, bypass=ctx"), ("data", "B, bypass=data")):
        glue_number(glue, f"acc_{key}", final[name], ".1%")
    glue_number(glue, "gap_data", 100 * (final["A"] - final["B, bypass=data"]), ".1f")
    glue_figure(glue, "training_curves", lambda language: _training_figure(results, language))


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


@publisher
def save_on_cpu(ns, glue, error):
    assert ns["equal"] == {False: False, True: True}, \
        "the page says: a reference (wrong gradients) without pin_memory, a copy (run A's) with it"


@publisher
def fix(ns, glue, error):
    assert ns["clone_then_add"] and ns["allow_mutation"], "the page says both fixes give run A's gradients bitwise"
    assert ns["clone_too_early"].startswith("backward raised"), "the page says the early clone still breaks"
    copies, config = ns["copies"], ns["model_b"].config
    h_shape = [ns["x"].size(0), ns["x"].size(1), config.n_embd]
    assert len(copies) == 2 * config.n_layer and all(list(t.shape) == h_shape for t in copies), \
        "the page says it copies h once per in-place add"
    glue("copied_count", len(copies))
    glue("copied_shape", str(list(copies[0].shape)))
    glue_number(glue, "copied_bytes", ns["copied_bytes"], ",")


@publisher
def backward_order(ns, glue, error):
    glue("first_stale", ns["first_stale"])


@publisher
def ladder_3_scan(ns, glue, error):
    glue("scan_candidates", len(ns["candidates"]))


@publisher
def ladder_3_diagnose(ns, glue, error):
    report, model = ns["report"], ns["model"]
    assert len(report.findings) == 2 * model.config.n_layer, "the page says one finding per LayerNorm of the blocks"
    assert not ns["other"].findings, "the page says the safe switches have no finding"
    glue("diagnose_findings", len(report.findings))


@publisher
def ladder_4_compare(ns, glue, error):
    from minigpt.compare import plot_comparison

    rows = ns["rows"]
    titles = {"es": "ejecución B (bypass=hooks) frente a la ejecución A, mismos pesos",
              "en": "run B (bypass=hooks) vs run A, same weights"}
    xlabels = {"es": "error relativo del gradiente (%), escala log.\n"
                     "gris: idéntico (dibujado en el suelo del eje); rojo: sin gradiente en un lado",
               "en": "relative gradient error (%), log scale\n"
                     "gray: identical (drawn at the axis floor); red: no gradient on one side"}
    glue_figure(glue, "grad_compare", lambda language: plot_comparison(
        rows, None, titles[language], xlabel=xlabels[language]))
    glue_number(glue, "compare_identical", sum(r.rel_error == 0 for r in rows))


@publisher
def reproducer(ns, glue, error):
    assert ns["statuses"] == [expected for _, expected, _ in ns["COMMANDS"]], ns["statuses"]


@publisher
def safe_inplace(ns, glue, error):
    assert all(ns["equal"].values()) and ns["same"], "the page says both switches and inference are safe"
    assert "raised" in ns["after_tanh"], "the page says relu_ after tanh breaks"


@publisher
def errata(ns, glue, error):
    seed, claim, on, off = ns["SEED"], ns["claim"], ns["on"], ns["off"]
    assert claim in on.error and off and message.before_hint(off.error) == message.before_hint(on.error)
    assert ns["producer"] != seed["producer"] and seed["message"] not in on.error
    assert all(ns["safe"].values())
    for key, value in seed.items():
        glue(f"seed_{key}", value)
    glue("errata_claim", claim)
    glue("errata_shape", ns["shape"])
    glue("errata_failing_node", ns["failing_node"])
    glue("errata_producer", ns["producer"])


@publisher
def compile_run_b(ns, glue, error):
    from book.experiments import run_b

    raised = ns["raised"]
    assert set(raised) == {"eager", "aot_eager", "inductor"}, "the page says every backend raises"
    where, eager = raised["eager"]
    assert where == "backward()" and isinstance(eager, RuntimeError) and message.CORE in str(eager), \
        "the page says eager raises the version-counter RuntimeError at backward()"
    hint_on = message.parts(run_b(True).error)["hint"]
    for backend in ("aot_eager", "inductor"):
        where, wrapped = raised[backend]
        assert where == "first call" and type(wrapped).__name__ == "BackendCompilerFailed", \
            f"the page says {backend} fails while compiling, at the first call"
        inner = wrapped.inner_exception  # what the backend raised while compiling
        assert isinstance(inner, RuntimeError) and message.before_hint(str(inner)) == message.before_hint(str(eager)), \
            f"the page says {backend} wraps the same RuntimeError"
        assert message.parts(str(inner))["hint"] == hint_on, f"the page says {backend}'s message carries anomaly mode's hint"
    warned = ns["warned"]
    assert warned["eager"] == [], "the page says eager prints no anomaly-mode warning"
    assert all(len(warned[b]) == 1 and warned[b][0].startswith("Error detected in") for b in ("aot_eager", "inductor")), \
        "the page says aot_eager and inductor each print anomaly mode's warning"
    glue("compile_eager_error", type(eager).__name__)
    glue("compile_aot_error", type(raised["aot_eager"][1]).__name__)
