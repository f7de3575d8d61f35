"""Public names, written once and imported on first use.

Each public package writes its public names once, in its ``__init__.py``,
as the imports under ``if TYPE_CHECKING:`` in the explicit re-export form
``from skirm.stats._compare import compare as compare``. Type checkers and
editors read those imports; at run time the package's ``__getattr__``
(PEP 562), made here, reads the same block once and imports a module when
one of its names is first asked for. So ``import skirm`` or ``skirm eval``
costs only the modules a call needs: the scorers, the statistics or the
diversity measures load when used. ``__all__`` and ``dir()`` are derived
from the block. (And :class:`cached_property`: an attribute computed on
first use.)
"""

from __future__ import annotations

import importlib
import re
import sys


def _natural(name):
    """Sort key of ``__all__`` as ruff sorts it: numbers by value."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def public_names(path: str) -> dict[str, str]:
    """``{name: module}`` of the names re-exported by the ``if TYPE_CHECKING:``
    block of the package file at ``path`` (``from module import name as
    name``; a plain import there is not a public name)."""
    import ast  # loaded already by numpy, which any call imports

    with open(path, encoding="utf-8") as file:
        tree = ast.parse(file.read(), path)
    where = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    for alias in stmt.names:
                        if alias.asname == alias.name:
                            where[alias.name] = stmt.module
    return where


def lazy_exports(package: str, path: str, defined=(), renamed=None):
    """``__getattr__`` and ``__dir__`` of ``package`` (its ``__init__.py`` at
    ``path``): its public names imported on first use, and ``__all__``
    (those names and ``defined``, the names the package defines itself).
    ``renamed`` maps an old public name to its new one: still importable,
    with a :class:`FutureWarning`, and left out of ``__all__`` and
    ``dir()``."""
    table: dict[str, str] = {}
    renamed = renamed or {}

    def where():
        if not table:
            table.update(public_names(path))
        return table

    def __getattr__(name):
        if name == "__all__":
            value = sorted([*where(), *defined], key=_natural)
        elif name in renamed:
            import warnings  # loaded already by numpy

            new = renamed[name]
            warnings.warn(
                f"{package}.{name} is renamed {package}.{new}; the old name will "
                "be removed in a later release",
                FutureWarning,
                stacklevel=2,
            )
            return __getattr__(new)
        else:
            module = where().get(name)
            if module is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups are plain
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where()))

    return __getattr__, __dir__


class cached_property:
    """A property computed once per instance, then kept in its ``__dict__``.

    Like :class:`functools.cached_property` without its lock: before Python
    3.12, that lock is shared by every instance of the class, so two threads
    ranking two blocks of queries would wait for each other's property.
    A :class:`Ranking` belongs to one thread.
    """

    def __init__(self, function):
        self.function = function
        self.__doc__ = function.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value
