"""The system tools the tests need (.ci/system-tools.toml): python3 .ci/system_tools.py missing
prints the Debian packages of those missing here, one a line (nothing when all are here)."""

import importlib.util
import shutil
import sys
import sysconfig
import tomllib
from pathlib import Path

LIST = Path(__file__).with_name("system-tools.toml")


def load(path: Path = LIST) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def present(tool: dict) -> bool:
    if "module" in tool:
        return importlib.util.find_spec(tool["module"]) is not None
    if "header" in tool:
        return Path(sysconfig.get_paths()["include"], tool["header"]).is_file()
    return shutil.which(tool["command"]) is not None


def missing(path: Path = LIST) -> list[str]:
    """The Debian packages of the tools missing here, in the file's order, once each."""
    packages = [tool["apt"] for tool in load(path)["apt"].values() if not present(tool)]
    return list(dict.fromkeys(packages))


if __name__ == "__main__":
    if sys.argv[1:] != ["missing"]:
        sys.exit("usage: python3 .ci/system_tools.py missing")
    print("\n".join(missing()))
