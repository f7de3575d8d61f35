"""Where the adapters find the query of each row: ``groups``, else ``X``.

Scorers, splitters and rankers take per-row query ids as ``groups`` (routed
by scikit-learn when metadata routing is enabled). Without routing, the ids
travel inside ``X``: a pandas index level (or column) named ``groups_from``,
or a column of that name of a polars DataFrame or pyarrow Table.
"""

from __future__ import annotations

import numpy as np

from skirm._engine import check_groups
from skirm._errors import InvalidInputError, InvalidParameterError
from skirm._frames import column_names, frame_column, is_frame
from skirm._params import Param, Satisfies, describe

__all__ = [
    "GROUPS_FROM",
    "groups_from_frame",
    "missing_groups_message",
    "n_rows",
    "resolve_groups",
]


#: Where the query ids travel inside ``X``: an index level or a column.
GROUPS_FROM = Param(
    "groups_from",
    Satisfies(lambda v: isinstance(v, str) and v, "a non-empty string", ("", 3)),
    expected="the name of a pandas index level or column (a non-empty string)",
)


def groups_from_frame(X, groups_from):
    """Per-row query ids from a pandas index level or column, or a polars or
    pyarrow column (the column itself, for :func:`check_groups`), else None."""
    if is_frame(X):
        if groups_from in column_names(X):
            return frame_column(X, groups_from)
        return None
    index = getattr(X, "index", None)
    names = getattr(index, "names", None)
    if names is not None and groups_from in list(names):
        return np.asarray(index.get_level_values(groups_from))
    columns = getattr(X, "columns", None)
    if columns is not None and getattr(X, "ndim", 0) == 2:
        try:
            if groups_from in columns:
                return np.asarray(X[groups_from])
        except TypeError:  # pragma: no cover - unhashable column labels
            return None
    return None


def missing_groups_message(owner, groups_from, *, as_nan=False) -> str:
    """The error text when no query ids were passed or found in ``X``.

    With ``as_nan``, the text of the warning given when the scores are set
    to NaN instead.
    """
    consequence = (
        "Every metric of this scorer is set to NaN."
        if as_nan
        else "While setting up a search, pass error_score='raise' so such errors "
        "are not hidden as NaN."
    )
    return (
        f"{owner} needs the query of each row, but got no `groups` and X has no "
        f"index level or column named {groups_from!r}. Either enable metadata "
        "routing (sklearn.set_config(enable_metadata_routing=True)) and pass "
        "groups=<query ids> to fit (GridSearchCV.fit(X, y, groups=qid), or "
        "cross_validate(..., params={'groups': qid})); or give X as a pandas "
        f"DataFrame whose index has a level named {groups_from!r} (e.g. "
        f"X.set_index(pd.Index(qid, name={groups_from!r}))). {consequence}"
    )


def resolve_groups(owner, X, groups, groups_from, *, required=True):
    """Checked per-row query labels from ``groups``, else from ``X``.

    Returns None when nothing is found and ``required`` is False; raises a
    ValueError naming both fixes when it is True.
    """
    if groups is None:
        groups = groups_from_frame(X, GROUPS_FROM(groups_from))
        if groups is None:
            if not required:
                return None
            raise InvalidParameterError(missing_groups_message(owner, groups_from))
    return check_groups(groups, n_rows(X))


def n_rows(X) -> int:
    """Number of rows of an array, sparse matrix, DataFrame or sequence."""
    shape = getattr(X, "shape", None)
    if shape:
        return int(shape[0])
    if hasattr(X, "__array__"):
        return int(np.asarray(X).shape[0])
    try:
        return len(X)
    except TypeError:
        raise InvalidInputError(
            f"expected an array-like with rows, got {describe(X)}"
        ) from None
