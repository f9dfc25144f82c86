"""The CI script, .ci/run, in a clean Debian bookworm root, as the workflow's test job runs it in
its container (python:3.11-bookworm): Debian's Python 3.11, no Node.js, nothing else installed.
Run as root (mmdebstrap, chroot, mounts): nox -s ci-container [-- --find-links DIR] [--keep]
[--run COMMAND] (a part of .ci/run, to rerun it).

The root is made with mmdebstrap; the repository is a fresh clone of this checkout's commit, where
.ci/run runs with CI=true, no stdin and the workflow's environment, in mount and PID namespaces of its
own. Torch's CPU wheels come from PyTorch's CPU index, or --find-links DIR; this machine's added
certificate authorities are trusted. The root is removed unless --keep. Exit status: .ci/run's; 2
when the root cannot be made (one line says why).
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"
SUITE, MIRROR = "bookworm", "http://deb.debian.org/debian"
# Debian's Python and pip, and git (the workflow's image has it); no Node.js, no Chromium.
PACKAGES = ["python3", "python3-pip", "git", "ca-certificates"]
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# A network whose proxy re-signs TLS: the certificate authorities this machine adds to Debian's
# are trusted inside too, and the variables that point its tools (pip, Node) at the bundle are set
# there as they are here. Nothing of the sort on a plain network.
HOST_CAS = Path("/usr/local/share/ca-certificates")
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
CA_VARIABLES = "PIP_CERT REQUESTS_CA_BUNDLE SSL_CERT_FILE NODE_EXTRA_CA_CERTS GIT_SSL_CAINFO CURL_CA_BUNDLE".split()


def fail(why: str) -> None:
    print(f"ci-container: {why}", file=sys.stderr)
    sys.exit(2)


def workflow_env() -> dict[str, str]:
    """The workflow's top-level env (PIP_EXTRA_INDEX_URL: PyTorch's CPU index, ...)."""
    block = re.search(r"^env:\n((?:  .*\n)+)", WORKFLOW.read_text(encoding="utf-8"), re.MULTILINE)
    assert block, f"no top-level env in {WORKFLOW}"
    pairs = (re.match(r'\s+(\w+):\s*"?([^"#\s]*)"?', line) for line in block[1].splitlines())
    return {m[1]: m[2] for m in pairs if m}


def remove(root: Path) -> None:
    # --one-file-system: never into anything still mounted under the root
    subprocess.run(["rm", "-rf", "--one-file-system", str(root)], check=True)
    root.with_name(root.name + ".ci-container").unlink(missing_ok=True)


def make_root(root: Path) -> None:
    if os.geteuid() != 0:
        fail("needs root (mmdebstrap, chroot and mounts): run it as root")
    if not shutil.which("mmdebstrap"):
        fail("mmdebstrap is missing: apt-get install mmdebstrap")
    made_here = root.with_name(root.name + ".ci-container")  # marks a root this script makes
    if root.exists():
        if not made_here.exists():
            fail(f"{root} exists and was not made by ci-container: remove it or give another --root")
        remove(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    made_here.touch()
    command = ["mmdebstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root), MIRROR]
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode:
        lines = [line for line in done.stderr.splitlines() if line.startswith("E:")] or done.stderr.splitlines()
        fail(f"could not make the Debian root: {lines[0] if lines else f'mmdebstrap exit {done.returncode}'}")
    shutil.copy("/etc/resolv.conf", root / "etc" / "resolv.conf")


def trust_host_cas(root: Path) -> dict[str, str]:
    """The host's added certificate authorities, trusted in the root; the variables to set there."""
    if not (added := sorted(HOST_CAS.glob("*.crt"))):
        return {}
    for certificate in added:
        shutil.copy(certificate, root / HOST_CAS.relative_to("/") / certificate.name)
    subprocess.run(["chroot", str(root), "update-ca-certificates"], check=True, capture_output=True)
    print(f"ci-container: trusting this machine's added CAs too ({', '.join(c.name for c in added)})", flush=True)
    return {name: CA_BUNDLE for name in CA_VARIABLES if os.environ.get(name) == CA_BUNDLE}


def clone(root: Path) -> str:
    git = ["git", "-C", str(REPO)]
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    if subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True).stdout:
        print("ci-container: uncommitted changes are not in the run (a clone of HEAD)", file=sys.stderr)
    repo = root / "repo"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", "--no-hardlinks", str(REPO), str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "checkout", "--quiet", "--detach", commit], check=True)
    return commit


def run_ci(root: Path, wheels: Path | None, certificates: dict[str, str], run: str = "bash .ci/run") -> int:
    env = {"HOME": "/root", "PATH": PATH, "LANG": "C.UTF-8", "CI": "true", **workflow_env(), **certificates}
    mounts = ['mount -t proc proc "$R/proc"', 'mount -t sysfs -o ro sysfs "$R/sys"', 'mount --rbind /dev "$R/dev"']
    if wheels:
        env.pop("PIP_EXTRA_INDEX_URL", None)
        env["PIP_FIND_LINKS"] = "/wheels"
        (root / "wheels").mkdir(exist_ok=True)
        mounts.append(f'mount --bind -o ro "{wheels}" "$R/wheels"')
    chroot = ['exec chroot "$R" /usr/bin/env -i', *(f"{k}={v}" for k, v in env.items())]
    inside = " ".join([*chroot, "bash -c " + shlex.quote(f"cd /repo && exec {run}") + " < /dev/null"])
    script = "set -e; " + "; ".join(mounts) + "; " + inside
    command = ["unshare", "--mount", "--propagation", "private", "--pid", "--fork", "--kill-child", "sh", "-c", script]
    shown = run if len(run) <= 40 else run[:40] + " ..."
    print(f"ci-container: {shown} in {root} with {' '.join(f'{k}={v}' for k, v in env.items())}", flush=True)
    return subprocess.run(command, env=dict(os.environ, R=str(root))).returncode


def main() -> int:
    parser = argparse.ArgumentParser(prog="nox -s ci-container --", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root",
        type=Path,
        default=REPO / ".nox" / "ci-container" / "bookworm",
        help="where the Debian root is made (one this script made there before is removed first)",
    )
    parser.add_argument("--find-links", type=Path, help="a folder of wheels (torch's CPU wheel) for pip")
    parser.add_argument("--keep", action="store_true", help="keep the root afterwards")
    parser.add_argument("--run", default="bash .ci/run", help="the command run in the clone (a part of .ci/run)")
    args = parser.parse_args()
    if args.find_links and not args.find_links.is_dir():
        fail(f"--find-links {args.find_links}: not a folder")
    root, start = args.root.resolve(), time.monotonic()
    make_root(root)
    made = time.monotonic()
    size = subprocess.run(["du", "-sh", str(root)], capture_output=True, text=True).stdout.split()[0]
    print(f"ci-container: Debian {SUITE} root made in {made - start:.0f} s ({size})", flush=True)
    try:
        commit = clone(root)
        status = run_ci(root, args.find_links.resolve() if args.find_links else None, trust_host_cas(root), args.run)
    finally:
        if not args.keep:
            remove(root)
    minutes = (time.monotonic() - made) / 60
    print(f"ci-container: {args.run} on {commit[:12]} exited {status} after {minutes:.1f} min", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
