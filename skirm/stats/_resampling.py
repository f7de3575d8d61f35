"""Resampling engines over many rows of per-query values at once.

Every function takes a matrix ``values`` of shape (n_rows, n_queries): one
row per quantity (a system's values, or the differences between two systems
for one metric) and optional query weights. The random draws (sign flips,
bootstrap indices, within-query permutations) are made once per chunk and
shared by every row, and applied with a matrix product, so the cost of a
comparison grows with the number of resamples, not with a Python loop.
"""

from __future__ import annotations

import warnings

import numpy as np

from skirm._errors import InvalidParameterError
from skirm._params import NONE, Instance, Interval, Param
from skirm._progress import current

#: Elements of one chunk of random draws (float64: 32 MiB).
CHUNK_ELEMENTS = 1 << 22
#: Exact enumeration of sign flips up to this many queries (65,536 vectors).
EXACT_MAX_QUERIES = 16


#: The seed of the random draws: a fresh one is drawn for None.
RANDOM_STATE = Param(
    "random_state",
    NONE,
    Interval(int, 0, closed="left"),
    Instance(np.random.Generator, "a numpy Generator"),
    expected="a non-negative integer, a numpy Generator or None",
    option="--seed",
)
#: Random draws of the resampling tests and intervals.
N_RESAMPLES = Param(
    "n_resamples", Interval(int, 1, closed="left"), option="--n-resamples"
)


def seed_and_rng(random_state):
    """``(seed, rng)``: the seed for :func:`numpy.random.default_rng`,
    recorded for reports, and the generator.

    ``None`` draws a fresh seed from the operating system and returns it, so
    that a report can name the seed and the result can be reproduced; a
    Generator is used as given (its seed is None).
    """
    random_state = RANDOM_STATE(random_state)
    if random_state is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 63))
        return seed, np.random.default_rng(seed)
    if isinstance(random_state, np.random.Generator):
        return None, random_state
    return random_state, np.random.default_rng(random_state)


def _chunk_sizes(n_resamples, width):
    """The draws of each chunk; the work under way is told of each chunk
    done (:func:`skirm._progress.current`)."""
    size = max(1, CHUNK_ELEMENTS // max(1, width))
    progress = current()
    for start in range(0, n_resamples, size):
        rows = min(size, n_resamples - start)
        yield rows
        progress.advance(rows)


def weighted_means(values, weights):
    """Row means of ``values``, weighted by ``weights`` (None: plain means)."""
    if weights is None:
        return values.mean(axis=1)
    return values @ weights / weights.sum()


def use_exact(n_queries, n_resamples, exact):
    """Whether the sign-flip distribution is enumerated rather than sampled."""
    if exact == "auto":
        return n_queries <= EXACT_MAX_QUERIES or (
            n_queries < 63 and (1 << n_queries) <= n_resamples
        )
    if exact and n_queries > 24:
        raise InvalidParameterError(
            f"`exact=True` enumerates 2**n sign flips; n={n_queries} queries is too "
            "many (at most 24); use exact='auto' or False"
        )
    return bool(exact)


def _all_signs(n_queries):
    codes = np.arange(1 << n_queries, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n_queries)) & 1
    return 1.0 - 2.0 * bits


def _random_signs(rng, rows, n_queries):
    n_bits = rows * n_queries
    packed = rng.integers(0, 256, size=(n_bits + 7) // 8, dtype=np.uint8)
    bits = np.unpackbits(packed, count=n_bits).reshape(rows, n_queries)
    return 1.0 - 2.0 * bits


def sign_flip_null(values, weights, *, n_resamples, exact, rng, combine=None):
    """Null distribution of the (weighted) mean under random sign flips.

    Returns ``null`` of shape (n_rows, n_draws): the mean of each row with
    every value's sign flipped at random (or, when ``exact``, under every one
    of the 2**n sign vectors). With ``combine`` (n_rows, n_basis), ``values``
    are basis rows and the rows of the result are ``combine @ values``'s,
    computed as combinations of the basis rows' flipped means.
    """
    n_queries = values.shape[1]
    scaled = values if weights is None else values * weights
    total = n_queries if weights is None else weights.sum()
    if exact:
        return (_all_signs(n_queries) @ scaled.T).T / total
    parts = []
    for rows in _chunk_sizes(n_resamples, n_queries):
        flipped = _random_signs(rng, rows, n_queries) @ scaled.T
        parts.append(flipped if combine is None else flipped @ combine.T)
    return np.concatenate(parts, axis=0).T / total


def _bootstrap_counts(rng, rows, n_queries):
    index = rng.integers(0, n_queries, size=(rows, n_queries))
    index += (np.arange(rows) * n_queries)[:, None]
    counts = np.bincount(index.ravel(), minlength=rows * n_queries)
    return counts.reshape(rows, n_queries).astype(np.float64)


def _weighted_queries(values, weights):
    """The queries of weight > 0: a query of weight 0 is not in the weighted
    mean, so it is not drawn (a draw of weight-0 queries only would be 0/0)
    nor left out by the jackknife."""
    if weights is None or weights.min() > 0:
        return values, weights
    keep = weights > 0
    return values[:, keep], weights[keep]


def bootstrap_means(values, weights, *, n_resamples, rng):
    """Bootstrap distribution of each row's (weighted) mean, shape (n_rows, B).

    Queries of weight > 0 are drawn with replacement, the same draws for
    every row: draw ``b`` takes query ``i`` ``counts[b, i]`` times. The
    draws are those of ``rng.integers(0, n, size=(B, n))``, as
    :func:`scipy.stats.bootstrap` makes them.
    """
    values, weights = _weighted_queries(values, weights)
    n_queries = values.shape[1]
    scaled = values if weights is None else values * weights
    parts = []
    for rows in _chunk_sizes(n_resamples, n_queries):
        counts = _bootstrap_counts(rng, rows, n_queries)
        sums = counts @ scaled.T
        if weights is None:
            parts.append(sums / n_queries)
        else:
            parts.append(sums / (counts @ weights)[:, None])
    return np.concatenate(parts, axis=0).T


def jackknife_means(values, weights):
    """Leave-one-query-out means, shape (n_rows, n_queries of weight > 0)."""
    values, weights = _weighted_queries(values, weights)
    n_queries = values.shape[1]
    if weights is None:
        return (values.sum(axis=1, keepdims=True) - values) / (n_queries - 1)
    scaled = values * weights
    return (scaled.sum(axis=1, keepdims=True) - scaled) / (weights.sum() - weights)


def permuted_system_means(stacked, weights, *, n_resamples, rng):
    """System means with each query's values shuffled among the systems.

    ``stacked`` has shape (n_queries, n_systems, n_metrics). Each draw
    permutes the systems independently within every query (the same
    permutation for every metric) and returns the systems' (weighted) means,
    shape (n_draws, n_systems, n_metrics).
    """
    n_queries, n_systems, n_metrics = stacked.shape
    total = n_queries if weights is None else weights.sum()
    rows = np.arange(n_queries)[None, :, None]
    identity = np.broadcast_to(np.arange(n_systems), (n_queries, n_systems))
    parts = []
    for chunk in _chunk_sizes(n_resamples, n_queries * n_systems * n_metrics):
        order = rng.permuted(
            np.broadcast_to(identity, (chunk, *identity.shape)), axis=2
        )
        shuffled = stacked[rows, order]  # (chunk, n_queries, n_systems, n_metrics)
        if weights is None:
            parts.append(shuffled.sum(axis=1) / total)
        else:
            parts.append(np.einsum("cqsm,q->csm", shuffled, weights) / total)
    return np.concatenate(parts, axis=0)


def quantiles(sorted_rows, probabilities):
    """Per-row quantiles of sorted rows, linear interpolation (numpy's default).

    ``probabilities`` has one entry per row (or broadcasts to the rows).
    """
    n = sorted_rows.shape[1]
    position = np.clip(np.asarray(probabilities, dtype=np.float64), 0, 1) * (n - 1)
    position = np.broadcast_to(position, sorted_rows.shape[:1])
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, n - 1)
    rows = np.arange(sorted_rows.shape[0])
    fraction = position - low
    lo, hi = sorted_rows[rows, low], sorted_rows[rows, high]
    return lo + fraction * (hi - lo)


#: Below this many queries the bootstrap test warns that it is too liberal.
#: Its rejection rate of a true null at alpha = 0.05, simulated (1,000 tests
#: of zero-mean normal differences per size, 1,000 resamples each, 95% margin
#: +-0.014): 0.30 at 3 queries, 0.15 at 5, 0.10 at 10, 0.09 at 15, 0.07 at
#: 20, 0.056 at 25, 30 and 40; skewed (exponential) differences make it
#: worse (0.38 at 3, 0.11 at 20, 0.08 at 25). From 25 queries on, normal
#: differences give the nominal rate within the simulation's margin.
BOOTSTRAP_MIN_QUERIES = 25


def warn_few_queries(n_queries, stacklevel):
    """The bootstrap test's warning below :data:`BOOTSTRAP_MIN_QUERIES`."""
    if n_queries < BOOTSTRAP_MIN_QUERIES:
        warnings.warn(
            f"the bootstrap test is too liberal on {n_queries} queries: under no "
            "difference it rejects far more often than alpha below "
            f"{BOOTSTRAP_MIN_QUERIES} queries (at alpha=0.05, about 30% of the "
            "time at 3 queries, 10% at 10); use test='randomization' (exact on "
            "few queries) or test='t'",
            UserWarning,
            stacklevel=stacklevel + 1,
        )
