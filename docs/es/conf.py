import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conf_shared import configure  # noqa: E402

globals().update(configure("es", project="Fase 25: operaciones in-place y autograd"))
