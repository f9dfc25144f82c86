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
