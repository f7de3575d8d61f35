"""Where the adapters find the query of each row: ``groups``, else ``X``.

Scorers, splitters and rankers take per-row query ids as ``groups`` (routed
by scikit-learn when metadata routing is enabled). Without routing, the ids
travel inside ``X``: a pandas index level (or column) named ``groups_from``,
or a column of that name of a polars DataFrame or pyarrow Table.

A column of ids is never a feature: skirm's rankers drop it
(:func:`without_id_column`) and the scorers warn when the model they score
was trained on it (:func:`trained_on_column`).
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
    "has_id_column",
    "missing_groups_message",
    "n_rows",
    "resolve_groups",
    "trained_on_column",
    "trained_on_ids_message",
    "without_id_column",
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


def has_id_column(X, groups_from) -> bool:
    """Whether ``X`` (a pandas, polars or pyarrow frame) has a *column*
    named ``groups_from``: query ids that would reach an estimator as a
    feature (an index level never does)."""
    if is_frame(X):
        return groups_from in column_names(X)
    columns = getattr(X, "columns", None)
    if columns is None or getattr(X, "ndim", 0) != 2:
        return False
    try:
        return groups_from in columns
    except TypeError:  # pragma: no cover - unhashable column labels
        return False


def without_id_column(X, groups_from):
    """``X`` without its column ``groups_from`` (the query ids), else ``X``
    itself: the rule every skirm estimator follows, so that no model is
    trained on the ids (a feature that names the query, not the document)."""
    if not has_id_column(X, groups_from):
        return X
    if hasattr(X, "iloc"):  # pandas: by column label, not by row
        return X.drop(columns=groups_from)
    if type(X).__name__ in ("Table", "RecordBatch"):  # pyarrow
        return X.drop_columns([groups_from])
    return X.drop(groups_from)  # polars


def trained_on_column(estimator, name) -> bool:
    """Whether a fitted estimator was trained on a feature named ``name``,
    as far as its attributes tell: its ``feature_names_in_``, or for a
    pipeline, those of its last step, else the names its other steps put
    out (a column passed through a ``ColumnTransformer`` is
    ``remainder__<name>``)."""
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps:
        last = steps[-1][1]
        if getattr(last, "feature_names_in_", None) is None:
            try:
                names = estimator[:-1].get_feature_names_out()
            except (AttributeError, TypeError, ValueError):
                return False
            return any(n == name or str(n).endswith(f"__{name}") for n in names)
        estimator = last
    names = getattr(estimator, "feature_names_in_", None)
    return names is not None and name in list(names)


def trained_on_ids_message(owner, estimator, groups_from) -> str:
    """The warning given when a scored model was trained on the ids."""
    return (
        f"{owner}: the model {type(estimator).__name__} was trained on the "
        f"column {groups_from!r} of X, the query ids, as a feature: a model can "
        "score well on the ids it saw and mean nothing on new queries. Keep "
        "the ids out of its features: put them in X's index "
        f"(X.set_index({groups_from!r}, append=True)), wrap the model in "
        "skirm.ranker.QueryRanker (which drops the column), or drop it in a "
        "pipeline: make_pipeline(make_column_transformer(('drop', "
        f"[{groups_from!r}]), remainder='passthrough'), model)"
    )


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
