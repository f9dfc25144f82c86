"""``python -m inplace_doctor [--steps N|all] SCRIPT.py [ARGS...]`` (see runner.py)."""

import sys

from .runner import main

if __name__ == "__main__":
    sys.exit(main())
