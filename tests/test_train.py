"""Training: determinism, the failing run B, and the silent bypasses measured against run A."""

import math
import re

import pytest
import torch

from minigpt.compare import compare_gradients
from minigpt.model import Block
from minigpt.train import TrainConfig, model_config, train

INPLACE_ERROR = re.compile(r"modified by an inplace operation")
VERSIONS = re.compile(r"is at version \d+; expected version \d+ instead")

BYPASSES = ("hooks", "data", "ctx")
# Parameters whose gradient the "data" bypass removes: the residual branch leaves the graph.
BRANCH_PARTS = ("ln1", "attn", "ffn", "ln2")
# Read only by nodes after the last in-place write: their gradients stay exact in every bypass.
DOWNSTREAM = ("ln_f.weight", "ln_f.bias", "head.weight")
# Float32 reassociation noise is ~1e-6; a gradient error above this is the bypass, not noise.
WRONG = 0.10


def short_run(data, seed, steps, **switches):
    return train(model_config(data, **switches), TrainConfig(steps=steps, seed=seed), data)


def test_control_run_completes_and_records(run_control, few_steps):
    run = run_control
    assert run.status == "completed" and run.failure is None
    assert len(run.losses) == few_steps
    assert all(math.isfinite(loss) for loss in run.losses)
    assert run.eval_steps[-1] == few_steps
    assert len(run.test_accuracy) == len(run.train_accuracy) == len(run.eval_steps)
    assert all(0.0 <= a <= 1.0 for a in run.test_accuracy + run.train_accuracy)
    assert 0.0 <= run.test_exact_match <= 1.0
    assert run.steps_per_s > 0
    assert all(g is not None for g in run.grads_step0.values())
    assert all(g is not None for g in run.grads_final.values())
    summary = run.summary()
    assert "grads_step0" not in summary and summary["status"] == "completed"


def test_train_is_quiet_and_reports_progress_only_to_its_callback(data, run_control, few_steps, capsys):
    calls = []
    run = train(model_config(data), TrainConfig(steps=few_steps), data, progress=lambda *args: calls.append(args))
    assert calls == [(step, few_steps, loss) for step, loss in enumerate(run.losses, start=1)]
    assert run.losses == run_control.losses  # watching changes nothing
    short_run(data, 0, few_steps)  # and without a callback: the book's way
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    "settings, message",
    [
        (dict(steps=0), "steps must be between 1 and 100000, not 0"),
        (dict(steps=10**9), "steps must be between 1 and 100000, not 1000000000"),
        (dict(seed=-1), "seed must be between 0 and 4294967295, not -1"),
    ],
)
def test_train_config_rejects_values_outside_its_declared_limits(settings, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        TrainConfig(**settings)


def test_control_learns(trained):
    run = trained(steps=20)
    assert run.losses[-1] < 0.6 * run.losses[0]


def test_same_seed_gives_the_same_run(data, few_steps):
    first, second = short_run(data, 0, few_steps), short_run(data, 0, few_steps)
    assert first.losses == second.losses
    assert first.test_accuracy == second.test_accuracy
    assert torch.equal(first.probe_logits, second.probe_logits)
    for name, g in first.grads_final.items():
        assert torch.equal(g, second.grads_final[name]), name


def test_different_seed_gives_a_different_run(data, run_control, few_steps):
    other = short_run(data, 1, few_steps)
    assert other.losses != run_control.losses
    assert not torch.equal(other.probe_logits, run_control.probe_logits)


@pytest.mark.parametrize("anomaly", [True, False], ids=["anomaly", "no-anomaly"])
def test_run_b_records_the_backward_error(trained, run_control, anomaly):
    run = trained(inplace=True, detect_anomaly=anomaly)
    assert run.status == "backward_raised"
    assert run.failure.step == 0  # the step-0 probe backward already fails
    assert run.failure.error.startswith("RuntimeError: ")
    assert INPLACE_ERROR.search(run.failure.error) and VERSIONS.search(run.failure.error)
    assert run.losses == [] and run.steps_per_s is None
    assert run.grads_step0 is None and run.grads_final is None
    # The forward still ran, and gave exactly run A's output.
    assert torch.equal(run.probe_logits, run_control.probe_logits)
    reports = [w for w in run.failure.warnings if "Error detected in" in w]
    if anomaly:
        assert len(reports) == 1 and "NativeLayerNormBackward" in reports[0]
        assert f'File "{Block.forward.__code__.co_filename}"' in reports[0]
        assert "h.add_(" in reports[0]
    else:
        assert reports == []


@pytest.mark.parametrize("bypass", BYPASSES)
def test_bypass_trains_to_completion_with_wrong_gradients(trained, run_control, few_steps, bypass):
    run = trained(inplace=True, bypass=bypass)
    assert run.status == "completed" and run.failure is None
    assert len(run.losses) == few_steps and all(math.isfinite(x) for x in run.losses)
    assert torch.equal(run.probe_logits, run_control.probe_logits)  # same forward...
    rows = {r.name: r for r in compare_gradients(run_control.grads_step0, run.grads_step0)}
    assert max(r.rel_error for r in rows.values()) > WRONG  # ...different gradients
    for name in DOWNSTREAM:
        assert rows[name].rel_error == 0.0, name


def test_data_bypass_removes_the_residual_branches_from_the_graph(trained, run_control):
    grads = trained(inplace=True, bypass="data").grads_step0
    branch = [n for n in grads if n.startswith("blocks.") and n.split(".")[2] in BRANCH_PARTS]
    assert branch and all(grads[n] is None for n in branch)
    others = [n for n in grads if n not in branch]
    assert {"tok_emb.weight", "pos_emb.weight", *DOWNSTREAM} <= set(others)
    assert all(grads[n] is not None for n in others)
    rows = {r.name: r for r in compare_gradients(run_control.grads_step0, grads)}
    assert all(rows[n].note == "no gradient in B" for n in branch)
    # The embeddings still get a gradient, through the identity path only: a wrong one.
    assert rows["tok_emb.weight"].rel_error > WRONG


@pytest.mark.parametrize("bypass", ["hooks", "ctx"])
def test_stale_layer_norm_input_corrupts_layer_norm_weight_gradients(trained, run_control, bypass):
    """hooks and ctx keep every parameter's gradient, but the LayerNorm weights read stale x."""
    grads = trained(inplace=True, bypass=bypass).grads_step0
    assert all(g is not None for g in grads.values())
    rows = compare_gradients(run_control.grads_step0, grads)
    ln_weights = [r for r in rows if re.fullmatch(r"blocks\.\d+\.ln[12]\.weight", r.name)]
    assert ln_weights and all(r.rel_error > WRONG for r in ln_weights)


@pytest.mark.parametrize("switch", ["relu_inplace", "exp_inplace"])
def test_safe_switches_train_exactly_like_the_control(trained, run_control, switch):
    run = trained(**{switch: True})
    assert run.status == "completed"
    assert run.losses == run_control.losses
    for name, g in run_control.grads_final.items():
        assert torch.equal(g, run.grads_final[name]), name


def test_the_experiments_are_kept_in_the_folder_minigpt_cache_names(monkeypatch, tmp_path):
    """With MINIGPT_CACHE naming a folder (the book's build gives one of its store), every experiment
    is kept there once under a key that names it, its arguments (a run's switches as they differ from
    the default: `minigpt train` and training() ask for run A alike) and minigpt's code, and each
    computation is logged; another process reads it back instead of computing it again."""
    import json
    import pickle

    from minigpt import experiments
    from minigpt.train import BackwardRaised

    monkeypatch.setattr(experiments, "_memory", {})
    monkeypatch.setenv(experiments.CACHE, str(tmp_path))
    failure = experiments.run_b(anomaly=False)
    with pytest.raises(BackwardRaised):
        experiments.gradients(inplace=True)
    code, threads = experiments.code(), torch.get_num_threads()
    kept = sorted(p.name for p in tmp_path.glob("*.pickle"))
    assert kept == [
        f"gradients(inplace=True,threads={threads})-{code}.pickle",
        f"run_b(anomaly=False,threads={threads})-{code}.pickle",
    ]
    logged = [json.loads(line) for line in (tmp_path / "computed.jsonl").read_text().splitlines()]
    assert sorted(e["key"] for e in logged) == [name.removesuffix(".pickle") for name in kept]
    monkeypatch.setattr(experiments, "_memory", {})  # another process: read back, not computed
    assert experiments.run_b(anomaly=False) == failure
    assert len((tmp_path / "computed.jsonl").read_text().splitlines()) == 2
    (tmp_path / f"training(threads={threads})-{code}.pickle").write_bytes(pickle.dumps("run A, kept"))
    assert experiments.training() == experiments.training(inplace=False) == "run A, kept"


def test_an_experiment_computed_on_other_threads_is_not_read_back(monkeypatch, tmp_path):
    """A reduction split over more intra-op threads sums in another order (LayerNorm's gain and bias
    gradients differ near 1e-7 between one thread and two), so a result is kept per thread count."""
    from minigpt import experiments

    monkeypatch.setattr(experiments, "_memory", {})
    monkeypatch.setenv(experiments.CACHE, str(tmp_path))
    threads = torch.get_num_threads()
    try:
        for count in (1, 2):
            torch.set_num_threads(count)
            experiments.gradients()
    finally:
        torch.set_num_threads(threads)
    kept = sorted(p.name.split("-")[0] for p in tmp_path.glob("*.pickle"))
    assert kept == ["gradients(threads=1)", "gradients(threads=2)"]
