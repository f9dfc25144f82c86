"""The diagnoser's own tests: a package, so that its conftest.py is not taken for tests/conftest.py."""
