"""Which kind of source an input is: a path, or an open file to read.

The one test every reader and door asks before reading (a path or an open
file is read; anything else is converted from the shape it has), here,
where no reader is called: a door that asks it reads nothing.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import TypeIs

__all__ = ["is_path", "is_path_or_file"]


def is_path(obj: object) -> TypeIs[str | os.PathLike[str]]:
    """Whether ``obj`` names a file: a str or a path-like object."""
    return isinstance(obj, (str, os.PathLike))


def is_path_or_file(obj) -> bool:
    """Whether ``obj`` is a source to read: a path or an open file (an object
    with ``read``)."""
    return is_path(obj) or hasattr(obj, "read")
