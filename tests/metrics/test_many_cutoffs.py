"""Several cutoffs of one metric are computed in one pass over the ranking;
each must equal the metric computed alone at that cutoff."""

import numpy as np
import pytest
from _impressions import scores_for

from skirm._engine import prefix_sums
from skirm.metrics import evaluate, get_metric
from skirm.metrics._registry import SPECS, not_held

K_SPECS = [spec for spec in SPECS if spec.takes_k]
# Within every query, and beyond the longest (29 rows): both code paths.
CUTOFF_SETS = {"shallow": [1, 2, 3, 5, 7, 10, 20], "deep": [1, 4, 10, 40]}


def _data(seed, *, ties, n_groups=40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_groups)
    groups = np.repeat(np.arange(n_groups), sizes)
    rng.shuffle(groups)
    y_true = rng.integers(0, 4, groups.size) * (rng.random(groups.size) < 0.5)
    y_score = rng.integers(0, 4, groups.size) if ties else rng.random(groups.size)
    return y_true, y_score.astype(float), groups


@pytest.mark.parametrize("spec", K_SPECS, ids=lambda s: s.name)
@pytest.mark.parametrize("ties", ["average", "first", "pessimistic"])
@pytest.mark.parametrize("tied_scores", [False, True])
@pytest.mark.parametrize("no_relevant", [0.0, "skip"])
@pytest.mark.parametrize("cutoffs", CUTOFF_SETS)
def test_batched_cutoffs_equal_single_cutoffs(
    spec, ties, tied_scores, no_relevant, cutoffs
):
    if ties == "average" and tied_scores and spec.name in not_held("average_ties"):
        ties = "first"  # refused on ties (no closed form): the input order
    y_true, y_score, groups = _data(7, ties=tied_scores)
    y_score = scores_for(spec.name, y_score)
    names = [f"{spec.name}@{k}" for k in CUTOFF_SETS[cutoffs]]
    batched = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=names,
        ties=ties,
        no_relevant=no_relevant,
    )
    for name in names:
        alone = evaluate(
            y_true,
            y_score,
            groups=groups,
            metrics=[name],
            ties=ties,
            no_relevant=no_relevant,
        )
        np.testing.assert_allclose(
            batched.per_query[name], alone.per_query[name], rtol=1e-13, atol=1e-15
        )
        assert batched[name] == pytest.approx(alone[name], rel=1e-13, abs=1e-15)


def test_batches_keep_the_requested_order_and_options():
    y_true, y_score, groups = _data(3, ties=True)
    names = ["ndcg@5", "map", "dcg@10", "ndcg@10", "map@3", "mrr"]
    result = evaluate(y_true, y_score, groups=groups, metrics=names)
    assert result.metrics == names
    assert list(result.per_query) == names
    for name in names:
        alone = get_metric(name)(y_true, y_score, groups=groups)
        assert result[name] == pytest.approx(alone, rel=1e-13)
    exponential = evaluate(
        y_true,
        y_score,
        groups=groups,
        metrics=["ndcg@5", "ndcg@10"],
        gain="exponential",
    )
    expected = get_metric("ndcg@10", gain="exponential")(y_true, y_score, groups=groups)
    assert exponential["ndcg@10"] == pytest.approx(expected, rel=1e-13)
    assert exponential["ndcg@10"] != result["ndcg@10"]


def test_k_beyond_every_query_in_a_batch():
    y_true, y_score, groups = _data(5, ties=False, n_groups=10)
    names = ["precision@1000", "precision@2000", "recall@1000", "recall@3"]
    batched = evaluate(y_true, y_score, groups=groups, metrics=names)
    for name in names:
        alone = evaluate(y_true, y_score, groups=groups, metrics=[name])
        assert batched[name] == pytest.approx(alone[name], rel=1e-13)


@pytest.mark.parametrize("n_groups", [50, 200_000])  # padded matrix; key search
def test_prefix_sums_equal_per_cutoff_sums(n_groups):
    rng = np.random.default_rng(n_groups)
    n = 100_000
    codes = np.sort(rng.integers(0, n_groups, n))
    # Increasing, skipping positions within each query (as relevant rows do).
    steps = rng.integers(1, 4, n)
    csum = np.cumsum(steps)
    starts = np.searchsorted(codes, codes, side="left")
    position = csum - csum[starts] + steps[starts] - 1
    values = rng.random(n)
    ks = np.array([1, 2, 5, 9, 30])
    below = position < ks.max()  # the rows the kernels pass: above the deepest k
    codes, position, values = codes[below], position[below], values[below]
    got = prefix_sums(codes, position, values, ks, n_groups)
    for j, k in enumerate(ks):
        inside = position < k
        expected = np.bincount(codes[inside], values[inside], minlength=n_groups)
        np.testing.assert_allclose(got[:, j], expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cutoffs", [(3, 1, 2), (2, 1), (1, 2)])
@pytest.mark.parametrize("name", ["dcg", "ndcg", "err"])
def test_cutoffs_in_any_order_each_keep_their_own_value(name, cutoffs):
    """Cutoffs asked for in any order (3, 1, 2: the longest first): each
    label gets the value at its own cutoff, not the column at its position."""
    y_true, y_score, groups = _data(3, ties=False)
    names = [f"{name}@{k}" for k in cutoffs]
    batched = evaluate(y_true, y_score, groups=groups, metrics=names)
    for label in names:
        alone = evaluate(y_true, y_score, groups=groups, metrics=[label])
        np.testing.assert_array_equal(batched.per_query[label], alone.per_query[label])
    assert not np.array_equal(batched.per_query[names[0]], batched.per_query[names[1]])


@pytest.mark.parametrize("deepest", [0, 1, 3])
def test_prefix_sums_past_the_last_position_are_narrow_and_exact(monkeypatch, deepest):
    """Cutoffs up to 1,000 on queries of at most ``deepest + 1`` positions
    (trec_eval's cutoffs on a run of short queries): the padded lines stop
    after the last position, and every column equals an ordered per-query
    sum to the last bit."""
    import skirm._engine._reduce as reduce

    widths = []
    real = reduce.prefix_lines
    monkeypatch.setattr(
        reduce, "prefix_lines", lambda *a: widths.append(a[-1]) or real(*a)
    )
    rng = np.random.default_rng(deepest)
    n_groups = 300
    sizes = rng.integers(0, deepest + 2, n_groups)
    codes = np.repeat(np.arange(n_groups), sizes)
    position = np.concatenate([np.arange(s) for s in sizes]).astype(np.intp)
    values = rng.random(codes.shape[0]) * 10.0 ** rng.integers(-8, 8, codes.shape[0])
    ks = np.array([1000, 5, 1, 2, 500, 1000])
    got = prefix_sums(codes, position, values, ks, n_groups)
    assert max(widths) <= deepest + 2
    for g in range(n_groups):
        mine = values[codes == g]
        for j, k in enumerate(ks):
            total = 0.0
            for v in mine[:k]:
                total += v
            assert got[g, j] == total
    assert (
        prefix_sums(codes[:0], position[:0], values[:0], ks, 4).tolist()
        == [[0.0] * 6] * 4
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("per_line", [0.2, 1, 3, 20])
def test_sparse_and_padded_prefix_sums_agree_bit_for_bit(seed, per_line):
    """A few values per query (the relevant rows of a long ranking) are
    summed without the padded matrix; the sums are its own, bit for bit:
    the same additions in the same order, a leading -0.0 included."""
    import skirm._engine._reduce as reduce

    rng = np.random.default_rng(seed)
    n_groups, deepest = 400, 120
    sizes = rng.poisson(per_line, n_groups)
    sizes = np.minimum(sizes, deepest)
    codes = np.repeat(np.arange(n_groups), sizes)
    position = np.concatenate(
        [np.sort(rng.choice(deepest, s, replace=False)) for s in sizes]
    ).astype(np.intp)
    choices = [0.0, -0.0, 1.0, 0.1, 1 / 3, 2.5, 1e-17, 7.0, -3.0]
    values = rng.choice(choices, codes.shape[0]) * rng.random(codes.shape[0]) ** 2
    values[rng.random(codes.shape[0]) < 0.2] = -0.0
    ks = np.unique(rng.integers(1, deepest + 40, 6))
    below = position < ks.max()
    codes, position, values = codes[below], position[below], values[below]
    if not codes.shape[0]:
        return
    got = reduce._sparse_prefix_sums(codes, position, values, ks, n_groups)
    clipped = np.minimum(ks, int(position.max()) + 1)
    padded = reduce.prefix_lines(
        codes, position, values, n_groups, int(clipped.max()) + 1
    )
    assert got.tobytes() == padded[:, clipped].tobytes()
    assert prefix_sums(codes, position, values, ks, n_groups).tobytes() == got.tobytes()
