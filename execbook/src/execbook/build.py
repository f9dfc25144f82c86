"""Build the book: `python -m execbook build [LANGUAGE ...]` (CONTRIBUTING.md, "How the book builds").
A failure ends it with the page, the example file and line, the reason and what to do (`explain`)."""

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING

from nbformat import NotebookNode

from . import cases, config, deps, gluereport, kernel, lifetime, lint, pages, quotes, source, store, tracebacks

if TYPE_CHECKING:
    from jupyter_cache.cache.main import JupyterCacheBase
    from jupyter_client.manager import AsyncKernelManager

WORKERS = 2
PROGRESS_S = 30  # a cell running longer says which statement runs, this often
KERNEL_START_S = 120
KERNEL_NUMBERS = itertools.count()  # each kernel's sockets in a folder of its own
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class BuildFailed(Exception):
    """The build stopped: problems is the report (one paragraph each), summary its last line."""

    def __init__(self, problems: list[str] | str, summary: str = "the site was not updated") -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.summary = summary
        super().__init__("\n\n".join(self.problems))


def say(line: str) -> None:
    print(f"docs: {line}", flush=True)


def check_sources() -> dict[str, NotebookNode]:
    """docname -> the notebook of every executed page (one serves every language), or BuildFailed."""
    found = lint.problems()  # the sources as written, executing nothing (python -m execbook check)
    if found:
        summary = f"{len(found)} problem(s) in the sources (python -m execbook check lists them in seconds)"
        raise BuildFailed("\n".join(map(str, found)), f"{summary}; the site was not updated")
    for note in quotes.flipped(config.MANIFEST):  # an entry that no longer raises: the sentences that quoted its error
        say(note)
    problems: list[str] = []
    notebooks: dict[str, NotebookNode] = {}
    for language in config.LANGUAGES:
        for docname, path in pages.executed(language).items():
            try:
                notebooks.setdefault(docname, pages.notebook(path))
            except pages.PageError as exc:
                problems.append(f"docs/{language}/{docname}.md: {exc}")
    if problems:
        raise BuildFailed("\n".join(problems))
    return notebooks


def kernel_environment() -> None:
    """What every kernel and Sphinx inherit: this checkout's packages (the tests build copies), the build's store."""
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(config.REPO), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    )
    os.environ.update(config.environment(config.STORE))
    os.environ.setdefault("MPLBACKEND", "Agg")
    # Tiny tensors: a second intra-op thread buys little and, on a loaded 2-core machine, costs a lot.
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _cache() -> "JupyterCacheBase":
    from jupyter_cache import get_cache

    return get_cache(str(config.EXECUTION_CACHE))


def stale_pages(notebooks: dict[str, NotebookNode]) -> list[str]:
    """The executed pages whose notebook (code and fingerprint) has no execution in the cache."""
    cache, stale = _cache(), []
    for docname, notebook in notebooks.items():
        try:
            cache.match_cache_notebook(notebook)
        except KeyError:
            stale.append(docname)
    return stale


async def start_kernel(folder: str, groups: list[int]) -> "AsyncKernelManager":
    """A kernel (ipykernel over IPC sockets in folder, execbook.kernel as an extension) for the next page,
    leading a process group noted in groups: `execute` stops it and what its page started."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    # no kernel spec installed anywhere: ipykernel's own, on this Python (jupyter_client's fallback)
    specs, ip = KernelSpecManager(kernel_dirs=[]), f"{folder}/kernel-{next(KERNEL_NUMBERS)}"
    manager = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=specs, transport="ipc", ip=ip)
    # a page's code runs from the repository's root; no history written (as nbclient starts one)
    arguments = [f"--ext={__package__}.kernel", "--HistoryManager.hist_file=:memory:"]
    where = {kernel.WHERE_ENV: f"{manager.ip}.where"}  # what it runs (execbook.kernel.watch)
    await manager.start_kernel(extra_arguments=arguments, cwd=str(config.REPO), env={**os.environ, **where})
    groups.append(manager.provisioner.pgid or manager.provisioner.pid)  # type: ignore[union-attr]
    lifetime.own(groups[-1])
    return manager


async def run_page(
    docname: str, notebook: NotebookNode, kernel: "asyncio.Task[AsyncKernelManager]"
) -> tuple[float, str | None]:
    """Execute the notebook with nbclient in kernel: (seconds, the build's explanation of a failure or None)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    from . import outputs

    start = time.perf_counter()
    manager = await kernel
    cell = {"index": -1, "at": start}  # the cell that runs, since when

    def place() -> str:
        return statement(docname, notebook, int(cell["index"]), f"{manager.ip}.where")

    async def progress() -> None:  # a long cell says which statement it runs
        while True:
            await asyncio.sleep(PROGRESS_S)
            if time.perf_counter() - cell["at"] >= PROGRESS_S:
                say(f"{docname}: {place()} still running after {time.perf_counter() - cell['at']:.0f} s")

    # streams merged as they come (stdout first): how ipykernel splits them in chunks varies from run to run
    client = NotebookClient(
        notebook,
        km=manager,
        timeout=config.CELL_TIMEOUT,
        startup_timeout=KERNEL_START_S,
        record_timing=False,
        coalesce_streams=True,
        on_cell_execute=lambda cell_index, **_: cell.update(index=cell_index, at=time.perf_counter()),
    )
    error: str | None = None
    reporter = asyncio.ensure_future(progress())
    try:
        await client.async_execute()
    except CellExecutionError as failed:
        index = _failing(notebook)
        if index is not None and pages.EXAMPLE in notebook.cells[index].metadata:  # its guard, the next cell, judges
            with contextlib.suppress(CellExecutionError):
                await client.async_execute_cell(notebook.cells[index + 1], index + 1)
        error = explain(docname, notebook, failed)
    except (CellTimeoutError, DeadKernelError) as failed:
        reason = f"timed out: this statement still ran after {config.CELL_TIMEOUT} s ([tool.book] cell-timeout)"
        if isinstance(failed, DeadKernelError):
            status = await manager.provisioner.poll()  # type: ignore[union-attr]
            reason = f"the kernel ended while this statement ran: {ended(status)}"
        name = pages.example_of(notebook, int(cell["index"]))
        alone = (
            f"it alone: python -m execbook run {name}" if name else f"the page alone: python -m execbook page {docname}"
        )
        failure = cases.Failure(place(), None, "stopped", reason, f"make it faster, or run {alone}")
        error = failure.render(f"{docname} ({', '.join(config.LANGUAGES)})")
    finally:
        reporter.cancel()
        await manager.shutdown_kernel(now=True)
    if error is None:  # nothing unstable is published (execbook.outputs)
        error = "\n\n".join(outputs.unstable_outputs(docname, notebook)) or None
    return time.perf_counter() - start, error


def ended(status: int | None) -> str:
    """How a process ended, from its exit status (minus a signal's number: Popen's returncode)."""
    if status is None or status >= 0:
        return f"exited with status {status}"
    return f"killed by {signal.Signals(-status).name}" + (" (out of memory?)" if -status == signal.SIGKILL else "")


def statement(docname: str, notebook: NotebookNode, index: int, where: str) -> str:
    """The author's file and line that cell `index` runs (as kernel.watch keeps it in `where`), then the
    innermost line of the book's own modules below it."""
    frames = kernel.running(where)
    inner = frames[: next((i for i, f in enumerate(frames) if f[2] == "run_code"), len(frames))]
    places = tracebacks.Places(repo=str(config.REPO), native=tuple(config.NATIVE_SOURCES))
    ours = [(Path(p), n) for p, n, _ in inner[:-1] if places.origin(p) == "project"]
    name = pages.example_of(notebook, index)
    if name is None:  # a cell the page writes itself
        language = next(iter(config.LANGUAGES))
        starts = notebook.metadata.get("source_map", [])  # each cell's line in the page, 0-based
        line = starts[index] + 1 + inner[-1][1] if inner and 0 <= index < len(starts) else None
        place = f"docs/{language}/{docname}.md" + (f":{line}" if line else "")
    else:  # a guard's own cell is no line of the example: only its hidden checks' frames are
        guard = pages.EXAMPLE not in notebook.cells[index].metadata
        line = cases.line_in(cases.manifest()[name], inner[:-1] if guard else frames)
        place = f"examples/{name}.py" + (f":{line}" if line else "")
    deeper = [f"{places.display(str(p))}:{n}" for p, n in ours if p.parent != config.EXAMPLES]
    return place + (f" (in {deeper[0]})" if deeper else "")


def waits_for(notebooks: dict[str, NotebookNode], stale: list[str]) -> dict[str, set[str]]:
    """docname -> the other stale pages it runs after: those loading an example whose outcome its examples read."""
    loads = {d: pages.examples(notebooks[d]) for d in stale}
    reads = {d: {e for name in loads[d] for e in deps.example_entries(name)} for d in stale}
    return {d: {other for other in stale if other != d and set(loads[other]) & reads[d]} for d in stale}


def precompute(groups: list[int]) -> None:
    """Run the precompute hook (what several pages share) in a process group noted in groups; or BuildFailed."""
    if "precompute" not in config.HOOKS:
        return
    begun = time.perf_counter()
    say(f"computing the shared experiments ({WORKERS} processes) ...")
    code = f"from {__package__} import config; config.hook('precompute')({WORKERS})"
    process = subprocess.Popen(
        [sys.executable, "-c", code], cwd=config.REPO, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    groups.append(process.pid)
    lifetime.own(process.pid)
    _, stderr = process.communicate()
    if process.returncode:
        raise BuildFailed(f"the precompute hook ({config.HOOKS['precompute']}) failed:\n{stderr.strip()[-2000:]}")
    say(f"shared experiments ready in {time.perf_counter() - begun:.1f} s")


def execute(notebooks: dict[str, NotebookNode], stale: list[str]) -> None:
    """Execute the stale pages into the cache, WORKERS at a time, each once the pages it waits_for are
    done; or BuildFailed. Whatever it started is stopped however it ends."""
    if not stale:
        return
    with TemporaryDirectory(prefix="kernels-") as folder:
        groups: list[int] = []  # the process groups of the precompute hook and of the kernels
        failed: list[BaseException] = []

        def run() -> None:
            try:
                asyncio.run(_execute(notebooks, stale, folder, groups))
            except BuildFailed as error:
                failed.append(error)
            except Exception as error:  # noqa: BLE001 - a kernel that would not start or answer
                failed.append(
                    BuildFailed(f"a Jupyter kernel (python3: ipykernel) failed: {type(error).__name__}: {error}")
                )

        # Out of the main thread, where nbclient sets no signal handler of its own: the build's stay
        thread = threading.Thread(target=run, daemon=True)
        try:
            precompute(groups)
            thread.start()
            thread.join()
        finally:
            for group in groups:
                lifetime.end(group)
        if failed:
            raise failed[0]


async def _execute(notebooks: dict[str, NotebookNode], stale: list[str], folder: str, groups: list[int]) -> None:
    import nbformat
    from jupyter_cache.base import CacheBundleIn

    cache, problems = _cache(), []
    done: set[str] = set()
    needs = waits_for(notebooks, stale)
    waiting = dict(needs)  # the pages not started yet
    cells = {d: sum(c.cell_type == "code" for c in notebooks[d].cells) for d in stale}
    took = {  # a page's seconds when it last ran, wherever the checkout was
        d: (r.data or {}).get("execution_seconds", 0)
        for r in cache.list_cache_records()
        for d in stale
        if r.uri.endswith(f"/{d}.md")
    }
    running: dict[asyncio.Task[tuple[float, str | None]], tuple[str, NotebookNode]] = {}
    kernels: list[asyncio.Task[AsyncKernelManager]] = []  # started, for the pages to come
    while waiting or running:
        # the pages that waited for others first (they end the build), then the longest when they
        # last ran (so that none starts last and runs alone), then the biggest
        ready = sorted(
            (d for d in waiting if needs[d] <= done), key=lambda d: (-len(needs[d]), -took.get(d, 0), -cells[d])
        )
        for docname in ready[: WORKERS - len(running)]:
            del waiting[docname]
            notebook = nbformat.from_dict(notebooks[docname])
            kernel = kernels.pop() if kernels else asyncio.ensure_future(start_kernel(folder, groups))
            say(f"executing {docname} ...")  # "executing" means it runs now
            running[asyncio.ensure_future(run_page(docname, notebook, kernel))] = docname, notebook
        if not running:  # what is left waits for a page that failed
            break
        # A core a page leaves idle starts the kernel of a page to come: its start-up is then hidden
        while waiting and len(running) + len(kernels) < WORKERS:
            kernels.append(asyncio.ensure_future(start_kernel(folder, groups)))
        finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        for job in finished:
            docname, notebook = running.pop(job)
            seconds, error = job.result()
            if error:
                say(f"{docname} failed after {seconds:.1f} s")
                problems.append(error)
                continue
            done.add(docname)
            say(f"{docname} executed in {seconds:.1f} s ({cells[docname]} cells)")
            uri = str(config.DOCS / next(iter(config.LANGUAGES)) / f"{docname}.md")
            for old in cache.list_cache_records():  # the page's earlier executions: no longer used
                if old.uri == uri:
                    cache.remove_cache(old.pk)
            bundle = CacheBundleIn(notebook, uri, data={"execution_seconds": seconds})
            cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
    for kernel in kernels:  # started for pages that will not run: a page they wait for failed
        await (await kernel).shutdown_kernel(now=True)
    if problems:
        skipped = sorted(waiting)
        not_run = f" ({', '.join(skipped)}: not executed, it reads their outcomes)" if skipped else ""
        failed = f"{len(problems)} page{'s' if len(problems) > 1 else ''} failed{not_run}"
        raise BuildFailed(problems, f"{failed}; the site was not updated")


def _failing(notebook: NotebookNode) -> int | None:
    """The index of the cell whose error stopped the page."""
    for index, cell in enumerate(notebook.cells):
        raised = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
        if raised and "raises-exception" not in cell.metadata.get("tags", []):
            return index
    return None


def explain(docname: str, notebook: NotebookNode, error: BaseException) -> str:
    """A failed execution in a few lines: the page, the example file and line, the reason, what to do."""
    ename, evalue = getattr(error, "ename", type(error).__name__), ANSI.sub("", str(getattr(error, "evalue", error)))
    index, where = _failing(notebook), f"{docname} ({', '.join(config.LANGUAGES)})"
    if index is None:
        return f"{where}: {ename}: {evalue.strip().splitlines()[-1] if evalue.strip() else 'the kernel stopped'}"
    name = pages.example_of(notebook, index)
    if name:  # its guard kept its Failure in the store (execbook.kernel.check; run_page runs it)
        with contextlib.suppress(KeyError):
            return str(store.load("failure", deps.outcome_key(name)).render(where))
        return f"{where} · examples/{name}.py\n  {ename}: {evalue.strip()[:300]}"
    hidden = bool(source.HIDDEN & set(notebook.cells[index].metadata.get("tags", [])))
    what = "hidden cell" if hidden else "cell the page shows"
    return f"{where}: a {what} failed: {ename}: {tracebacks.excerpt(evalue.strip(), width=300)}"


def sphinx(languages: tuple[str, ...], outdir: Path) -> None:
    """Sphinx builds each language into outdir, a process each, warnings as errors; or BuildFailed."""
    begun, started = time.perf_counter(), {}
    doctrees = {language: config.BUILD / "doctrees" / language for language in languages}
    for language in languages:
        options = ["-b", "html", "-W", "--keep-going", "-n", "-q", "--no-color", "-d", str(doctrees[language])]
        command = [sys.executable, "-m", "sphinx", *options, str(config.DOCS / language), str(outdir / language)]
        started[language] = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        lifetime.own(started[language].pid)
    try:
        finished = {lang: (*process.communicate(), time.perf_counter() - begun) for lang, process in started.items()}
    finally:  # stopped meanwhile: Sphinx stops too
        for process in started.values():
            lifetime.end(process.pid)
    problems = []
    for language, (stdout, stderr, seconds) in finished.items():
        sys.stdout.write(stdout)
        if not started[language].returncode:
            say(f"{language} built in {seconds:.1f} s")
            continue
        # Sphinx keeps what it read, warnings aside: the next build would not read the page again,
        # nor warn, and would publish it. Forget this language's reading.
        shutil.rmtree(doctrees[language], ignore_errors=True)
        noted = [line for line in stderr.splitlines() if "WARNING" in line or "ERROR" in line or "Error" in line]
        warnings = [line.replace(str(config.REPO) + os.sep, "") for line in noted]
        problems.append(
            f"Sphinx could not build the {language} pages:\n"
            + "\n".join(f"  {w}" for w in (warnings or stderr.splitlines()[-15:]))
            + "\n  → fix the page source named above (and its twin in the other language)"
        )
    if problems:
        raise BuildFailed(problems)


def build(languages: tuple[str, ...], cold: bool = False) -> None:
    """Check, execute, then Sphinx, one build at a time (execbook.lifetime); cold: everything runs again."""
    with lifetime.held(config.BUILD, say):
        if cold:
            warm = (config.EXECUTION_CACHE, config.STORE, config.BUILD / "doctrees", config.BUILD / "jupyter_execute")
            for folder in warm:
                shutil.rmtree(folder, ignore_errors=True)
        _build(languages)


def _build(languages: tuple[str, ...]) -> None:
    started = time.time()
    kernel_environment()
    notebooks = check_sources()
    os.environ[pages.KEYS_ENV] = json.dumps(pages.KEYS)  # Sphinx reads each page with the build's key
    stale = stale_pages(notebooks)
    fresh = new_site()
    execute(notebooks, stale)
    computed = [f"{e['kind']}:{e['key']}" for e in store.computed_since(started, config.STORE)]
    if twice := sorted({e for e in computed if computed.count(e) > 1}):
        raise BuildFailed(
            f"this build computed an experiment more than once: {', '.join(twice)}\n"
            "  → compute it in the precompute hook ([tool.book.hooks]), before the pages run"
        )
    report = config.hook("report") if stale else None
    notes: list[str] = report() if report is not None else []
    sphinx(languages, fresh)
    publish(fresh, languages)
    cells = sum(sum(c.cell_type == "code" for c in notebooks[d].cells) for d in stale)
    summary = dict(executed=stale, cells_executed=cells, experiments=computed, seconds=round(time.time() - started, 1))
    config.EXECUTION_REPORT.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    site = (config.SITE / "index.html").relative_to(config.REPO)
    say(f"{len(stale)} page(s) executed ({cells} cells, {len(computed)} experiment(s) computed) -> {site}")
    glue_changes(notebooks)
    for line in notes:  # what the report hook says of the pages executed
        say(line)


def glue_changes(notebooks: dict[str, NotebookNode], shown: int = 40) -> None:
    """What this build's change did to the glued values: listed here and in docs/_build/glue-changes.txt."""
    cache = _cache()
    values = {}
    for docname, notebook in notebooks.items():
        with contextlib.suppress(KeyError):  # no execution of it in the cache
            values[docname] = gluereport.glued(cache.merge_match_into_notebook(notebook)[1])
    lines = gluereport.record(values, config.GLUE_VALUES, config.GLUE_CHANGES)
    where = config.GLUE_CHANGES.relative_to(config.REPO)
    if not lines:
        say(f"no glued value changed ({where})")
        return
    say(f"glued values that changed since the last build ({where}):")
    for line in lines[:shown]:
        print(line, flush=True)
    if len(lines) > shown:
        print(f"  ... {len(lines) - shown} more lines in {where}", flush=True)


def new_site() -> Path:
    """A folder for this build's site, after removing the sites no longer published."""
    config.SITES.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(config.SITE) and (config.SITES / "before-links").is_dir():  # killed while changing layout
        config.SITE.symlink_to(Path(config.SITES.name, "before-links"))
    for old in config.SITES.iterdir():
        if old != config.SITE.resolve():
            shutil.rmtree(old)
    return config.SITES / str(time.time_ns())


def publish(fresh: Path, languages: tuple[str, ...]) -> None:
    """Publish fresh in one rename of the link docs/_build/html (languages not built: the last site's)."""
    if config.SITE.is_dir():
        for item in config.SITE.iterdir():
            target = fresh / item.name  # hard links: a published site's files never change
            if item.is_dir() and not target.exists():
                shutil.copytree(item, target, copy_function=os.link)
            elif not target.exists():
                os.link(item, target)
    link = config.BUILD / "html.link"
    link.unlink(missing_ok=True)
    link.symlink_to(fresh.relative_to(config.BUILD))
    if config.SITE.is_dir() and not config.SITE.is_symlink():  # a site published before the links, once
        config.SITE.rename(config.SITES / "before-links")
    os.replace(link, config.SITE)
    new_site()  # the earlier sites go


def main(given: argparse.Namespace) -> int:
    """python -m execbook build [--cold] [LANGUAGE ...]"""
    if unknown := [a for a in given.languages if a not in config.LANGUAGES]:
        print(
            f"docs: error: unknown language {unknown[0]!r}; choose from {', '.join(config.LANGUAGES)} "
            "(or --cold: execute every page and compute everything again)",
            file=sys.stderr,
        )
        return 2
    try:
        build(tuple(given.languages or config.LANGUAGES), cold=given.cold)
    except (KeyboardInterrupt, lifetime.Interrupted) as stopped:
        print("docs: interrupted; the site was not updated", file=sys.stderr)
        return getattr(stopped, "status", 128 + signal.SIGINT)
    except BuildFailed as failed:
        from importlib.metadata import version

        releases = ", ".join(f"{name} {version(name)}" for name in config.FINGERPRINTED)
        summary = failed.summary + (f" ({releases})" if releases else "")
        print(f"\ndocs: the build failed\n{failed}\ndocs: {summary}", file=sys.stderr)
        return 1
    return 0
