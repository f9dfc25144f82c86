"""Behaviour drift across PyTorch releases: the claims the prose relies on (phase25.claims), one JSON
record per release (phase25.record), and `python -m phase25` to record, check and report them."""
