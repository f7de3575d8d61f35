"""Statistics find a measure under any of its spellings (issue 51, item 12).

Results keep the names they were computed under (``evaluate_run`` trec_eval's
output names, ``ndcg_cut_10``); ``compare``, ``meta_analysis``,
``system_agreement`` and the per-query display accept every spelling of a
measure a result holds (``ndcg_cut.10``, ``nDCG@10``, ``ndcg@10``), and only
those: a spelling with other options (gdeval's ``ERR@20``) is another
measure.
"""

import numpy as np
import pytest

from skirm import InvalidParameterError
from skirm._measures._held import held_name
from skirm.metrics import evaluate
from skirm.stats import compare, meta_analysis
from skirm.trec import evaluate_run


def _trec_results(seed, n_queries=12, n_docs=15):
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(n_docs)}
        for q in range(n_queries)
    }
    out = {}
    for system in ("a", "b"):
        run = {q: {f"d{d}": float(rng.normal()) for d in range(n_docs)} for q in qrels}
        out[system] = evaluate_run(qrels, run, ["ndcg_cut.10", "map", "P.5", "bpref"])
    return out


@pytest.mark.parametrize(
    ("typed", "held"),
    [
        ("ndcg_cut.10", "ndcg_cut_10"),
        ("ndcg@10", "ndcg_cut_10"),
        ("nDCG@10", "ndcg_cut_10"),
        ("P@5", "P_5"),
        ("p@5", "P_5"),
        ("precision@5", "P_5"),
        ("AP", "map"),
        ("Bpref", "bpref"),
    ],
)
def test_compare_takes_every_spelling_regression(typed, held):
    """``compare(..., metrics=["ndcg_cut.10"])`` refused the name as typed
    because the results keep ``ndcg_cut_10``."""
    results = _trec_results(0)
    assert held in results["a"].per_query
    got = compare(results, metrics=[typed], random_state=0)
    want = compare(results, metrics=[held], random_state=0)
    assert got.metrics == [typed]
    (got_pair,), (want_pair,) = got.to_records("pairs"), want.to_records("pairs")
    assert got_pair.pop("metric") == typed and want_pair.pop("metric") == held
    assert got_pair == want_pair
    assert got.means["a"][typed] == want.means["a"][held]


def test_meta_analysis_takes_every_spelling_regression():
    collections = {name: _trec_results(seed) for seed, name in enumerate("xyz")}
    pairs = {name: (r["a"], r["b"]) for name, r in collections.items()}
    want = meta_analysis(pairs, metric="ndcg_cut_10", random_state=1)
    for typed in ("ndcg_cut.10", "nDCG@10", "ndcg@10"):
        got = meta_analysis(pairs, metric=typed, random_state=1)
        assert (got.effect, got.tau2, got.mean_interval) == (
            want.effect,
            want.tau2,
            want.mean_interval,
        )


def test_spellings_of_other_measures_are_not_taken():
    results = _trec_results(2)
    held = list(results["a"].per_query)
    # gdeval's ERR (max_grade 4), another cutoff, rel=2: other measures
    for typed in ("ERR@20", "ndcg_cut.5", "P(rel=2)@5", "map_cut.10", "nope"):
        assert held_name(typed, held) is None
        with pytest.raises(InvalidParameterError, match="does not hold"):
            compare(results, metrics=[typed])


def test_one_measure_held_twice_is_ambiguous():
    rng = np.random.default_rng(3)
    y, g = rng.integers(0, 3, 60), np.repeat(np.arange(6), 10)
    result = evaluate(
        y, rng.normal(size=60), groups=g, metrics=["ndcg@10", "ndcg_cut.10"]
    )
    other = evaluate(
        y, rng.normal(size=60), groups=g, metrics=["ndcg@10", "ndcg_cut.10"]
    )
    assert held_name("ndcg@10", result.per_query) == "ndcg@10"  # as typed first
    with pytest.raises(InvalidParameterError, match="under 2 names"):
        compare({"a": result, "b": other}, metrics=["nDCG@10"])


def test_system_agreement_and_per_query_display_take_every_spelling():
    pytest.importorskip("matplotlib")
    from skirm.plot import PerQueryDisplay
    from skirm.stats import system_agreement

    systems = {name: _trec_results(seed)["a"] for seed, name in enumerate("abcd")}
    judges_b = {name: _trec_results(seed + 10)["a"] for seed, name in enumerate("abcd")}
    got = system_agreement(systems, judges_b, metric="nDCG@10", random_state=0)
    want = system_agreement(systems, judges_b, metric="ndcg_cut_10", random_state=0)
    assert got.pairs == want.pairs
    np.testing.assert_array_equal(got.means_b, want.means_b)
    display = PerQueryDisplay.from_evaluations(
        systems["a"], systems["b"], metric="ndcg_cut.10"
    )
    wanted = PerQueryDisplay.from_evaluations(
        systems["a"], systems["b"], metric="ndcg_cut_10"
    )
    np.testing.assert_array_equal(display.differences, wanted.differences)
