"""One JSON record per torch release: the message's variable parts and every claim's outcome.

    {"torch": "2.13.0+cpu", "release": "2.13.0", "python": "3.11.7", "measured": "2026-12-02",
     "message": {"anomaly_off": "...", "tensor": "...", "output_of": "Add", ...},
     "compile": {"eager": {"a_gradients": "bitwise", "b_raised_at": "backward", ...}, ...},
     "claims": {"forward-identical": {"holds": true}, "x": {"holds": false, "seen": "..."}, ...}}

A record holds what the release decides, nothing of this project's source or sizes (shapes as
"[batch, tokens, n_embd]", versions as "2·n_layer", the line anomaly mode points at as "residual add
k of n", what a check saw only as a failing claim's evidence): resizing the mini-GPT leaves it valid.
Records compare on message parts, compile fields and whether each claim holds; what one lacks is
"not measured" there, not a difference.
"""

import datetime
import json
import platform
from pathlib import Path
from typing import Any

import torch

from minigpt import message
from minigpt.data import probe_batch
from minigpt.experiments import data, run_b
from minigpt.model import DEVICES
from minigpt.train import model_config
from phase25.compiled import BACKENDS
from phase25.experiments import compiled

from . import claims
from .releases import RECORDS, release_key

# The message parts a record keeps, in the order reports and the compatibility page show them.
MESSAGE_PARTS = tuple(
    "anomaly_off anomaly_on tensor output_of version_now version_expected hint_off hint_on anomaly_node "
    "anomaly_points_at".split()
)
# The parts of the message both sections keep (a compile section's as b_<part>), sizes named by generic
SIZED_PARTS = ("tensor", "output_of", "version_now", "version_expected")
# What a record keeps of each torch.compile backend: run A's gradients against eager run A's
# (phase25.claims.compiled_gradients), and what run B raised (phase25.compiled.Compiled), its message
# taken apart like the eager one; only "not_applicable" where the backend cannot run.
COMPILE_FIELDS = tuple(
    "a_gradients a_raised_at a_error_type b_raised_at b_error_type b_wraps b_message b_tensor b_output_of "
    "b_version_now b_version_expected b_hint".split()
)


Record = dict[str, Any]  # one release's record, as its JSON file holds it


class RecordError(Exception):
    """A record file that cannot be read: printed as one line."""


def model_sizes() -> dict[str, tuple[str, str]]:
    """What run B's message says that depends on the mini-GPT, not on torch (the activation's shape, the
    two versions), each with the name a record writes instead."""
    x, _ = probe_batch(data())
    config = model_config(data())
    writes = 2 * config.n_layer  # every block adds to the residual twice, in place
    return {
        "shape": (f"[{x.size(0)}, {x.size(1)}, {config.n_embd}]", "[batch, tokens, n_embd]"),
        "version_now": (str(writes), "2·n_layer"),
        "version_expected": (str(writes - 1), "2·n_layer-1"),
    }


def generic(error: str | None, sizes: dict[str, tuple[str, str]] | None = None) -> tuple[str | None, dict[str, Any]]:
    """(error text, its parts) with the model's sizes replaced by their names (model_sizes)."""
    if error is None:
        return None, {}
    sizes = sizes or model_sizes()
    parts = message.parts(error)
    shape, shape_name = sizes["shape"]
    text = error.replace(shape, shape_name)
    parts["tensor"] = parts["tensor"] and parts["tensor"].replace(shape, shape_name)
    for part, phrase in (("version_now", "is at version {};"), ("version_expected", "expected version {} instead")):
        concrete, name = sizes[part]
        if parts[part] == concrete:
            text = text.replace(phrase.format(concrete), phrase.format(name))
            parts[part] = name
    return text, parts


def measure_message() -> Record:
    off, on = run_b(False), run_b(True)
    text_off, parts_off = generic(off.error if off else None)
    text_on, parts_on = generic(on.error if on else None)
    return {
        "anomaly_off": text_off,
        "anomaly_on": text_on,
        **{part: parts_off.get(part) for part in SIZED_PARTS},
        "hint_off": parts_off.get("hint"),
        "hint_on": parts_on.get("hint"),
        "anomaly_node": on and message.anomaly_node(on.warnings),
        "anomaly_points_at": on and claims.anomaly_points_at(on.warnings),
    }


def measure_compile(backend: str) -> Record:
    a, b = compiled(backend, inplace=False), compiled(backend, inplace=True)
    if b.not_applicable:
        return {"not_applicable": b.not_applicable}
    text, parts = generic(b.error if b.raises else None)
    return {
        "a_gradients": claims.compiled_gradients(backend)[0],
        "a_raised_at": a.raised_at,
        "a_error_type": a.error_type,
        "b_raised_at": b.raised_at,
        "b_error_type": b.error_type,
        "b_wraps": b.wraps,
        "b_message": text,
        **{f"b_{part}": parts.get(part) for part in (*SIZED_PARTS, "hint")},
    }


def measure(outcomes: dict[str, claims.Outcome] | None = None, compile: bool = True) -> Record:
    """The record of the installed torch (claims evaluated now unless given); measured on a GPU, it
    names the GPU and keeps what every claim saw."""
    outcomes = outcomes or claims.evaluate_all()
    device = claims.device()
    return {
        "torch": torch.__version__,
        "release": claims.release(),
        "python": platform.python_version(),
        "measured": datetime.date.today().isoformat(),
        **({} if device == "cpu" else {"device": device, "gpu": torch.cuda.get_device_name()}),
        "message": measure_message(),
        **({"compile": {backend: measure_compile(backend) for backend in BACKENDS}} if compile else {}),
        "claims": {name: claim_entry(o, keep_seen=device != "cpu") for name, o in outcomes.items()},
    }


def claim_entry(outcome: claims.Outcome, keep_seen: bool = False) -> Record:
    """What a record keeps of a claim: whether it holds, and what was seen where it does not (or keep_seen)."""
    if outcome.holds and not keep_seen:
        return {"holds": True}
    return {"holds": outcome.holds, "seen": generic(outcome.seen)[0] or outcome.seen}


def completed(live: Record, committed_record: Record | None) -> Record:
    """live, with what it did not measure (a claim the committed record has and this checkout no
    longer makes, a compile section) taken from the committed record of the same release, if any."""
    if committed_record is None:
        return live
    done = dict(live, claims={**committed_record["claims"], **live["claims"]})
    if "compile" not in live and "compile" in committed_record:
        done["compile"] = committed_record["compile"]
    return done


def outcomes(record: Record) -> dict[str, claims.Outcome]:
    """The record's claims as phase25.claims.Outcome objects (for claims.require)."""
    return {
        name: claims.Outcome(name, c["holds"], c.get("seen", ""), record["release"])
        for name, c in record["claims"].items()
    }


def path_for(release_name: str, folder: str | Path = RECORDS, device: str = "cpu") -> Path:
    """folder/torch-<release>.json; measured on another device, folder/torch-<release>-<device>.json."""
    return Path(folder) / f"torch-{release_name}{'' if device == 'cpu' else f'-{device}'}.json"


def is_device_record(path: str | Path) -> bool:
    """Is this the record of a GPU run (torch-2.11.0-cuda.json), not of a release on the CPU?"""
    return Path(path).stem.endswith(tuple(f"-{d}" for d in DEVICES if d != "cpu"))


def write(record: Record, folder: str | Path = RECORDS, path: str | Path | None = None) -> Path:
    """Write record as folder/torch-<release>[-<device>].json, or to path when given; returns the path."""
    path = Path(path) if path else path_for(record["release"], folder, record.get("device", "cpu"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load(path: str | Path) -> Record:
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(f"{path}: no such record") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(f"{path}: not a readable JSON record ({exc})") from None
    missing = [k for k in ("release", "message", "claims") if not isinstance(record, dict) or k not in record]
    if missing:
        raise RecordError(f"{path}: not a behaviour record (missing {', '.join(missing)})")
    return record


def committed(folder: str | Path = RECORDS) -> dict[str, Record]:
    """release -> record, for every record in folder measured on the CPU, oldest release first."""
    records = [load(p) for p in Path(folder).glob("torch-*.json") if not is_device_record(p)]
    return {r["release"]: r for r in sorted(records, key=lambda r: release_key(r["release"]))}


def device_records(device: str = "cuda", folder: str | Path = RECORDS) -> dict[str, Record]:
    """release -> record, for every record in folder measured on device, oldest release first."""
    records = [load(p) for p in Path(folder).glob(f"torch-*-{device}.json")]
    return {r["release"]: r for r in sorted(records, key=lambda r: release_key(r["release"]))}


def differences(old: Record, new: Record) -> list[tuple[str, Any, Any]]:
    """[(what, old value, new value)] where two records disagree on what PyTorch decides."""
    rows = []
    for part in MESSAGE_PARTS:
        a, b = old["message"].get(part), new["message"].get(part)
        if a != b:
            rows.append((f"message.{part}", a, b))
    for backend in [b for b in BACKENDS if b in old.get("compile", {}) and b in new.get("compile", {})]:
        a, b = old["compile"][backend], new["compile"][backend]
        for field in ("not_applicable",) + COMPILE_FIELDS:
            if a.get(field) != b.get(field):
                rows.append((f"compile.{backend}.{field}", a.get(field), b.get(field)))
    for name in sorted(set(old["claims"]) & set(new["claims"])):  # a claim one lacks: not measured
        a, b = (r["claims"][name]["holds"] for r in (old, new))
        if a != b:
            rows.append((f"claim {name}", a, b))
    return rows


def format_differences(old: Record, new: Record) -> str:
    """Readable lines: what changed from old's release to new's (or that nothing did)."""
    rows = differences(old, new)
    head = f"torch {old['release']} -> {new['release']}:"
    if not rows:
        return f"{head} no difference"

    def show(v: Any) -> str:
        return "(absent)" if v is None else json.dumps(v, ensure_ascii=False)

    return "\n".join([head] + [f"  {what}\n    - {show(a)}\n    + {show(b)}" for what, a, b in rows])
