"""Public names imported on first use.

A package lists the modules its public names live in; its ``__getattr__``
imports a module when one of its names is first asked for (PEP 562). So
``import skirm`` or ``skirm eval`` costs only the modules a call needs: the
scorers, the statistics or the diversity measures load when used. Type
checkers and editors read the same imports under ``TYPE_CHECKING``; a test
keeps the two lists equal.
"""

from __future__ import annotations

import importlib
import re
import sys


def _natural(name):
    """Sort key of ``__all__`` as ruff sorts it: numbers by value."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def lazy_exports(package: str, exports: dict[str, tuple[str, ...]], defined=()):
    """``__getattr__``, ``__dir__`` and ``__all__`` of ``package``.

    ``exports`` maps a module (absolute name) to the public names it defines;
    ``defined`` lists public names the package defines itself.
    """
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups are plain
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__, sorted([*where, *defined], key=_natural)
