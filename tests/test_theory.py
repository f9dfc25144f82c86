"""Every claim of the theory pages and of the safe-cases page, checked on the bundled code.

Pages: docs/<lang>/theory/02-autograd-engine.md, docs/<lang>/theory/04-autograd-tape-walk-mini-gpt.md,
docs/<lang>/breaks/25-inplace-safe.md. They load examples/theory02_*, theory04_*, phase08_*,
safe_* files; the tests below run the same files with their hidden checks (book.cases.execute, in process,
with what they glue kept in `.glued`) and assert what the prose says about their output, plus a few independent checks
that do not go through the example at all.
"""

import functools
import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch.autograd.graph import saved_tensors_hooks

from execbook import cases, pages
from minigpt.compare import median_error
from minigpt.data import probe_batch
from minigpt.graph import graph_nodes
from minigpt.train import build_model, model_config
from phase25 import safe_cases, summary

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
PAGES = {
    "theory/02-autograd-engine": "theory-02-autograd-engine",
    "theory/04-autograd-tape-walk-mini-gpt": "theory-04-tape-walk",
    "breaks/25-inplace-safe": "phase-25-inplace-safe",
}
INPLACE_ERROR = "modified by an inplace operation"
VERSIONS = re.compile(r"is at version (\d+); expected version (\d+) instead")
SAFE = [c.name for c in safe_cases.summary_cases() if safe_cases.verdict(c) == "safe"]
UNSAFE = [c.name for c in safe_cases.summary_cases() if safe_cases.verdict(c) == "unsafe"]


@functools.cache
def run(name):
    """Run examples/<name> in process, once per session; an exception is recorded, not raised."""
    return cases.execute(name.removesuffix(".py"))


def completed(name):
    result = run(name)
    assert result.error is None, f"{name} raised {type(result.error).__name__}: {result.error}"
    return result


def raised(name, kind=RuntimeError):
    result = run(name)
    assert isinstance(result.error, kind), f"{name} should raise {kind.__name__}, got {result.error!r}"
    return result


def saved_tensor_slots(node):
    return {
        n.removeprefix("_saved_")
        for n in dir(node)
        if n.startswith("_saved_") and isinstance(getattr(node, n), torch.Tensor)
    }


# --------------------------------------------------------------------------------------------
# The pages themselves: both languages, labels, the cells they load, guarded raising cells

GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}[`\s]*(\w+)")


def page(lang, name):
    return (REPO / "docs" / lang / f"{name}.md").read_text(encoding="utf-8")


def code_cells(lang, name):
    """The page's code cells as the book executes them: (metadata, source), read by MyST-NB."""
    notebook = pages.notebook(REPO / "docs" / lang / f"{name}.md")
    return [(dict(c.metadata), c.source) for c in notebook.cells if c.cell_type == "code"]


def loaded(metadata):
    return pages.EXAMPLE in metadata and f"{metadata[pages.EXAMPLE]}.py"


@pytest.mark.parametrize("name", PAGES)
def test_page_exists_in_both_languages_with_the_same_label_and_cells(name):
    for lang in ("es", "en"):
        assert re.search(rf"^\({re.escape(PAGES[name])}\)=\n# ", page(lang, name), re.M), (
            "the label goes right before the title"
        )
    assert code_cells("es", name) == code_cells("en", name), "es and en must execute byte-identical cells"


def test_every_example_of_these_pages_is_loaded_once_and_exists():
    loads = [loaded(m) for name in PAGES for m, _ in code_cells("en", name) if loaded(m)]
    assert len(loads) == len(set(loads))
    assert all((EXAMPLES / target).is_file() for target in loads)
    assert set(SAFE + UNSAFE) <= {Path(t).stem for t in loads}


@pytest.mark.parametrize("name", PAGES)
def test_every_glued_key_in_the_prose_is_glued_by_a_loaded_example(name):
    glued = set()
    for metadata, _ in code_cells("en", name):
        if loaded(metadata):
            glued |= set(run(loaded(metadata)).glued)
    for lang in ("es", "en"):
        used = set(GLUE_ROLE.findall(page(lang, name)))
        assert used <= glued, sorted(used - glued)


@pytest.mark.parametrize("name", [name for name in PAGES if name.startswith("theory/")])
def test_each_language_uses_its_own_glued_keys(name):
    """A value glued per language (<key>_es, <key>_en) is shown on the es page by its _es key
    and on the en page by its _en key, never by the other language's or a bare one."""
    glued = set()
    for metadata, _ in code_cells("en", name):
        if loaded(metadata):
            glued |= set(run(loaded(metadata)).glued)
    per_language = {key.rsplit("_", 1)[0] for key in glued if key.endswith(("_es", "_en"))}
    for lang, other in (("es", "en"), ("en", "es")):
        used = set(GLUE_ROLE.findall(page(lang, name)))
        assert not {k for k in used if k.endswith(f"_{other}")}, f"{lang} page uses {other} keys"
        assert not used & per_language, f"{lang} page uses bare keys of per-language values"


@pytest.mark.parametrize("name", PAGES)
def test_no_digits_typed_into_the_prose(name):
    """Numbers come from glue; the prose may only name things (phase 8, version_counter...)."""
    for lang in ("es", "en"):
        text = re.sub(r"```.*?```", "", page(lang, name), flags=re.S)  # cells and includes
        text = re.sub(r"^---\n.*?\n---\n", "", text, flags=re.S)  # front matter
        text = re.sub(r"`[^`]*`", "", text)  # inline code, roles' targets
        text = re.sub(r"^\([\w-]+\)=$", "", text, flags=re.M)  # labels
        assert not re.findall(r"\d", text), f"{lang}/{name}: {re.findall(r'.{20}[0-9].{20}', text)}"


# --------------------------------------------------------------------------------------------
# theory/02: the version counter


def test_in_place_ops_bump_the_version_and_out_of_place_ones_do_not():
    t = torch.zeros(4)
    assert t._version == 0
    t.add_(1)
    t.mul_(3)
    assert t._version == 2
    u = t * 2
    assert t._version == 2 and u._version == 0
    t[0] = 5.0
    assert t._version == 3
    t.data.add_(1)  # the one write the counter does not see (the first bypass)
    assert t._version == 3


def test_views_and_detach_share_the_counter():
    t = torch.zeros(4)
    v = t[1:3]
    v.mul_(2)
    assert t._version == v._version == 1
    t.detach().zero_()
    assert t._version == v._version == 2


def test_data_shares_the_memory_but_not_the_counter():
    """'The counter belongs to the tensor, not to its memory': .data (and a tensor set_ on the
    same storage) write the same memory without bumping the counter."""
    t = torch.zeros(4)
    d = t.data
    assert d.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    d.add_(1)
    assert t._version == 0 and d._version == 1
    t.add_(1)
    assert t._version == 1 and d._version == 1
    other = torch.empty(0).set_(t.untyped_storage())  # same storage, not a view
    before = other._version
    other.add_(1)
    assert t._version == 1 and other._version == before + 1


def test_version_counter_example_prints_those_facts():
    stdout = completed("theory02_version_counter.py").stdout.splitlines()
    lines = {line[:28].strip(): line[28:].split()[0] for line in stdout[1:-1]}
    assert lines == {
        "t = torch.zeros(4)": "0",
        "t.add_(1)": "1",
        "t.mul_(3)": "2",
        "u = t * 2": "2",
        "t[0] = 5.0": "3",
        "v = t[1:3]; v.mul_(2)": "4",
        "t.detach().zero_()": "5",
        "d = t.data; d.add_(1)": "5",
    }
    assert "(v._version = 4)" in stdout[6] and "(d._version = 1)" in stdout[8]
    assert stdout[-1] == "same_memory(v, t): True | same_memory(d, t): True"


def test_what_each_node_saves():
    scope = completed("theory02_saved_by_nodes.py").namespace
    saved = {expr: saved_tensor_slots(out.grad_fn) for expr, out in scope["outputs"].items()}
    assert saved["a + b"] == set()
    assert saved["a * b"] == {"self", "other"}
    assert saved["a.sin()"] == {"self"}  # input savers
    for output_saver in ("a.exp()", "a.tanh()", "a.sigmoid()", "F.relu(a)", "a.softmax(-1)"):
        assert saved[output_saver] == {"result"}, output_saver
    linear = scope["outputs"]["F.linear(a, w)"].grad_fn
    assert {t.data_ptr() for t in (linear._saved_self, linear._saved_mat2)} == {
        scope["a"].data_ptr(),
        scope["w"].data_ptr(),
    }
    ln = scope["outputs"]["F.layer_norm(a, (3,), ln_weight)"].grad_fn
    assert saved["F.layer_norm(a, (3,), ln_weight)"] == {"input", "result1", "result2", "weight"}
    a = scope["a"].detach()
    assert torch.allclose(ln._saved_result1.flatten(), a.mean(-1))  # mean
    assert torch.allclose(ln._saved_result2.flatten(), 1 / torch.sqrt(a.var(-1, unbiased=False) + 1e-5))  # rstd


def test_saving_keeps_a_reference_not_a_copy():
    stdout = completed("theory02_saved_reference.py").stdout
    assert "saved.data_ptr() == y.data_ptr(): True" in stdout
    assert "(a * b).grad_fn._saved_self is a: True" in stdout
    a = torch.randn(3, requires_grad=True)
    y = a.exp()
    with torch.no_grad():
        y.data.mul_(2)  # behind the counter's back
    assert torch.equal(y.grad_fn._saved_result, y)  # the saved value changed with it


@pytest.fixture(scope="module")
def block_log():
    return completed("theory02_block_saved_log.py").namespace


def test_block_log_same_slots_in_a_and_b(block_log):
    a, b = block_log["log_a"], block_log["log_b"]
    assert len(a) == len(b) == run("theory02_block_saved_log.py").glued["t02_n_saved"] > 0
    assert block_log["same_slots"] is True
    assert [(e["node"], e["shape"]) for e in a] == [(e["node"], e["shape"]) for e in b]


def test_block_log_in_a_only_ln1_keeps_the_memory_of_h(block_log):
    in_h = [(e["module"], e["node"]) for e in block_log["log_a"] if e["memory_of_h"]]
    assert in_h == [("ln1", "NativeLayerNormBackward0.input")]
    assert block_log["h_a"]._version == 0


def test_block_log_in_b_both_layernorms_keep_h_at_successive_versions(block_log):
    in_h = [(e["module"], e["node"], e["version"]) for e in block_log["log_b"] if e["memory_of_h"]]
    assert in_h == [("ln1", "NativeLayerNormBackward0.input", 0), ("ln2", "NativeLayerNormBackward0.input", 1)]
    glued = run("theory02_block_saved_log.py").glued
    assert block_log["h_b"]._version == 2 == glued["t02_b_h_final"]
    rows = [i for i, e in enumerate(block_log["log_b"]) if e["memory_of_h"]]
    assert glued["t02_b_h_slots_en"] == f"ln1 (#{rows[0]}, version 0) and ln2 (#{rows[1]}, version 1)"
    assert glued["t02_b_h_slots_es"] == f"ln1 (#{rows[0]}, versión 0) y ln2 (#{rows[1]}, versión 1)"


def test_block_log_parameters_are_saved_past_version_zero(block_log):
    """'The parameters do not start at version zero: their initialisation wrote them in place.'"""
    weights = [
        e for e in block_log["log_a"] if e["node"].endswith((".weight", ".bias", ".mat2")) and e["module"] != "attn"
    ]
    assert weights and all(e["version"] >= 1 for e in weights)
    activations = [e for e in block_log["log_a"] if not any(e is w for w in weights)]
    assert all(e["version"] == 0 for e in activations)


def test_identity_saved_tensors_hooks_switch_the_check_off():
    a = torch.randn(4, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = a.exp()
    loss = y.sum()
    y.mul_(2)
    loss.backward()  # no error, and exp's backward multiplied by the doubled y
    assert torch.allclose(a.grad, 2 * a.detach().exp())


def test_the_check_compares_versions_not_values():
    result = raised("theory02_inequality.py")
    assert "torch.equal(y, before): True" in result.stdout
    assert "y._version: 2" in result.stdout
    assert INPLACE_ERROR in str(result.error)
    assert VERSIONS.search(str(result.error)).groups() == ("2", "0")


def test_reading_saved_from_python_is_checked_too():
    a = torch.randn(3, requires_grad=True)
    y = a.exp()
    node = y.grad_fn
    y.add_(1)
    with pytest.raises(RuntimeError, match=INPLACE_ERROR):
        _ = node._saved_result


def test_bypasses_toy_plain_raises_others_return_twice_the_gradient():
    stdout = completed("theory02_bypasses_toy.py").stdout + completed("theory02_bypasses_saving.py").stdout
    rows = {line[:20].strip(): line[20:].strip() for line in stdout.splitlines()}
    assert rows["y.mul_(2)"].startswith("RuntimeError:") and "expected version 0" in rows["y.mul_(2)"]
    run_write = run("theory02_bypasses_toy.py").namespace["run"]
    for variant in (".data", ".numpy()", "saved_tensors_hooks", "ctx.y = y"):
        assert rows[variant] == "✓; a.grad / exp(a) = 2, 2, 2, 2, 2", variant
    for write in (".data", ".numpy()"):
        assert run_write(write) == rows[write]  # deterministic


def test_bypasses_in_the_mini_gpt(data):
    """data: parameters lose their gradient; hooks, ctx: small errors, LayerNorm weights worst."""
    from minigpt.compare import compare_gradients
    from minigpt.train import switch_gradients

    result = completed("theory02_bypasses_gpt.py")
    grads_a = switch_gradients(data)
    for bypass in ("data", "hooks", "ctx"):
        grads_b = switch_gradients(data, inplace=True, bypass=bypass)
        rows = compare_gradients(grads_a, grads_b)
        missing = sum(r.note == "no gradient in B" for r in rows)
        worst = sorted(rows, key=lambda r: r.rel_error, reverse=True)[:3]
        if bypass == "data":
            assert missing == result.glued["t02_data_missing"] > 0
        else:
            assert missing == 0
            assert median_error(rows) < 0.05, "most weights move a little"
            assert all(re.fullmatch(r"blocks\.\d\.ln\d\.weight", r.name) for r in worst), [r.name for r in worst]
        assert f"bypass={bypass}:" in result.stdout


# --------------------------------------------------------------------------------------------
# theory/02: phase 8 in miniature (tapegrad itself is tested in test_tapegrad.py)


def test_phase08_gradcheck_agrees_with_finite_differences():
    lines = completed("phase08_gradcheck.py").stdout.splitlines()[2:]
    assert len(lines) == 5 and all(float(line.split()[-1]) < 1e-6 for line in lines)


def test_phase08_silent_same_forward_wrong_gradients_without_error():
    result = completed("phase08_silent.py")
    assert "loss_a == loss_b: True" in result.stdout
    errors = result.namespace["errors"]
    assert all(errors[n] > 0.1 for n in ("x", "pos", "w1")) and errors["w2"] == errors["w_out"] == 0
    assert (result.glued["p08_wrong_en"], result.glued["p08_wrong_es"]) == ("x, pos and w1", "x, pos y w1")
    assert (result.glued["p08_right_en"], result.glued["p08_right_es"]) == ("w2 and w_out", "w2 y w_out")


def test_phase08_counter_is_a_handful_of_marked_lines():
    result = completed("phase08_counter_lines.py")
    marked = result.namespace["marked"]
    assert 3 <= len(marked) <= 6
    assert any("self.version += 1" in line for _, line in marked)
    assert any("!=" in line for _, line in marked)  # the comparison


def test_phase08_caught_like_pytorch():
    result = raised("phase08_caught.py")
    assert "same = True" in result.stdout
    assert INPLACE_ERROR in str(result.error) and "saved by layer_norm" in str(result.error)
    assert VERSIONS.search(str(result.error)).groups() == ("2", "1")


# --------------------------------------------------------------------------------------------
# theory/04: the walk of run A


@pytest.fixture(scope="module")
def walk_a():
    return completed("theory04_walk.py")


def test_walk_counts(walk_a):
    s, g = walk_a.namespace, walk_a.glued
    assert g["t04_nodes"] == len(s["executed"]) == g["t04_functions"] + g["t04_accumulate"]
    assert g["t04_accumulate"] == len(list(s["model"].parameters()))
    assert set(s["executed"]) == set(s["nodes"]), "backward ran every node of the graph"
    assert g["t04_saved"] == sum(len(v) for v in s["saved"].values()) > 0


def test_walk_functions_ran_in_decreasing_sequence_number(walk_a):
    s = walk_a.namespace
    assert s["functions"] == s["by_sequence"]
    assert "functions == by_sequence = True" in walk_a.stdout


def test_walk_a_node_was_created_before_every_node_that_uses_it(walk_a):
    for node in walk_a.namespace["functions"]:
        for next_node, _ in node.next_functions:
            if next_node is not None and not hasattr(next_node, "variable"):
                assert next_node._sequence_nr() < node._sequence_nr()


def test_walk_accumulate_grad_runs_as_soon_as_its_gradient_is_ready(walk_a):
    executed = walk_a.namespace["executed"]
    for i, node in enumerate(executed):
        if hasattr(node, "variable"):  # AccumulateGrad
            producer = max(j for j, other in enumerate(executed[:i]) if any(n is node for n, _ in other.next_functions))
            assert all(hasattr(n, "variable") for n in executed[producer + 1 : i])


def test_walk_saved_versions_activations_zero_parameters_and_targets_not(walk_a, data):
    """'every activation is saved at the version it was born with; the parameters and the
    targets carry the writes made to them before the forward'."""
    assert any(version for slots in walk_a.namespace["saved"].values() for _, _, version in slots)
    model = build_model(model_config(data), seed=0)
    x, y = probe_batch(data)
    assert y._version == 1, "the targets were masked in place"
    assert all(p._version >= 1 for p in model.parameters()), "initialisation wrote in place"
    written_before = {p.untyped_storage().data_ptr() for p in model.parameters()} | {y.untyped_storage().data_ptr()}
    _, loss = model(x, y)
    for node in graph_nodes(loss.grad_fn):
        for slot in (n for n in dir(node) if n.startswith("_saved_")):
            value = getattr(node, slot)
            if isinstance(value, torch.Tensor):
                in_params = value.untyped_storage().data_ptr() in written_before
                assert bool(value._version) == in_params, (node.name(), slot, value._version)


def test_backward_frees_saved_tensors(data):
    model = build_model(model_config(data), seed=0)
    _, loss = model(*probe_batch(data))
    ln = next(n for n in graph_nodes(loss.grad_fn) if n.name() == "NativeLayerNormBackward0")
    _ = ln._saved_input  # fine before backward
    loss.backward()
    with pytest.raises(RuntimeError, match="freed"):
        _ = ln._saved_input


# --------------------------------------------------------------------------------------------
# theory/04: the picture and run B


def test_graph_picture_same_shape_in_a_and_b_and_stale_rows_are_block_layernorms():
    result = completed("theory04_graph.py")
    s = result.namespace
    assert s["edges"] == s["edges_b"] and s["labels"] == s["labels_b"]
    assert result.glued["t04_graph_rows"] == len(s["nodes"])
    for language in ("es", "en"):
        assert result.glued[f"t04_graph_{language}"].data[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.glued["t04_graph_es"].data != result.glued["t04_graph_en"].data, "drawn per language"
    assert "same_shape = True" in result.stdout
    stale_labels = [s["labels"][i] for i in sorted(s["stale"])]
    assert stale_labels == [
        "NativeLayerNorm  blocks.1.ln2",
        "NativeLayerNorm  blocks.1.ln1",
        "NativeLayerNorm  blocks.0.ln2",
        "NativeLayerNorm  blocks.0.ln1",
    ]
    assert s["labels"][s["first_stale"]] == "NativeLayerNorm  blocks.1.ln2"
    skips = [(a, b) for a, b in s["edges"] if s["labels"][a] == s["labels"][b] == "Add"]
    n_layer = model_config(s["data"]).n_layer
    assert len(skips) == 2 * n_layer  # each residual add feeds the one before it, down to tok+pos


@pytest.fixture(scope="module")
def walk_b():
    return completed("theory04_stale.py")


def test_stale_are_exactly_the_block_layernorm_inputs_in_one_memory(walk_b):
    s, g = walk_b.namespace, walk_b.glued
    assert [(s["modules"][e["node"]], e["slot"]) for e in s["stale"]] == [
        ("blocks.1.ln2", "input"),
        ("blocks.1.ln1", "input"),
        ("blocks.0.ln2", "input"),
        ("blocks.0.ln1", "input"),
    ]
    assert len({e["memory"] for e in s["stale"]}) == 1
    assert [e["saved_at"] for e in s["stale"]] == [3, 2, 1, 0] and {e["now"] for e in s["stale"]} == {4}
    assert g["t04_stale_count"] == 4 and g["t04_fresh_count"] == len(s["valid"]) > 0


def test_ln_f_input_is_valid_in_the_same_memory(walk_b):
    s = walk_b.namespace
    h_memory = {e["memory"] for e in s["stale"]}
    valid = [(s["modules"][n], slot) for n, slot, value in s["valid"] if value.untyped_storage().data_ptr() in h_memory]
    assert valid == [("ln_f", "input")]


def test_first_stale_is_last_block_ln2_and_upstream_of_the_rest():
    result = completed("theory04_first_stale.py")
    s, g = result.namespace, result.glued
    assert g["t04_first_module"] == "blocks.1.ln2"
    assert (g["t04_first_saved"], g["t04_first_now"]) == (3, 4)  # one add_ after it
    upstream = graph_nodes(s["first"])
    assert s["stale"][-1]["node"] is s["first"]  # created last
    assert all(e["node"] in upstream for e in s["stale"][:-1])
    assert "upstream_of_first = True" in result.stdout


def test_real_backward_raises_at_the_first_stale_node():
    result = completed("theory04_backward_raises.py")
    s, g = result.namespace, result.glued
    assert s["running"][-1] is s["first"]
    assert result.stdout.splitlines()[0].startswith("running[-1]: blocks.1.ln2 ")
    assert "running[-1] is first = True" in result.stdout
    assert VERSIONS.search(s["message"]).groups() == ("4", "3")
    assert g["t04_ran_before"] == len(s["done"]) > 0


def test_first_error_does_not_depend_on_chance(data):
    """Fresh models, fresh graphs: backward of run B always stops at the same LayerNorm."""
    for seed in (0, 1):
        model = build_model(model_config(data, inplace=True), seed=seed)
        _, loss = model(*probe_batch(data))
        ln2 = model.blocks[-1].ln2
        seen = []
        for node in graph_nodes(loss.grad_fn):
            node.register_prehook(lambda g, node=node, seen=seen: seen.append(node))
        with pytest.raises(RuntimeError, match=INPLACE_ERROR) as info:
            loss.backward()
        failing = seen[-1]
        assert failing.name() == "NativeLayerNormBackward0"
        assert any(getattr(n, "variable", None) is ln2.weight for n, _ in failing.next_functions)
        assert VERSIONS.search(str(info.value)).groups() == ("4", "3")


# --------------------------------------------------------------------------------------------
# breaks/25-inplace-safe


@pytest.mark.parametrize("name", SAFE)
def test_safe_case_completes_with_equal_results(name):
    result = completed(name)
    assert result.namespace["same"] is True
    assert result.stdout.rstrip().endswith(("True", "recorded = False"))


@pytest.mark.parametrize("name", UNSAFE)
def test_unsafe_case_raises_what_the_manifest_declares(name):
    assert cases.manifest()[name].match in str(raised(name).error)


def test_unsafe_cases_show_the_out_of_place_version_first():
    assert "backward() ✓" in raised("safe_counter_relu_tanh.py").stdout
    assert "backward() ✓" in raised("safe_counter_dropout_softmax.py").stdout
    assert "loss_first.backward(); optimizer.step(): ✓" in raised("safe_counter_step_before_backward.py").stdout
    assert "w._version = 1" in raised("safe_counter_leaf.py").stdout
    assert "q = q / math.sqrt(C): backward() ✓" in raised("safe_counter_split_view.py").stdout


def test_leaf_is_refused_at_the_op_not_at_backward():
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.add_(1.0)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        F.relu_(w)
    with torch.no_grad():
        w.add_(1.0)
    w.data.add_(1.0)
    w.detach().add_(1.0)
    assert torch.equal(w.detach(), torch.full((3,), 4.0))


def test_why_the_safe_ones_are_safe():
    """The saved slots the safe page's explanations rely on."""
    dropout = completed("safe_dropout_linear.py").stdout
    assert "MulBackward0 {'other': [4, 32]}" in dropout
    assert "AddmmBackward0 {'mat1': [4, 8], 'mat2': [8, 32]}" in dropout
    masked = completed("safe_masked_fill.py").stdout
    assert "DivBackward0 {'other': []}" in masked and "BmmBackward0 {'mat2'" in masked
    assert "EmbeddingBackward0 {'indices': [16, 9]}" in completed("safe_embedding_sum.py").stdout
    x = torch.randn(4, 4, requires_grad=True)
    assert saved_tensor_slots((x - x.amax(-1, keepdim=True)).grad_fn) == set()  # the subtraction before exp_
    assert saved_tensor_slots(F.relu(F.linear(x, x)).grad_fn) == {"result"}


def test_summary_table_verdicts():
    found = {name: cases.execute(name).outcome for name in SAFE + UNSAFE}
    for language in ("es", "en"):
        rows = summary.rows(language, found)
        words = summary.WORDS[language]
        assert [case for case, *_ in rows] == [cases.manifest()[n].extra["case"][language] for n in SAFE + UNSAFE]
        assert [verdict for _, verdict, _ in rows[: len(SAFE)]] == [words["safe"]] * len(SAFE)
        unsafe = [verdict for _, verdict, _ in rows[len(SAFE) :]]
        assert unsafe == [f"{words['unsafe']} ({words[cases.manifest()[n].extra['raised_at']]})" for n in UNSAFE]
        assert all(how.split("\n")[1].startswith("RuntimeError: ") for *_, how in rows[len(SAFE) :])
    at_op = [n for n in UNSAFE if cases.manifest()[n].extra["raised_at"] == "op"]
    assert at_op, "the summary shows cases PyTorch refuses at the op itself"
    for name in at_op:  # the line the summary shows is the example's own write, not its backward
        assert found[name].line and found[name].line in cases.manifest()[name].path.read_text("utf-8")
        assert not found[name].line.endswith(".backward()")
    assert all(found[n].line.endswith(".backward()") for n in UNSAFE if n not in at_op)


def test_an_output_of_split_is_refused_at_the_op_as_in_the_attention_block():
    """The split counter-example's message, and the attention block's own line: every output of
    qkv(x).split(C, dim=2), and a view taken from one, refuses an in-place write while autograd
    records; under no_grad, or into a clone, the write is allowed."""
    error = raised("safe_counter_split_view.py").error
    assert "is a view and is being modified inplace" in str(error)
    assert "This view is the output of a function that returns multiple views" in str(error)
    from minigpt.data import build_dataset

    model = build_model(model_config(build_dataset()), seed=0)
    attn, C = model.blocks[0].attn, model.config.n_embd
    x = torch.randn(2, 5, C)
    for write in (lambda q: q.mul_(2.0), lambda q: q.view(2, 5, attn.n_head, -1).transpose(1, 2).mul_(2.0)):
        q, k, v = attn.qkv(x).split(C, dim=2)
        with pytest.raises(RuntimeError, match="returns multiple views"):
            write(q)
    with torch.no_grad():
        attn.qkv(x).split(C, dim=2)[0].mul_(2.0)
    attn.qkv(x).split(C, dim=2)[0].clone().mul_(2.0)


def test_summary_says_when_a_case_differs_from_the_manifest():
    found = {name: cases.execute(name).outcome for name in SAFE + UNSAFE}
    found[SAFE[0]] = cases.Outcome(SAFE[0], False, seen="same is False")
    rows = summary.rows("en", found)
    assert rows[0][1] == "differs from examples/cases.toml: same is False"
