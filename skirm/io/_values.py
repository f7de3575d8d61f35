"""The values of users' columns checked: each a number, none NaN, labels
integers of 64 bits, scores within a double; each message names the
argument and the query and document of the first bad value.
"""

from __future__ import annotations

import numbers

import numpy as np

from skirm._errors import InvalidInputError
from skirm.io._tokens import Tokens

__all__ = ["check_values", "row_of"]

#: The types of a number (a bool is an int); a score may be any real (a
#: ``Fraction``), as the dicts' door reads it.
_NUMBERS = (int, float, np.integer, np.floating, np.bool_)
_SCORES = (*_NUMBERS, numbers.Real)
_INT64 = np.iinfo(np.int64)
_DOUBLE_MAX = float(np.finfo(np.float64).max)  # compared exactly with an int


def check_values(values, name, what, q, d):
    """``values`` (``what`` is ``"score"`` or ``"relevance"``) as a numeric
    array; an error naming the argument and the query and document of the
    first bad one: a value that is not a number (a string, None), a NaN, a
    relevance that is not an integer or does not fit in 64 bits (trec_eval
    reads C longs; pytrec_eval fails or hangs on such a label)."""
    kind = values.dtype.kind
    if kind in "OUS" and not values.shape[0]:  # no value to show
        raise InvalidInputError(
            f"`{name}`: {what} values must be numbers, got dtype {values.dtype}"
        )
    if kind in "OUS":
        items = values.tolist()
        kinds = _SCORES if what == "score" else _NUMBERS
        at = next((i for i, x in enumerate(items) if not isinstance(x, kinds)), None)
        if at is not None:
            raise InvalidInputError(
                f"`{name}`: {what} values must be numbers, got {items[at]!r} "
                f"{row_of(q, d, at)}"
            )
        if what == "relevance":
            huge = [
                i for i, x in enumerate(items)
                if isinstance(x, int) and not _INT64.min <= x <= _INT64.max
            ]  # fmt: skip
            if huge:
                raise _past_int64(name, items[huge[0]], q, d, huge[0])
        try:
            values = np.array(items, dtype=np.float64 if what == "score" else None)
        except OverflowError:  # an integer past a double
            at = next(i for i, x in enumerate(items) if abs(x) > _DOUBLE_MAX)
            digits = f"an integer of {len(str(abs(items[at])))} digits"
            raise InvalidInputError(
                f"`{name}`: {what} values must fit in a double, got {digits} "
                f"{row_of(q, d, at)}"
            ) from None
        kind = values.dtype.kind
    if kind == "f" and np.isnan(values).any():
        at = int(np.flatnonzero(np.isnan(values))[0])
        raise InvalidInputError(
            f"`{name}`: {what} values must not be NaN, got NaN {row_of(q, d, at)}"
        )
    if what != "relevance":
        return values
    if kind == "f" and not np.all(values == np.round(values)):
        at = int(np.flatnonzero(values != np.round(values))[0])
        raise InvalidInputError(
            f"`{name}`: relevance values must be integers, got {values[at].tolist()!r} "
            f"{row_of(q, d, at)}"
        )
    if kind == "f" and values.shape[0] and np.abs(values).max() >= 2.0**63:
        at = int(np.flatnonzero(np.abs(values) >= 2.0**63)[0])
        raise _past_int64(name, values[at].tolist(), q, d, at)
    if kind == "u" and values.shape[0] and values.max() > _INT64.max:
        at = int(np.flatnonzero(values > _INT64.max)[0])
        raise _past_int64(name, int(values[at]), q, d, at)
    return values


def _past_int64(name, value, q, d, at):
    return InvalidInputError(
        f"`{name}`: relevance values must fit in 64-bit integers (trec_eval "
        f"reads C longs), got {value!r} {row_of(q, d, at)}"
    )


def row_of(q, d, at):
    """Where row ``at`` is: its query and document (str arrays or tokens)."""
    ids = (str(x.strings([at])[0] if isinstance(x, Tokens) else x[at]) for x in (q, d))
    return "for query {!r}, document {!r}".format(*ids)
