"""The C/W/L family (INST, INSQ, BPM, NERR8-11, SDCG) against cwl_eval.

cwl_eval is the reference twice: through ir_measures (its provider, the
measure values per query) and directly (its measure objects: the five
numbers it reports and their residuals). The generated queries vary one
dimension at a time: lengths below and beyond the user model's depth,
binary and graded labels, the gain range, ties (read in input order, as
cwl_eval reads a run), unjudged rows, queries without relevant rows.
"""

import itertools
import logging
import re

import numpy as np
import pytest

from skirm.metrics import cwl_report, evaluate, get_metric, inst_score
from skirm.trec import evaluate_run

pytestmark = pytest.mark.oracle

#: ir_measures string -> (skirm measure, k, options)
MEASURES = {
    "INST(T=1.0,max_rel=3)": ("inst", None, {}),
    "INST(T=2.5,min_rel=1,max_rel=3)": ("inst", None, {"T": 2.5, "min_rel": 1}),
    "INSQ(T=2.0,max_rel=3)": ("insq", None, {"T": 2.0}),
    "BPM(T=1.0,max_rel=3)@10": ("bpm", 10, {}),
    "BPM(T=2.0,max_rel=3)@5": ("bpm", 5, {"T": 2.0}),
    "NERR8(max_rel=3)@10": ("nerr8", 10, {}),
    "NERR9(max_rel=3)@5": ("nerr9", 5, {}),
    "NERR10(p=0.8,max_rel=3)": ("nerr10", None, {"p": 0.8}),
    "NERR11(T=2.0,max_rel=3)": ("nerr11", None, {"T": 2.0}),
    "SDCG(max_rel=3)@10": ("sdcg", 10, {}),
    "SDCG(max_rel=2)@20": ("sdcg", 20, {"max_rel": 2}),
}

DIMENSIONS = ("baseline", "short", "deep", "binary", "ties", "no_relevant", "top")


def _case(dimension, seed):
    rng = np.random.default_rng(seed)
    n_queries = 12
    high = {"short": 4, "deep": 1300}.get(dimension, 60)
    sizes = rng.integers(1, high, n_queries)
    groups = np.repeat(np.arange(n_queries), sizes)
    p = [0.5, 0.25, 0.15, 0.1]
    if dimension == "binary":
        p = [0.6, 0.4, 0.0, 0.0]
    y_true = rng.choice(4, groups.size, p=p).astype(float)
    if dimension == "no_relevant":
        y_true[groups % 3 == 0] = 0.0
    if dimension == "top":  # relevant rows at the top: the user stops early
        y_true = np.where(rng.random(groups.size) < 0.8, 3.0, 0.0)
    y_score = rng.permutation(groups.size).astype(float)
    if dimension == "ties":
        y_score = rng.integers(0, 5, groups.size).astype(float)
    return y_true, y_score, groups


def _ir_measures_values(name, y_true, y_score, groups):
    ir_measures = pytest.importorskip("ir_measures")
    logging.getLogger("ir_measures").setLevel(logging.ERROR)
    qrels = [
        ir_measures.Qrel(str(q), f"d{i}", int(y_true[i])) for i, q in enumerate(groups)
    ]
    # Rows in rank order of skirm's ties="first": ir_measures sorts each
    # query's run stably by score, so its tie order is this input order too.
    run = [
        ir_measures.ScoredDoc(str(q), f"d{i}", float(y_score[i]))
        for i, q in enumerate(groups)
    ]
    measure = ir_measures.parse_measure(name)
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_equal_to_cwl_eval_through_ir_measures(dimension):
    for seed in (0, 1):
        y_true, y_score, groups = _case(dimension, seed)
        result = evaluate(
            y_true, y_score, groups=groups, metrics=list(MEASURES), ties="first"
        )
        ids = result.group_ids.astype(str)
        for name in MEASURES:
            want = _ir_measures_values(name, y_true, y_score, groups)
            got = dict(zip(ids, result.per_query[name], strict=True))
            assert set(got) == set(want)
            for qid, value in want.items():
                assert got[qid] == pytest.approx(value, abs=1e-9), (name, qid)


def _cwl_metric(measure, k, T, p):
    from cwl.ruler.cwl_ruler import (
        BPMCWLMetric,
        INSQCWLMetric,
        INSTCWLMetric,
        NDCGCWLMetric,
        NERReq8CWLMetric,
        NERReq9CWLMetric,
        NERReq10CWLMetric,
        NERReq11CWLMetric,
    )

    return {
        "inst": lambda: INSTCWLMetric(T),
        "insq": lambda: INSQCWLMetric(T),
        "bpm": lambda: BPMCWLMetric(T, k),
        "nerr8": lambda: NERReq8CWLMetric(k),
        "nerr9": lambda: NERReq9CWLMetric(k),
        "nerr10": lambda: NERReq10CWLMetric(p),
        "nerr11": lambda: NERReq11CWLMetric(T),
        "sdcg": lambda: NDCGCWLMetric(k),
    }[measure]()


REPORTED = (
    "expected_utility",
    "expected_total_utility",
    "expected_cost",
    "expected_total_cost",
    "expected_items",
)


@pytest.mark.parametrize(
    "measure", ["inst", "insq", "bpm", "nerr8", "nerr9", "nerr10", "nerr11", "sdcg"]
)
def test_five_numbers_and_residuals_equal_cwl_eval(measure):
    pytest.importorskip("cwl")
    from cwl.ruler.ranking import Ranking

    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 30, 10)
    groups = np.repeat(np.arange(10), sizes)
    y_true = rng.choice(3, groups.size, p=[0.6, 0.3, 0.1]).astype(float)
    y_true[rng.random(groups.size) < 0.2] = np.nan  # unjudged
    y_score = rng.permutation(groups.size).astype(float)
    k, T, p, depth = 6, 1.5, 0.7, 50
    report = cwl_report(
        y_true,
        y_score,
        groups=groups,
        measure=measure,
        k=k,
        T=T,
        p=p,
        max_rel=2,
        depth=depth,
    )
    for code, qid in enumerate(report.group_ids):
        rows = np.flatnonzero(groups == qid)
        rows = rows[np.argsort(-y_score[rows], kind="stable")]
        gains = y_true[rows] / 2.0
        ranking = Ranking(str(qid), gains, np.full(len(rows), np.nan), max_n=depth)
        metric = _cwl_metric(measure, k, T, p)
        metric.residuals = True
        metric.measure(ranking)
        want = dict(zip(REPORTED, metric.get_scores(), strict=True))
        want.update(
            residual_expected_utility=metric.residual_expected_utility,
            residual_expected_total_utility=metric.residual_expected_total_utility,
            residual_expected_cost=metric.residual_expected_cost,
            residual_expected_total_cost=metric.residual_expected_total_cost,
            residual_expected_items=metric.residual_expected_items,
        )
        for name, value in want.items():
            got = report.per_query[name][code]
            assert got == pytest.approx(value, abs=1e-9), (measure, qid, name)


def test_average_ties_exact_for_static_measures_refused_for_adaptive():
    y_true = np.array([2.0, 0.0, 1.0, 0.0, 2.0])
    y_score = np.array([1.0, 1.0, 1.0, 0.5, 0.5])
    groups = np.zeros(5)
    # Every ordering of the two tie blocks, each read in input order.
    orders = [
        [*first, *second]
        for first in itertools.permutations((0, 1, 2))
        for second in itertools.permutations((3, 4))
    ]
    ranked = -np.arange(5.0)
    for metric in (
        get_metric("insq", T=2.0, max_rel=2),
        get_metric("sdcg@3", max_rel=2),
    ):
        want = np.mean([metric(y_true[o], ranked, groups=groups) for o in orders])
        assert metric(y_true, y_score, groups=groups) == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match=r"ties='average' is not available .*'inst'"):
        inst_score(y_true, y_score, groups=groups)
    # Without ties every policy agrees.
    distinct = np.arange(5.0)
    assert inst_score(y_true, distinct, groups=groups) == inst_score(
        y_true, distinct, groups=groups, ties="first"
    )


@pytest.mark.parametrize(
    "measure, options",
    [("bpm", {"T": 2.0, "max_rel": 2}), ("sdcg", {"max_rel": 2, "depth": 12})],
)
def test_several_cutoffs_keep_the_options(measure, options):
    # Several cutoffs of one measure are computed together: each with the
    # options given, as the measure alone (checked against cwl_eval above).
    y_true, y_score, groups = _case("baseline", 5)
    names = [f"{measure}@{k}" for k in (3, 10)]
    batched = evaluate(y_true, y_score, groups=groups, metrics=names, **options)
    for name in names:
        alone = get_metric(name, **options)
        want = alone(y_true, y_score, groups=groups)
        assert batched[name] == pytest.approx(want, rel=1e-13)
        assert want != pytest.approx(get_metric(name)(y_true, y_score, groups=groups))


def test_average_ties_refusal_message_names_the_measure_and_the_way_out():
    message = (
        "ties='average' is not available for the C/W/L measure 'bpm' on tied "
        "scores: its continuation depends on the gains already read, so the "
        "mean over the orderings of tied rows has no closed form; pass "
        "ties='first' (input order, as cwl_eval reads a run), 'optimistic' or "
        "'pessimistic'"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        get_metric("bpm@3")([1, 0, 2], [1.0, 1.0, 0.5], groups=[0, 0, 0])


def test_a_query_whose_rows_are_all_unjudged_and_condensed_reads_padding():
    # No row is left: the user reads 1000 ranks of gain 0. INST with T = 1
    # then continues with C_i = ((i + 1) / (i + 2))^2, reaches rank i with
    # probability P_i = (2 / (i + 1))^2, and reads sum P_i items; in the
    # best case every rank has gain 1, for an expected utility of 1.
    report = cwl_report(
        [np.nan, np.nan],
        [2.0, 1.0],
        groups=[0, 0],
        measure="inst",
        unjudged="condensed",
    )
    items = 4.0 * np.sum(1.0 / np.arange(2.0, 1002.0) ** 2)
    assert report.per_query["expected_utility"][0] == 0.0
    assert report.per_query["expected_items"][0] == pytest.approx(items, rel=1e-12)
    assert report.per_query["residual_expected_utility"][0] == pytest.approx(1.0)
    got = inst_score([np.nan, np.nan], [2.0, 1.0], groups=[0, 0], unjudged="condensed")
    assert got == 0.0


def test_report_without_residuals_holds_the_five_numbers():
    report = cwl_report([1, 0], [2, 1], groups=[0, 0], measure="insq", residuals=False)
    assert list(report.per_query) == list(REPORTED)


def test_residuals_of_a_judged_ranking_read_only_the_ranks_past_it():
    # Every row judged: the best case changes only the ranks past the
    # ranking. SDCG@2 never reads past rank 2, so its residuals are 0; INSQ
    # reads rank 3 on, at gain 1 in the best case.
    y_true, y_score, groups = [0.0, 0.0, 0.0], [3.0, 2.0, 1.0], [0, 0, 0]
    sdcg = cwl_report(y_true, y_score, groups=groups, measure="sdcg", k=2, max_rel=1)
    for name in REPORTED:
        assert sdcg.per_query["residual_" + name][0] == 0.0, name
    insq = cwl_report(y_true, y_score, groups=groups, measure="insq", max_rel=1)
    # C_i = ((i + 1) / (i + 2))^2 (T = 1): P_i = (2 / (i + 1))^2; the best
    # case's utility is the share of attention past rank 3.
    reach = (2.0 / np.arange(2.0, 1002.0)) ** 2
    past = reach[3:].sum() / reach.sum()
    assert insq.per_query["residual_expected_utility"][0] == pytest.approx(past)


@pytest.mark.parametrize("measure, k", [("insq", None), ("sdcg", 4)])
def test_average_ties_residuals_are_the_mean_over_orderings(measure, k):
    # Tied rows, one of them unjudged: the best case (gain 1 for the
    # unjudged row) averaged over the orderings of the tie block too.
    y_true = np.array([2.0, np.nan, 1.0, 0.0, np.nan])
    y_score = np.array([1.0, 1.0, 1.0, 0.5, 0.25])
    groups = np.zeros(5)
    options = {"measure": measure, "k": k, "max_rel": 2, "depth": 8}
    orders = [[*first, 3, 4] for first in itertools.permutations((0, 1, 2))]
    ranked = -np.arange(5.0)
    got = cwl_report(y_true, y_score, groups=groups, ties="average", **options)
    for name in got.per_query:
        want = np.mean(
            [
                cwl_report(y_true[o], ranked, groups=groups, **options)[name]
                for o in orders
            ]
        )
        assert got[name] == pytest.approx(want, abs=1e-12), name


def test_slices_of_queries_give_the_numbers_of_one_slice(monkeypatch):
    # The (queries x depth) matrices are built a few queries at a time: with
    # room for two queries per slice, 7 queries take 4 slices.
    import skirm.metrics._cwl

    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(7), rng.integers(1, 40, 7))
    y_true = rng.choice(3, groups.size).astype(float)
    y_true[rng.random(groups.size) < 0.2] = np.nan
    y_score = rng.permutation(groups.size).astype(float)
    whole = cwl_report(y_true, y_score, groups=groups, measure="inst", max_rel=2)
    monkeypatch.setattr(skirm.metrics._cwl, "_CELLS", 2 * 1000)
    sliced = cwl_report(y_true, y_score, groups=groups, measure="inst", max_rel=2)
    for name, values in whole.per_query.items():
        np.testing.assert_array_equal(sliced.per_query[name], values, err_msg=name)


def test_trec_path_equals_cwl_eval():
    y_true, y_score, groups = _case("baseline", 3)
    qrels = {
        str(q): {f"d{i}": int(y_true[i]) for i in np.flatnonzero(groups == q)}
        for q in np.unique(groups)
    }
    run = {
        str(q): {f"d{i}": float(y_score[i]) for i in np.flatnonzero(groups == q)}
        for q in np.unique(groups)
    }
    names = list(MEASURES)
    result = evaluate_run(qrels, run, names)
    ids = result.group_ids.astype(str)
    for name in names:
        want = _ir_measures_values(name, y_true, y_score, groups)
        got = dict(zip(ids, result.per_query[name], strict=True))
        for qid, value in want.items():
            assert got[qid] == pytest.approx(value, abs=1e-9), (name, qid)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"max_rel": 1.0, "min_rel": 1.0}, r"`max_rel` must be greater than `min_rel`"),
        ({"T": 0.0}, r"`T` must be a number > 0, got 0.0"),
        ({"T": -1}, r"`T` must be a number > 0, got -1"),
        ({"depth": 0}, r"`depth` must be a positive integer, got 0"),
        ({"min_rel": "a"}, r"`min_rel` must be a finite number, got 'a'"),
    ],
)
def test_bad_options_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        inst_score([1, 0], [2, 1], groups=[0, 0], **kwargs)


def test_bad_measure_and_options_of_the_report():
    with pytest.raises(
        ValueError, match=r"`measure` must be one of 'inst', .*got 'rbp'"
    ):
        cwl_report([1, 0], [2, 1], groups=[0, 0], measure="rbp")
    with pytest.raises(ValueError, match=r"`p` must be"):
        cwl_report([1, 0], [2, 1], groups=[0, 0], measure="nerr10", p=1.5)


@pytest.mark.parametrize("measure", ["bpm", "nerr8", "nerr9", "sdcg"])
def test_a_cutoff_past_the_depth_is_refused(measure):
    # Regression: k=50 with depth=20 was read as k=20 (expected total cost 20
    # where cwl_eval, whose stopping probabilities then sum to less than 1,
    # gives 0). A cutoff at the depth is cwl_eval's, checked above.
    with pytest.raises(ValueError, match=r"`k` must be at most `depth` \(20\)"):
        cwl_report([1, 0, 2], [3, 2, 1], groups=[0, 0, 0], measure=measure,
                   k=50, depth=20)  # fmt: skip
    with pytest.raises(ValueError, match=r"got k=2000. Raise `depth`"):
        evaluate([1, 0, 2], [3, 2, 1], groups=[0, 0, 0], metrics=[f"{measure}@2000"])
    report = cwl_report([1, 0, 2], [3, 2, 1], groups=[0, 0, 0], measure=measure,
                        k=20, depth=20)  # fmt: skip
    assert np.isfinite(report["expected_total_cost"])


@pytest.mark.parametrize("name", ["bpm", "nerr8", "nerr9", "sdcg"])
@pytest.mark.parametrize("k", [1, 2, 10, 119, 120, 121, 500])
def test_lines_cut_at_k_sum_as_lines_to_the_depth(name, k):
    # The measures whose continuation is 0 from rank k on are computed to
    # rank k only, their sums taken over zeros as wide as the depth: the
    # same bits as lines computed to the depth (numpy sums a C-ordered line
    # pairwise and an F-ordered one, sdcg's, column by column).
    from skirm.metrics._cwl import _BY_NAME, CONTINUATIONS, _model

    measure = _BY_NAME[name]
    rng = np.random.default_rng(k)
    depth, n = 1000, 37
    for pad in (0.0, 1.0):
        gain = np.full((n, depth), pad)
        filled = rng.integers(1, depth, n)
        for row, m in enumerate(filled):
            gain[row, :m] = rng.choice([0.0, 1 / 3, 2 / 3, 1.0], m)
        rank = np.arange(1.0, depth + 1.0)
        full = _model(CONTINUATIONS[measure](gain, rank, k, 1.0, 0.9), gain, rank)
        cut = np.ascontiguousarray(gain[:, :k])
        continuation = CONTINUATIONS[measure](cut, rank[:k], k, 1.0, 0.9)
        got = _model(continuation, cut, rank[:k], padded=(depth, {}))
        for a, b in zip(full, got, strict=True):
            assert np.array_equal(a.view(np.uint64), b.view(np.uint64))


@pytest.mark.parametrize("name", ["inst", "insq", "nerr10", "nerr11", "sdcg"])
@pytest.mark.parametrize("read", [0, 1, 7, 8, 100, 119, 120, 121, 162, 999])
@pytest.mark.parametrize("T", [1.0, 0.05])
def test_utility_of_lines_read_to_their_last_gain_sums_as_to_the_depth(name, read, T):
    # Where every gain past rank `read` is 0 (the ranking ends there), the
    # expected utility alone is summed over the first `read` ranks written
    # into zeros as wide as the depth: the same bits as over the depth. With
    # T=0.05 INST's continuation exceeds 1 and some attention is not finite:
    # then it is summed over the depth as before.
    from skirm.metrics._cwl import _BY_NAME, CONTINUATIONS, _model

    measure = _BY_NAME[name]
    rng = np.random.default_rng(read)
    depth, n = 1000, 37
    gain = np.zeros((n, depth))
    gain[:, :read] = rng.choice([0.0, 1 / 3, 2 / 3, 1.0], (n, read))
    gain[: n // 2, :read] = 1.0  # lines of every gain 1: the largest reach
    rank = np.arange(1.0, depth + 1.0)
    k = depth  # no cutoff: read to the depth
    with np.errstate(all="ignore"):
        full = _model(CONTINUATIONS[measure](gain, rank, k, T, 0.9), gain, rank)
        got = _model(
            CONTINUATIONS[measure](gain, rank, k, T, 0.9),
            gain,
            rank,
            utility_only=True,
            read=read,
        )
    assert np.array_equal(full[0].view(np.uint64), got[0].view(np.uint64))


@pytest.mark.parametrize("T", [1.0, 2.5, 0.05])
def test_continuations_are_the_formulas_bit_for_bit(T):
    # INST's, NERR10's and NERR11's continuations are computed in place, in
    # fewer matrices: the bits of the formulas as written.
    from skirm.metrics._cwl import CONTINUATIONS

    rng = np.random.default_rng(3)
    gain = rng.choice([0.0, 0.25, 1 / 3, 0.5, 1.0], (23, 300))
    rank = np.arange(1.0, 301.0)
    p = 0.8
    left = T - np.cumsum(gain, axis=1)
    want = {
        "inst": ((rank + T + left - 1.0) / (rank + T + left)) ** 2,
        "nerr10": p * (1.0 - gain),
        "nerr11": ((rank + 2.0 * T - 1.0) / (rank + 2.0 * T)) ** 2 * (1.0 - gain),
    }
    for measure, continuation in CONTINUATIONS.items():
        if measure.name in want:
            got = continuation(gain.copy(), rank, None, T, p)
            assert np.array_equal(
                got.view(np.uint64), want[measure.name].view(np.uint64)
            )
