from minigpt import message
from minigpt.experiments import run_b

runs = {anomaly: run_b(anomaly) for anomaly in (False, True)}
for anomaly, failure in runs.items():
    print(f"detect_anomaly={anomaly}: raised={failure is not None},",
          f"warnings={len(failure.warnings) if failure else 0}")

off, on = (message.parts(runs[anomaly].error) for anomaly in (False, True))
same_before_hint = (message.before_hint(runs[False].error)
                    == message.before_hint(runs[True].error))
print(f"{same_before_hint = }")
failing = message.anomaly_node(runs[True].warnings)
print(f"anomaly_node(warnings) = {failing}")


# %% hidden checks: what the page says of this example, and the values its prose quotes

from minigpt import message
from execbook import glue

assert all(runs[anomaly] is not None for anomaly in (False, True)), "the page says both raise"
assert message.before_hint(runs[False].error) == message.before_hint(runs[True].error), \
    "the page says the messages agree up to the hint"
glue("hint_off", off["hint"])
glue("hint_on", on["hint"])
glue("msg_version_now", off["version_now"])
glue("msg_version_saved", off["version_expected"])
glue("failing_node", failing)
