"""Beyond-accuracy metrics of recommendation lists: they need item data.

Accuracy metrics compare each list with its user's ground truth. These look
at the lists as a whole, with information about the items: which items exist
(catalog coverage, Gini index of exposure), how popular each is (novelty,
average recommendation popularity), what each is like (intra-list
diversity). All are computed on the top ``k`` of each list with vectorised
numpy over all lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from skirm._engine import flatten_lists
from skirm._errors import InvalidInputError
from skirm._params import Interval, K, Param, as_python, checked, describe

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping
    from typing import Any

    from numpy.typing import ArrayLike
    from pandas import DataFrame, Series

__all__ = [
    "average_popularity",
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "novelty",
]

#: The number of users the popularity counts come from.
N_USERS = Param("n_users", Interval(int, 1, closed="left"))


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------


def _top_ids(y_pred, k, padding):
    """Ids of the top ``k`` (checked) of each list (concatenated) and the
    list codes."""
    ids, sizes = flatten_lists(y_pred, padding)
    codes = np.repeat(np.arange(sizes.shape[0]), sizes)
    if k is not None:
        starts = np.cumsum(sizes) - sizes
        keep = np.arange(ids.shape[0]) - starts[codes] < k
        ids, codes = ids[keep], codes[keep]
        sizes = np.minimum(sizes, k)
    return ids, codes, sizes


def _table(table, name, *, vectors=False):
    """``(ids, values)`` of an item table: a dict, a pandas Series or
    DataFrame indexed by item id, or an ``(ids, values)`` pair."""
    if isinstance(table, Mapping):
        ids = list(table.keys())
        values = list(table.values())
    elif hasattr(table, "index") and hasattr(table, "to_numpy"):
        ids, values = table.index.to_numpy(), table.to_numpy()
    elif isinstance(table, tuple) and len(table) == 2:
        ids, values = table
    else:
        raise InvalidInputError(
            f"`{name}` must be a dict of item id to value, a pandas Series or "
            f"DataFrame indexed by item id, or an (ids, values) pair, got "
            f"{describe(table)}"
        )
    ids = np.asarray(ids)
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(f"`{name}` values must be real numbers") from None
    want = 2 if vectors else 1
    if ids.ndim != 1 or values.ndim != want or values.shape[0] != ids.shape[0]:
        shape = "(n_items, n_features)" if vectors else "(n_items,)"
        raise InvalidInputError(
            f"`{name}` must give one {'vector' if vectors else 'value'} per item, "
            f"values of shape {shape}; got {ids.shape[0]} ids and values of "
            f"shape {values.shape}"
        )
    if not np.isfinite(values).all():
        raise InvalidInputError(f"`{name}` values must be finite")
    if np.unique(ids).shape[0] != ids.shape[0]:
        raise InvalidInputError(f"`{name}` names an item twice")
    return ids, values


def _positions(ids, table_ids, name):
    """Row of each id in ``table_ids``; an id the table lacks is an error."""
    if ids.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    numeric = ids.dtype.kind in "biu" and table_ids.dtype.kind in "biu"
    left = ids if numeric else ids.astype(object)
    right = table_ids if numeric else table_ids.astype(object)
    try:
        order = np.argsort(right, kind="stable")
        at = np.searchsorted(right[order], left)
    except TypeError:
        raise InvalidInputError(
            f"item ids of `y_pred` and `{name}` must be mutually comparable (all "
            "ints or all strings)"
        ) from None
    at = np.minimum(at, right.shape[0] - 1)
    found = right[order][at] == left
    if not np.all(found):
        bad = as_python(ids[np.argmax(~found)])
        raise InvalidInputError(f"item {bad!r} of `y_pred` is missing from `{name}`")
    return order[at]


def _mean_over_lists(per_list, sizes, what):
    """Mean over the non-empty lists."""
    used = sizes > 0
    if not used.any():
        raise InvalidInputError(f"{what}: every list is empty")
    return float(np.mean(per_list[used]))


# --------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------


@checked(k=K)
def catalog_coverage(
    y_pred: ArrayLike,
    *,
    catalog: ArrayLike,
    k: int | None = None,
    padding: Hashable | None = None,
) -> float:
    """Share of the catalog that appears in the top ``k`` of some list.

    ``|union of the top-k lists| / |catalog|`` (Ge et al. 2010's catalog
    coverage; with ``k`` set, item coverage at k).

    Parameters
    ----------
    y_pred : sequence of sequences, or 2-D array
        One ranked list of item ids per user, as for
        :func:`skirm.metrics.from_lists`.
    catalog : array-like of item ids
        Every item that could be recommended.
    k : int, default=None
        Only the top ``k`` of each list counts; ``None`` means all.
    padding : scalar, default=None
        The padding id of a 2-D ``y_pred``.

    Returns
    -------
    coverage : float
        In [0, 1].

    Examples
    --------
    >>> from skirm.recsys import catalog_coverage
    >>> lists = [["a", "b", "c"], ["a", "d"]]
    >>> catalog_coverage(lists, catalog=["a", "b", "c", "d", "e"])
    0.8
    >>> catalog_coverage(lists, catalog=["a", "b", "c", "d", "e"], k=1)
    0.2
    """
    ids, _, _ = _top_ids(y_pred, k, padding)
    catalog = _catalog(catalog)
    rows = _positions(ids, catalog, "catalog")
    covered = np.count_nonzero(np.bincount(rows, minlength=catalog.shape[0]))
    return float(covered / catalog.shape[0])


@checked(k=K)
def gini_index(
    y_pred: ArrayLike,
    *,
    catalog: ArrayLike,
    k: int | None = None,
    padding: Hashable | None = None,
) -> float:
    """Gini index of the items' exposure in the top ``k`` of the lists.

    Each catalog item's exposure is the number of lists that show it in
    their top ``k`` (0 for items never shown). With exposures
    :math:`x_{(1)} \\le \\dots \\le x_{(n)}` over the :math:`n` catalog
    items, :math:`G = \\sum_i (2i - n - 1) x_{(i)} / (n \\sum_i x_i)`:
    0 when every item is shown equally often, close to 1 when a few items
    take all the exposure (Fleder and Hosanagar 2009).

    Parameters
    ----------
    y_pred : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    catalog : array-like of item ids
        Every item that could be recommended.
    k : int, default=None
        Only the top ``k`` of each list counts.
    padding : scalar, default=None
        The padding id of a 2-D ``y_pred``.

    Returns
    -------
    gini : float
        In [0, 1).

    Examples
    --------
    >>> from skirm.recsys import gini_index
    >>> gini_index([["a", "b"], ["b", "a"]], catalog=["a", "b"])
    0.0
    >>> round(gini_index([["a"], ["a"]], catalog=["a", "b", "c", "d"]), 4)
    0.75
    """
    ids, _, _ = _top_ids(y_pred, k, padding)
    catalog = _catalog(catalog)
    if ids.shape[0] == 0:
        raise InvalidInputError("gini_index: every list is empty")
    rows = _positions(ids, catalog, "catalog")
    exposure = np.sort(np.bincount(rows, minlength=catalog.shape[0]))
    n = exposure.shape[0]
    weights = 2.0 * np.arange(1, n + 1) - n - 1
    return float(np.dot(weights, exposure) / (n * exposure.sum()))


@checked(n_users=N_USERS, k=K)
def novelty(
    y_pred: ArrayLike,
    *,
    item_popularity: Mapping[Any, float] | tuple[ArrayLike, ArrayLike] | Series,
    n_users: int,
    k: int | None = None,
    padding: Hashable | None = None,
) -> float:
    """Mean self-information of the recommended items (Zhou et al. 2010).

    An item that ``c`` of ``n_users`` users interacted with has
    self-information :math:`\\log_2(n_{users} / c)`; novelty is its mean over
    the top ``k`` of each list, averaged over the non-empty lists. Popular
    items are not novel.

    Parameters
    ----------
    y_pred : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    item_popularity : dict, pandas Series or (ids, counts) pair
        The number of users who interacted with each item (positive, at
        most ``n_users``).
    n_users : int
        The number of users the popularity counts come from.
    k : int, default=None
        Only the top ``k`` of each list counts.
    padding : scalar, default=None
        The padding id of a 2-D ``y_pred``.

    Returns
    -------
    novelty : float
        In bits.

    Examples
    --------
    >>> from skirm.recsys import novelty
    >>> popularity = {"hit": 8, "niche": 1}
    >>> novelty([["hit", "niche"], ["hit"]], item_popularity=popularity, n_users=8)
    0.75
    """
    counts, codes, sizes = _item_values(y_pred, item_popularity, k, padding)
    bad = (counts <= 0) | (counts > n_users)
    if bad.any():
        raise InvalidInputError(
            "`item_popularity` counts of recommended items must be in "
            f"[1, n_users={n_users}], got {as_python(counts[np.argmax(bad)])!r}"
        )
    info = np.log2(n_users / counts)
    per_list = _per_list_mean(info, codes, sizes)
    return _mean_over_lists(per_list, sizes, "novelty")


@checked(k=K)
def average_popularity(
    y_pred: ArrayLike,
    *,
    item_popularity: Mapping[Any, float] | tuple[ArrayLike, ArrayLike] | Series,
    k: int | None = None,
    padding: Hashable | None = None,
) -> float:
    """Average recommendation popularity (ARP, Abdollahpouri et al. 2019).

    The mean popularity (interaction count) of the items in the top ``k`` of
    each list, averaged over the non-empty lists.

    Parameters
    ----------
    y_pred : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    item_popularity : dict, pandas Series or (ids, counts) pair
        The popularity of each item (e.g. its number of interactions).
    k : int, default=None
        Only the top ``k`` of each list counts.
    padding : scalar, default=None
        The padding id of a 2-D ``y_pred``.

    Returns
    -------
    popularity : float

    Examples
    --------
    >>> from skirm.recsys import average_popularity
    >>> average_popularity([["a", "b"], ["a"]], item_popularity={"a": 10, "b": 2})
    8.0
    """
    values, codes, sizes = _item_values(y_pred, item_popularity, k, padding)
    per_list = _per_list_mean(values, codes, sizes)
    return _mean_over_lists(per_list, sizes, "average_popularity")


@checked(k=K)
def intra_list_diversity(
    y_pred: ArrayLike,
    *,
    item_features: Mapping[Any, ArrayLike] | tuple[ArrayLike, ArrayLike] | DataFrame,
    k: int | None = None,
    padding: Hashable | None = None,
) -> float:
    """Mean pairwise cosine distance between the items of each list.

    For a list of :math:`n \\ge 2` items with feature vectors
    :math:`v_1, \\dots, v_n`, ILD is the mean of :math:`1 - \\cos(v_i, v_j)`
    over the :math:`n(n-1)/2` pairs (Ziegler et al. 2005); the result is its
    mean over the lists with at least two items. Computed from the sum of
    the unit vectors of each list, without forming the pairs.

    Parameters
    ----------
    y_pred : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    item_features : dict, pandas DataFrame or (ids, matrix) pair
        A non-zero feature vector per item.
    k : int, default=None
        Only the top ``k`` of each list counts.
    padding : scalar, default=None
        The padding id of a 2-D ``y_pred``.

    Returns
    -------
    diversity : float
        In [0, 2].

    Examples
    --------
    >>> from skirm.recsys import intra_list_diversity
    >>> features = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    >>> intra_list_diversity([["a", "b"]], item_features=features)
    1.0
    >>> round(intra_list_diversity([["a", "c"], ["a", "a2"]],
    ...       item_features={**features, "a2": [2, 0]}), 4)
    0.1464
    """
    ids, codes, sizes = _top_ids(y_pred, k, padding)
    table_ids, vectors = _table(item_features, "item_features", vectors=True)
    norms = np.linalg.norm(vectors, axis=1)
    if np.any(norms == 0):
        bad = as_python(table_ids[np.argmax(norms == 0)])
        raise InvalidInputError(f"`item_features` of item {bad!r} is the zero vector")
    unit = (vectors / norms[:, None])[_positions(ids, table_ids, "item_features")]
    n_lists = sizes.shape[0]
    sums = np.zeros((n_lists, unit.shape[1]))
    np.add.at(sums, codes, unit)
    n = sizes.astype(np.float64)
    pairs = n * (n - 1) / 2
    used = n >= 2
    if not used.any():
        raise InvalidInputError("intra_list_diversity: no list has two items")
    similarity = (np.einsum("ij,ij->i", sums, sums) - n) / 2
    return float(np.mean(1.0 - similarity[used] / pairs[used]))


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _catalog(catalog) -> np.ndarray:
    arr = np.asarray(catalog)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise InvalidInputError(
            f"`catalog` must be a non-empty 1-D array of item ids, got {describe(arr)}"
        )
    if np.unique(arr).shape[0] != arr.shape[0]:
        raise InvalidInputError("`catalog` names an item twice")
    return arr


def _item_values(y_pred, table, k, padding):
    ids, codes, sizes = _top_ids(y_pred, k, padding)
    table_ids, values = _table(table, "item_popularity")
    return values[_positions(ids, table_ids, "item_popularity")], codes, sizes


def _per_list_mean(values, codes, sizes):
    total = np.bincount(codes, weights=values, minlength=sizes.shape[0])
    out = np.zeros(sizes.shape[0])
    np.divide(total, sizes, out=out, where=sizes > 0)
    return out
