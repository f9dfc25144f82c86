"""Which nn.Module is running, what it is called, and where it was built.

Global module hooks keep a stack of the running modules. Names come from the model given to
``diagnose`` (``blocks.0.ln1``) or, for a program run as it is, from the first module called
with no module running (the root): its class name, then the path of each submodule below it
(``Net.body.2``). ``nn.Module.__init__`` is wrapped to note the line that built each module
while the tracker is installed: for a module made with ``inplace=True`` (``nn.ReLU(inplace=True)``
inside an ``nn.Sequential``) the write happens inside torch, so the line to change is that one.
"""

import sys
import weakref
from types import FrameType
from typing import Any, NamedTuple

import torch

from .location import Location, Site, is_internal, user_frame


class Running(NamedTuple):
    """A module whose forward is running."""

    module: torch.nn.Module
    name: str
    inplace_class: str  # "nn.ReLU" for a torch module made with inplace=True, else ""


class ModuleTracker:
    def __init__(self, target: Any = None):
        self.names: weakref.WeakKeyDictionary[torch.nn.Module, str] = weakref.WeakKeyDictionary()
        self.built: weakref.WeakKeyDictionary[torch.nn.Module, Site] = weakref.WeakKeyDictionary()
        self.running: list[Running] = []
        if isinstance(target, torch.nn.Module):
            self._name_tree(target, type(target).__name__, prefix="")
        self._handles: list = []
        self._init: Any = None

    def _name_tree(self, root: torch.nn.Module, root_name: str, prefix: str) -> None:
        for name, module in root.named_modules(remove_duplicate=False):
            full = f"{prefix}{name}" if name else root_name
            if name and prefix and name.rsplit(".", 1)[-1].isdigit():  # Net.body.2 says less than Net.body.2 (ReLU)
                full += f" ({type(module).__name__})"
            self.names.setdefault(module, full)

    def name(self, module: torch.nn.Module) -> str:
        root = type(module).__name__
        if module not in self.names and not self.running:  # a root: name its whole tree once
            self._name_tree(module, root, prefix=f"{root}.")
        return self.names.get(module, root)

    def location(self, path: str, line: int, callers: tuple[Site, ...] = ()) -> Location:
        if not self.running:
            return Location(path, line, "", callers=callers)
        top = self.running[-1]
        built = self.built.get(top.module) if top.inplace_class else None
        return Location(path, line, top.name, built, top.inplace_class, callers)

    # ---- hooks

    def _enter(self, module: torch.nn.Module, args: Any) -> None:
        name = self.name(module)  # a root is named before it is on the stack
        kind = type(module)
        # A torch module made with inplace=True (nn.ReLU, nn.Dropout...) writes inside torch's code:
        # the user's line is the call, and the line to change is the one that built it. (A user's
        # module with an inplace attribute writes in the user's own code, named by the line.)
        inside_torch = getattr(module, "inplace", False) is True and kind.__module__.startswith("torch.nn.")
        self.running.append(Running(module, name, f"nn.{kind.__name__}" if inside_torch else ""))

    def _leave(self, module: torch.nn.Module, args: Any, output: Any) -> None:
        if self.running:
            self.running.pop()

    def install(self) -> None:
        hooks = torch.nn.modules.module
        self._handles = [
            hooks.register_module_forward_pre_hook(self._enter),
            hooks.register_module_forward_hook(self._leave, always_call=True),
        ]
        original = self._init = torch.nn.Module.__init__
        built = self.built

        def init(module: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
            original(module, *args, **kwargs)
            if module not in built:
                built[module] = _building_line(module)

        init.__wrapped__ = original  # type: ignore[attr-defined]
        torch.nn.Module.__init__ = init  # type: ignore[assignment, method-assign]

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._init is not None:
            torch.nn.Module.__init__ = self._init  # type: ignore[method-assign]
            self._init = None
        self.running = []


def _building_line(module: torch.nn.Module) -> Site:
    """The user's line that built the module: the innermost frame outside torch, this package
    and the module's own ``__init__`` chain (a user's subclass calls ``super().__init__()``)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and (
        is_internal(frame.f_code.co_filename)
        or (frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is module)
    ):
        frame = frame.f_back
    return Site(frame.f_code.co_filename, frame.f_lineno) if frame is not None else user_frame()
