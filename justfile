# The phase-25 reproducer. Arguments are key=value, passed through to `minigpt`.
#   just phase-25-train inplace=false
#   just phase-25-train inplace=true detect_anomaly=true
#   just phase-25-grad-compare experiments/25-A experiments/25-B

# Train run A (inplace=false) or run B (inplace=true); `minigpt help` lists every key
phase-25-train *ARGS:
    python -m minigpt train {{ARGS}}

# Compare the probe gradients of two experiments (table + figure in experiments/)
phase-25-grad-compare DIR_A DIR_B *ARGS:
    python -m minigpt grad-compare {{DIR_A}} {{DIR_B}} {{ARGS}}

# Run B made truly silent (identity saved-tensor hooks), then compared with run A
phase-25-silent BYPASS="hooks" *ARGS:
    python -m minigpt train inplace=true bypass={{BYPASS}} {{ARGS}}
    python -m minigpt grad-compare experiments/25-A experiments/25-B-{{BYPASS}}

# Which in-place write overwrote which saved tensor, at which line (one forward, no backward)
phase-25-diagnose *ARGS:
    python -m minigpt diagnose {{ARGS}}
