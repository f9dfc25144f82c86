"""phase25.history: what changed across the recorded releases, and what the first draft quoted.

Synthetic records pin the rules (a change, a revert, not measured, not applicable); the committed
records, whatever records/ holds today, are checked against the records themselves."""

import itertools
import re

import pytest

from phase25 import claims, history, record

NA = history.NOT_APPLICABLE_PREFIX


def make(release, message=None, claims_=None, compile_=None):
    found = {
        "torch": f"{release}+cpu",
        "release": release,
        "message": dict(message or {}),
        "claims": {name: {"holds": holds, "seen": seen} for name, (holds, seen) in (claims_ or {}).items()},
    }
    if compile_ is not None:
        found["compile"] = compile_
    return found


def records_of(*made):
    return {r["release"]: r for r in made}


def one(records, what):
    return next(h for h in history.history(records) if h.thing.what == what)


def test_a_change_is_the_first_release_with_the_new_value():
    records = records_of(
        make("2.11.0", {"output_of": "AddBackward0"}),
        make("2.10.0", {"output_of": "AddBackward0"}),
        make("2.13.0", {"output_of": "Add"}),
        make("2.14.1", {"output_of": "Add"}),
    )
    h = one(records, "message.output_of")
    assert (h.first.value, h.first.releases) == ("AddBackward0", ("2.10.0", "2.11.0"))
    assert [(s.start, s.value) for s in h.changes] == [("2.13.0", "Add")]
    assert h.measured == ("2.10.0", "2.11.0", "2.13.0", "2.14.1")


def test_a_revert_is_a_change_too():
    records = records_of(
        *(make(r, {"hint_off": v}) for r, v in (("1.13.1", "a"), ("2.0.1", "b"), ("2.1.2", "b"), ("2.2.2", "a")))
    )
    h = one(records, "message.hint_off")
    assert [(s.start, s.value) for s in h.spans] == [("1.13.1", "a"), ("2.0.1", "b"), ("2.2.2", "a")]


def test_a_thing_a_record_lacks_is_not_measured_there_and_changes_nothing():
    holds = (True, "fine")
    records = records_of(
        make("2.10.0", claims_={"c": holds}),
        make("2.11.0"),
        make("2.12.1", claims_={"c": holds}),
        make("2.13.0", {"output_of": "Add"}, {"c": holds, "new": holds}),
    )
    c = one(records, "claim c")
    assert not c.changed and c.measured == ("2.10.0", "2.12.1", "2.13.0")
    new = one(records, "claim new")
    assert not new.changed and new.first.start == "2.13.0"
    assert one(records, "message.output_of").measured == ("2.13.0",)
    assert all(h.thing.what != "message.tensor" for h in history.history(records))  # measured nowhere


def test_a_part_the_message_lacks_is_a_value():
    records = records_of(make("2.10.0", {"hint_off": None}), make("2.11.0", {"hint_off": "use anomaly mode"}))
    assert [s.value for s in one(records, "message.hint_off").spans] == [None, "use anomaly mode"]


def test_not_applicable_is_a_value_of_its_own_with_its_reason():
    missing = (False, f"{NA}torch.func is missing from torch {{}} (examples/x.py must complete)")
    records = records_of(
        make("1.13.1", claims_={"c": (False, missing[1].format("1.13.1+cu117"))}),
        make("2.0.1", claims_={"c": (False, missing[1].format("2.0.1+cu117"))}),  # the same reason: no change
        make("2.1.2", claims_={"c": (False, "it failed")}),
        make("2.2.2", claims_={"c": (True, "fine")}),
    )
    h = one(records, "claim c")
    assert [(s.start, s.value) for s in h.spans] == [("1.13.1", "n/a"), ("2.1.2", "fails"), ("2.2.2", "holds")]
    assert h.first.detail == "torch.func is missing" and history.missing_api(h.first.detail) == "torch.func"


def test_not_applicable_then_holds_where_the_api_appears():
    records = records_of(
        make("1.13.1", claims_={"c": (False, f"{NA}torch.x is missing from torch 1.13.1")}),
        make("2.0.1", claims_={"c": (True, "fine")}),
    )
    assert [(s.start, s.value) for s in one(records, "claim c").changes] == [("2.0.1", "holds")]


def test_compile_sections_per_backend():
    refused = {"not_applicable": f"{NA}torch 2.0.1+cu117 refuses torch.compile here (Python 3.11+ not yet supported)"}
    runs = {"b_raised_at": "backward", "b_hint": "h"}
    records = records_of(
        make("1.13.1", compile_={"eager": {"not_applicable": f"{NA}torch.compile is missing from torch 1.13.1"}}),
        make("2.0.1", compile_={"eager": refused}),
        make("2.1.2", compile_={"eager": runs}),
        make("2.2.2"),  # no compile section: not measured
        make("2.3.1", compile_={"eager": dict(runs, b_raised_at="compile")}),
    )
    runs_at = one(records, "compile.eager")
    assert [(s.start, s.value) for s in runs_at.spans] == [("1.13.1", "n/a"), ("2.0.1", "n/a"), ("2.1.2", "available")]
    assert runs_at.spans[1].detail.startswith("torch refuses torch.compile here")
    raised = one(records, "compile.eager.b_raised_at")  # measured only where the backend ran
    assert raised.measured == ("2.1.2", "2.3.1") and [s.value for s in raised.spans] == ["backward", "compile"]
    assert not one(records, "compile.eager.b_hint").changed


def test_things_follow_the_record_order():
    records = records_of(
        make(
            "2.10.0",
            {"tensor": "t"},
            {"b": (True, ""), "a": (True, "")},
            {"inductor": {"not_applicable": f"{NA}no C++ compiler for inductor (CXX)"}, "eager": {"b_hint": "h"}},
        )
    )
    whats = [h.thing.what for h in history.history(records, claim_names=["b"])]
    assert whats == [
        "message.tensor",
        "compile.eager",
        "compile.eager.b_hint",
        "compile.inductor",
        "claim b",
        "claim a",
    ]


def test_compress_and_excerpt():
    recorded = ["1.13.1", "2.0.1", "2.1.2", "2.10.0", "2.11.0"]
    assert history.compress(["2.11.0", "1.13.1", "2.0.1", "2.10.0"], recorded) == [
        ("1.13.1", "2.0.1"),
        ("2.10.0", "2.11.0"),
    ]
    old = "enable anomaly detection to find the operation, with torch.autograd.set_detect_anomaly(True)."
    new = old.replace("(True)", "(True, check_nan=False)")
    shown = history.excerpt(new, old, width=40)
    assert "check_nan=False" in shown and shown.startswith("…") and len(shown) <= 40 + 2 + 14
    assert history.excerpt("short", "other") == "short"
    assert history.excerpt(new, width=20).startswith("enable") and history.excerpt(new, width=20).endswith("…")


# --- the first draft's quotes


@pytest.fixture(scope="module")
def seed():
    return history.draft_quotes()


def test_the_quotes_are_read_from_the_errata_example(seed):
    # a quote too long for one line is split into adjacent string literals: join them again
    source = re.sub(r'"\s*\n\s*"', "", history.ERRATA.read_text(encoding="utf-8"))
    assert {"message", "shape", "producer", "torch"} <= set(seed)
    for value in seed.values():
        assert value in source, value


def findings(records, seed):
    return {f.key: f for f in history.draft_findings(records, seed)}


def test_draft_quotes_match_a_record_that_prints_them(seed):
    node = seed["producer"]
    now, expected = re.search(r"version (\d+); expected version (\d+)", seed["message"]).groups()
    drafted = make(
        "1.5.0",
        {
            "anomaly_on": f"RuntimeError: ... [torch.FloatTensor [batch, tokens, n_embd]], {seed['message']} Hint: ...",
            "tensor": "[torch.FloatTensor [batch, tokens, n_embd]]",
            "output_of": node,
            "version_now": now,
            "version_expected": expected,
            "anomaly_node": node,
        },
        {history.RAISES_WITH_ANOMALY: (True, ""), history.RAISES_WITHOUT_ANOMALY: (False, "no error")},
    )
    today = make(
        "2.13.0",
        {
            "anomaly_on": "... which is output 0 of Add, is at version 2·n_layer; expected version "
            "2·n_layer-1 instead. Hint: ...",
            "tensor": "[torch.FloatTensor [batch, tokens, n_embd]]",
            "output_of": "Add",
            "version_now": "2·n_layer",
            "version_expected": "2·n_layer-1",
            "anomaly_node": f"{node}0",
        },
        {history.RAISES_WITH_ANOMALY: (True, ""), history.RAISES_WITHOUT_ANOMALY: (True, "")},
    )
    found = findings(records_of(drafted, today), seed)
    for key in ("message", "producer", "node", "versions"):
        assert found[key].printed_by == ("1.5.0",), key  # the suffixed name, the generic versions: no match
    assert found["shape"].printed_by == ("1.5.0", "2.13.0")
    assert [s.value for s in found["producer"].instead] == [node, "Add"]
    assert [s.value for s in found["torch"].instead] == ["fails", "holds"]


def test_versions_match_for_some_number_of_blocks(seed):
    now, expected = (int(n) for n in re.search(r"version (\d+); expected version (\d+)", seed["message"]).groups())
    generic = make("2.10.0", {"version_now": "2·n_layer", "version_expected": "2·n_layer-1"})
    matches = any(2 * n == now and 2 * n - 1 == expected for n in range(1, now + 1))
    assert bool(findings(records_of(generic), seed)["versions"].printed_by) == matches
    fitting = dict(seed, message=seed["message"].replace(f"expected version {expected}", f"expected version {now - 1}"))
    if now % 2 == 0:
        assert findings(records_of(generic), fitting)["versions"].printed_by == ("2.10.0",)


def test_the_draft_torch_range_counts_only_releases_inside_it(seed):
    raises = {history.RAISES_WITH_ANOMALY: (True, "")}
    test = history.torch_range(seed["torch"])
    below = next(r for r in ("0.1.0", "0.4.0", "1.0.0") if not test(r))
    found = findings(records_of(make(below, claims_=raises), make("2.13.0", claims_=raises)), seed)["torch"]
    assert found.printed_by == ("2.13.0",)


# --- the committed records


@pytest.fixture(scope="module")
def committed():
    return record.committed()


def test_the_history_of_the_committed_records(committed):
    releases = history.ordered(committed)
    changes = history.history(committed, claims.CLAIMS)
    measured = {r for h in changes for r in h.measured}
    assert releases[0] in measured and releases[-1] in measured
    assert releases == sorted(releases, key=record.release_key) and set(releases) == set(committed)
    for h in changes:
        assert list(h.measured) == [r for r in releases if history.observe(committed[r], h.thing) is not None]
        for previous, span in itertools.pairwise(h.spans):  # a change differs from the record measured just before
            before = committed[previous.releases[-1]]
            assert h.measured.index(span.start) == h.measured.index(previous.releases[-1]) + 1
            assert history.observe(before, h.thing) != history.observe(committed[span.start], h.thing)
        for span in h.spans:  # and within a span, nothing did
            values = {(history.observe(committed[r], h.thing).value) for r in span.releases}
            assert values == {span.value}, h.thing


def test_every_difference_drift_record_reports_is_in_the_history(committed):
    releases = history.ordered(committed)
    starts = {(h.thing.what, s.start) for h in history.history(committed, claims.CLAIMS) for s in h.changes}
    for old, new in itertools.pairwise(releases):
        for what, *_ in record.differences(committed[old], committed[new]):
            if what.startswith("compile.") and what.endswith(".not_applicable"):
                what = what.rsplit(".", 1)[0]  # whether the backend runs: one thing, "compile.<backend>"
            if what.count(".") == 2 and any(
                "not_applicable" in committed[r]["compile"][what.split(".")[1]] for r in (old, new)
            ):
                continue  # a field of a backend that cannot run on one of them: not measured there
            assert (what, new) in starts, (what, old, new)


def test_the_draft_findings_on_the_committed_records(committed, seed):
    found = history.draft_findings(committed, seed)
    assert [f.key for f in found] == ["message", "producer", "node", "versions", "shape", "torch"]
    for f in found:
        assert set(f.printed_by) <= set(committed)
        assert [r for s in f.instead for r in s.releases] == [
            r
            for r in history.ordered(committed)
            if f.key == "torch" or "anomaly_on" in committed[r]["message"] or f.key != "message"
        ]
    by_key = {f.key: f for f in found}
    node = re.compile(rf"\b{seed['producer']}\b")
    assert by_key["node"].printed_by == tuple(
        r
        for r in history.ordered(committed)
        if any(node.search(committed[r]["message"].get(p) or "") for p in ("anomaly_off", "anomaly_on", "anomaly_node"))
    )
    assert by_key["producer"].printed_by == tuple(
        r for r in history.ordered(committed) if committed[r]["message"].get("output_of") == seed["producer"]
    )
