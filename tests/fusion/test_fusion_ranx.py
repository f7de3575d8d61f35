"""skirm's fusion against ranx's (``ranx.fuse``): every method and every
normalisation, on runs generated one dimension at a time, 1e-12 on the
fused scores and the same fused ranking, through the arrays
(:func:`skirm.fusion.fuse_scores`) and through the runs' door
(:func:`skirm.trec.fuse`).

Where ranx's rule is undocumented or surprising, a test below says so and
checks skirm's stated rule instead (the user guide states them):

- ranx ranks tied scores in the order of its sort (numba's quicksort, not
  stable); skirm gives tied documents the mean of their ranks' values, the
  expected value over every order of the tie;
- ranx's min-max and sum normalisations divide by at least 1e-9, so a
  query with one document (or equal scores) gets 0; skirm gives 1 (and
  ``1 / n`` for sum);
- ranx's max normalisation divides a non-positive maximum by 1e-9; skirm
  refuses it;
- ranx normalises the runs before a rank method too, which changes nothing
  but with ``norm="borda"`` (its normalised runs are then in the order of a
  set); skirm's rank methods do not read ``norm``;
- ranx refuses one run, and runs whose queries differ; skirm fuses one run,
  and a query a run lacks is one it returned nothing for;
- ranx's z-score normalisation (``zmuv``) of a run with an empty query
  loses the documents of that run's other queries (``np.mean`` of nothing
  stops its parallel loop); skirm's is compared with ranx's query by query.

ranx compiles its kernels with numba on first use (about 100 s of CPU for
all of them): the module is marked slow.
"""

import itertools

import numpy as np
import pytest
from _fusion import (
    RANK_METHODS,
    RANX_METHODS,
    RANX_NORMS,
    SCORE_METHODS,
    aligned,
    as_values,
    assert_same_ranking,
    make_runs,
)

import skirm
from skirm.fusion import fuse_scores, normalize_scores
from skirm.trec import fuse

ranx = pytest.importorskip("ranx")

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.slow,
    # ranx's numba kernels warn of their own casts while they compile
    pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64:Warning"),
]

NORMS = tuple(RANX_NORMS)
CASES = [(m, "none") for m in RANK_METHODS] + [
    (m, n) for m in SCORE_METHODS for n in NORMS
]
SEEDS = range(3)


def _ranx(runs, method, norm, **params):
    """ranx's fused run of the dicts ``runs``, as a dict of dicts."""
    if method == "rbc":
        params.setdefault("phi", 0.8)
    fused = ranx.fuse(
        [ranx.Run(run) for run in runs],
        norm=RANX_NORMS[norm],
        method=RANX_METHODS[method],
        params=params,
    )
    return fused.to_dict()


def _check(runs, method, norm, want_dict, **kwargs):
    """skirm's arrays and skirm's door both equal ``want_dict``."""
    keys, X, groups = aligned(runs)
    want = as_values(want_dict, keys)
    got = fuse_scores(X, groups=groups, method=method, norm=norm, **kwargs)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert_same_ranking(got, want, groups)
    run = fuse(runs, method=method, norm=norm, **kwargs)
    door = {}
    for q, d, s in zip(run.query_ids, run.doc_ids, run.scores, strict=True):
        door.setdefault(str(q), {})[str(d)] = s
    np.testing.assert_allclose(as_values(door, keys), want, rtol=1e-12, atol=1e-12)
    return got, want


#: Every method and norm on every dimension where ranx's rules are skirm's
#: (a negative maximum: test_max_norm_of_a_non_positive_maximum; min-max and
#: sum of one document: test_single_document_queries_where_ranx_clamps_its_
#: denominator; ties, one run: the tests of their own below).
MATRIX = [
    (dimension, method, norm)
    for dimension in ("plain", "missing", "negative", "empty", "single")
    for method, norm in CASES
    if not (norm == "max" and dimension == "negative")
    and not (dimension == "single" and norm in ("min-max", "sum"))
]


@pytest.mark.parametrize(("dimension", "method", "norm"), MATRIX)
def test_every_method_and_norm_equals_ranx(dimension, method, norm):
    for seed in SEEDS:
        runs = make_runs(dimension, seed)
        if dimension == "empty" and norm == "zscore":
            want = _ranx_query_by_query(runs, method, norm)
        else:
            want = _ranx(runs, method, norm)
        _check(runs, method, norm, want)


def _ranx_query_by_query(runs, method, norm):
    """ranx's fusion of each query alone, merged; a run that returned
    nothing for the query is left out of it (ranx builds no run of an empty
    query), and a query one run alone returned is fused as that run twice,
    rescaled (see test_one_run_is_fused_as_ranx_fuses_it_twice)."""
    fused = {}
    for q in runs[0]:
        parts = [{q: run[q]} for run in runs if run[q]]
        scale = 1.0
        if len(parts) == 1:
            parts = parts * 2
            scale = {"combsum": 2.0, "combmnz": 4.0}.get(method, 1.0)
        got = _ranx(parts, method, norm)[q]
        fused[q] = {d: v / scale for d, v in got.items()}
    return fused


def test_ranx_zscore_of_a_run_with_an_empty_query_loses_its_other_queries():
    numba = pytest.importorskip("numba")
    run = {"q1": {}, "q2": {"a": 1.0, "b": 3.0}}
    other = {"q1": {"a": 1.0}, "q2": {"a": 2.0}}
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # one thread: the loss does not depend on chunks
    try:
        fused = _ranx([run, other], "combsum", "zscore")
    finally:
        numba.set_num_threads(threads)
    assert fused["q2"] == {"a": 0.0}  # ranx's loss of "b", not a rule
    _, X, groups = aligned([run, other])
    got = fuse_scores(X, groups=groups, method="combsum", norm="zscore")
    assert got.tolist() == [0.0, -1.0, 1.0]  # q1 a; q2 a, b


@pytest.mark.parametrize("norm", ["min-max", "max", "sum", "zscore", "none"])
@pytest.mark.parametrize("method", SCORE_METHODS)
def test_tied_scores_of_the_score_norms_equal_ranx(method, norm):
    # Equal scores get equal normalised scores in both; only the ranks of
    # ties differ (test_ties_are_the_mean_of_ranxs_orders and
    # test_rank_norms_of_ties_are_the_mean_of_ranxs_orders).
    for seed in SEEDS:
        runs = make_runs("ties", seed)
        _check(runs, method, norm, _ranx(runs, method, norm))


@pytest.mark.parametrize(
    ("method", "ranx_method", "extra"),
    [
        ("combsum", "wsum", {}),
        ("borda", "w_bordafuse", {}),
    ],
)
def test_weights_equal_ranx_weighted_methods(method, ranx_method, extra):
    for seed in SEEDS:
        runs = make_runs("missing", seed)
        weights = [0.2, 0.5, 0.3]
        want = ranx.fuse(
            [ranx.Run(run) for run in runs],
            norm="min-max",
            method=ranx_method,
            params={"weights": weights, **extra},
        ).to_dict()
        _check(runs, method, "min-max", want, weights=weights)


@pytest.mark.parametrize("method", ["rrf", "rbc"])
def test_weighted_rank_methods_equal_ranxs_weighted_sum_of_their_scores(method):
    # ranx has no weighted RRF (nor RBC): its weighted sum of the per-run
    # scores its own rrf (rbc) sums is the oracle.
    from ranx.fusion.rbc import _rbc_score_parallel
    from ranx.fusion.rrf import _rrf_score_parallel

    for seed in SEEDS:
        runs = make_runs("missing", seed)
        weights = [1.0, 0.25, 2.0]
        scored = []
        for run in runs:
            scored_run = ranx.Run()
            if method == "rrf":
                scored_run.run = _rrf_score_parallel(ranx.Run(run).run, 60)
            else:
                scored_run.run = _rbc_score_parallel(ranx.Run(run).run, 0.8)
            scored.append(scored_run)
        want = ranx.fuse(
            scored, norm=None, method="wsum", params={"weights": weights}
        ).to_dict()
        _check(runs, method, "none", want, weights=weights)


def _orders(run_q):
    """Every order of one run's query by score, ties in any order, as dicts
    whose distinct scores give that order."""
    values = sorted(set(run_q.values()), reverse=True)
    blocks = [[d for d, s in run_q.items() if s == v] for v in values]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = [d for part in parts for d in part]
        yield {d: float(len(order) - i) for i, d in enumerate(order)}


def _tied_runs(seed):
    """Two runs of one query: a tie of three documents in the first, two
    ties of two in the second (24 orders in all)."""
    rng = np.random.default_rng(seed)
    runs = []
    for scores in ([3.0, 3.0, 3.0, 2.0, 1.0], [2.0, 2.0, 1.0, 1.0]):
        docs = rng.choice(7, len(scores), replace=False)
        runs.append({"q": {f"d{d}": s for d, s in zip(docs, scores, strict=True)}})
    return runs


def _mean_over_orders(runs, call):
    """The mean of ``call(runs broken)`` over every order of every tie."""
    queries = sorted(runs[0])
    choices = [list(_orders(run[q])) for run in runs for q in queries]
    total, count = None, 0
    for pick in itertools.product(*choices):
        broken, it = [], iter(pick)
        for _ in runs:
            broken.append({q: next(it) for q in queries})
        value = call(broken)
        total = value if total is None else total + value
        count += 1
    return total / count


@pytest.mark.parametrize("method", RANK_METHODS)
def test_ties_are_the_mean_of_ranxs_orders(method):
    # ranx ranks tied documents in its sort's order; skirm's value of a tie
    # is the mean of ranx's over every order of it.
    runs = _tied_runs(0)
    keys, X, groups = aligned(runs)
    want = _mean_over_orders(
        runs, lambda broken: as_values(_ranx(broken, method, "none"), keys)
    )
    got = fuse_scores(X, groups=groups, method=method)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("norm", ["rank", "borda"])
@pytest.mark.parametrize("method", SCORE_METHODS)
def test_rank_norms_of_ties_are_the_mean_of_ranxs_orders(norm, method):
    from ranx.normalization import norm_switch

    runs = _tied_runs(1)
    keys, X, groups = aligned(runs)

    def ranx_norms(broken):
        ranx_runs = [ranx.Run(run) for run in broken]
        if norm == "borda":
            normed = norm_switch("borda")(ranx_runs)
        else:
            normed = [norm_switch(norm)(run) for run in ranx_runs]
        return np.column_stack([as_values(r.to_dict(), keys) for r in normed])

    normalized = normalize_scores(X, groups=groups, norm=norm)
    want = _mean_over_orders(runs, ranx_norms)
    np.testing.assert_allclose(normalized, want, rtol=1e-12, atol=1e-12)
    # then the combination of the normalised scores is ranx's
    normed = [{} for _ in runs]
    for (q, d), row in zip(keys, normalized, strict=True):
        for j, value in enumerate(row):
            if not np.isnan(value):
                normed[j].setdefault(q, {})[d] = float(value)
    want_fused = as_values(_ranx(normed, method, "none"), keys)
    got = fuse_scores(X, groups=groups, method=method, norm=norm)
    np.testing.assert_allclose(got, want_fused, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", SCORE_METHODS)
@pytest.mark.parametrize("norm", ["min-max", "sum"])
def test_single_document_queries_where_ranx_clamps_its_denominator(method, norm):
    # ranx's min-max and sum divide by max(denominator, 1e-9): a query whose
    # run holds one document (or equal scores) gets 0. skirm's rule: 1 for
    # min-max (the document is the run's best), 1 / n for sum.
    runs = make_runs("single", 0)
    keys, X, groups = aligned(runs)
    want = as_values(_ranx(runs, method, norm), keys)
    got = fuse_scores(X, groups=groups, method=method, norm=norm)
    single = np.isin(groups, [f"q{q}" for q in range(0, 12, 2)])
    np.testing.assert_allclose(got[~single], want[~single], rtol=1e-12, atol=1e-12)
    ranx_norm = {"min-max": "min-max", "sum": "sum"}[norm]
    one = ranx.fuse(
        [ranx.Run({"q": {"a": 5.0}}), ranx.Run({"q": {"a": 2.0, "b": 1.0}})],
        norm=ranx_norm,
        method="sum",
    ).to_dict()
    assert one["q"]["a"] == 1.0  # 0 from the one-document run, 1 from the other
    mine = fuse_scores(
        [[5.0, 2.0], [np.nan, 1.0]], groups=[0, 0], method="combsum", norm=norm
    )
    assert mine.tolist() == [2.0, 0.0]


def test_max_norm_of_a_non_positive_maximum():
    # ranx divides by max(maximum, 1e-9): a query of negative scores comes
    # out multiplied by 1e9. skirm refuses it.
    runs = [{"q": {"a": -1.0, "b": -2.0}}, {"q": {"a": 1.0, "c": 2.0}}]
    want = _ranx(runs, "combsum", "max")
    assert want["q"]["b"] == pytest.approx(-2e9)
    _, X, groups = aligned(runs)
    with pytest.raises(skirm.InvalidInputError, match=r"norm='max' .* positive"):
        fuse_scores(X, groups=groups, method="combsum", norm="max")


@pytest.mark.parametrize("method", RANK_METHODS)
def test_rank_methods_do_not_read_the_norm(method):
    # ranx normalises before a rank method too; a normalisation keeps each
    # run's order, so the result is unchanged -- except ranx's "borda",
    # whose normalised runs list the candidates in a set's order, which its
    # rank methods then read as ranks.
    runs = make_runs("missing", 2)
    keys, X, groups = aligned(runs)
    plain = as_values(_ranx(runs, method, "none"), keys)
    for norm in ("min-max", "sum", "zscore", "rank"):
        np.testing.assert_allclose(
            as_values(_ranx(runs, method, norm), keys), plain, rtol=1e-12
        )
        got = fuse_scores(X, groups=groups, method=method, norm=norm)
        np.testing.assert_allclose(got, plain, rtol=1e-12, atol=1e-12)
    got = fuse_scores(X, groups=groups, method=method, norm="borda")
    np.testing.assert_allclose(got, plain, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("method", "norm"), CASES)
def test_one_run_is_fused_as_ranx_fuses_it_twice(method, norm):
    # ranx refuses one run ("Only one run provided"); skirm's fusion of one
    # run is ranx's of the run twice, halved for the sums (quartered where
    # the count multiplies), the same for max, min and the mean.
    (run,) = make_runs("one_retriever", 4)
    with pytest.raises(AssertionError, match="Only one run"):
        ranx.fuse([ranx.Run(run)], method="sum")
    keys, X, groups = aligned([run])
    twice = as_values(_ranx([run, run], method, norm), keys)
    scale = {"combmnz": 4.0, "isr": 4.0, "combmax": 1.0, "combmin": 1.0}
    scale["combanz"] = 1.0
    got = fuse_scores(X, groups=groups, method=method, norm=norm)
    np.testing.assert_allclose(
        got, twice / scale.get(method, 2.0), rtol=1e-12, atol=1e-12
    )


def test_runs_with_other_queries_are_fused_as_ranx_fuses_them_completed():
    # ranx refuses runs whose queries differ; skirm reads a query a run
    # lacks as one it returned nothing for: ranx's value with that query
    # given to the run empty.
    a = {"q1": {"d1": 2.0, "d2": 1.0, "d4": 0.5}, "q2": {"d3": 1.0, "d5": 2.0}}
    b = {"q1": {"d2": 3.0, "d1": 1.0}}
    with pytest.raises(AssertionError, match="query ids do not match"):
        ranx.fuse([ranx.Run(a), ranx.Run(b)], method="rrf")
    completed = [a, {**b, "q2": {}}]
    for method, norm in CASES:
        if norm == "zscore":  # see the test above: ranx loses q1 of b
            want = _ranx_query_by_query(completed, method, norm)
        else:
            want = _ranx(completed, method, norm)
        _check([a, b], method, norm, want)
