"""The diagnoser's own tests (a package, so that its conftest is not the repository's tests/conftest)."""
