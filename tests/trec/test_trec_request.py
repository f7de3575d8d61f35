"""evaluate_run's request: the measures named (objects, nicknames, skirm
names), the grade skirm's ERR reads, and the whole messages of bad
measures and options."""

import re

import pytest

from skirm.io import Qrels, Run
from skirm.metrics import get_metric
from skirm.trec import evaluate_run, trec_measure_names
from skirm.trec._request import parse_measures


def _data():
    qrels = Qrels(["q"] * 3, ["d1", "d2", "d3"], [3, 1, 0])
    run = Run(["q"] * 2, ["d2", "d3"], [2.0, 1.0])  # d1, of grade 3, missed
    return qrels, run


def test_err_reads_the_largest_grade_of_the_qrels():
    """d2 (grade 1) at rank 1 stops the user with probability
    (2**1 - 1) / 2**3 = 1/8, where 3 is the largest grade of the qrels, not
    of the documents retrieved; d3 (grade 0) adds nothing."""
    result = evaluate_run(*_data(), ["err", "err@5", "map"])
    assert result.means["err"] == 0.125
    assert result.means["err@5"] == 0.125


def test_a_metric_object_is_named_by_its_name():
    qrels, run = _data()
    result = evaluate_run(qrels, run, [get_metric("ndcg@3"), "map"])
    assert list(result.means) == ["map", "ndcg@3"]
    assert result.means["ndcg@3"] == evaluate_run(qrels, run, "ndcg@3").means["ndcg@3"]


@pytest.mark.parametrize("compat", ["9.0", "10.0"])
def test_all_trec_holds_the_measures_of_the_version(compat):
    """rbp, rbp_resid and unj are trec_eval 10.0's, not 9.0's."""
    from skirm._measures._names import TREC_NAMES

    new_in_10 = {n for n, (_, t) in TREC_NAMES.items() if t.since == "10.0"}
    assert new_in_10 == {"rbp", "rbp_resid", "unj", "yaap"}
    result = evaluate_run(*_data(), "all_trec", compat=compat)
    new = {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"} & set(result.means)
    assert new == (
        set() if compat == "9.0" else {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"}
    )
    assert "map" in result.means and "P_5" in result.means


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"metrics": []},
            ValueError,
            "`metrics` must name at least one measure, got none",
        ),
        (
            {"metrics": ["map", "err@5", "err@5"]},
            ValueError,
            "`metrics` names 'err@5' twice",
        ),
        (
            {"metrics": "map", "compat": "8"},
            ValueError,
            "`compat` must be '10.0' (trec_eval 10.0, the default) or '9.0' "
            "(trec_eval 9.0.x, as pytrec_eval), got '8' (str)",
        ),
        (
            {"metrics": "map", "relevance_level": 2.5},
            ValueError,
            "`relevance_level` must be an integer >= 1, got 2.5 (float)",
        ),
        (
            {"metrics": "map", "relevance_level": True},
            ValueError,
            "`relevance_level` must be an integer >= 1, got True (bool)",
        ),
    ],
)
def test_request_errors_in_full(kwargs, error, message):
    qrels, run = _data()
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        evaluate_run(qrels, run, **kwargs)


def test_unknown_measure_message_in_full():
    message = (
        f"unknown measure 'nope'; valid trec_eval names: "
        f"{', '.join(trec_measure_names())}; or a skirm metric name (see "
        "skirm.metrics.metric_names()); or a diversity measure (see "
        "skirm.trec.evaluate_diversity)"
    )
    assert "runid, num_q, " in message
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        evaluate_run(*_data(), ["map", "nope"])


def test_diversity_measure_without_subtopics_message_in_full():
    message = (
        "'alpha_nDCG@20' is a diversity measure, which needs subtopic "
        "judgments: evaluate it with skirm.trec.evaluate_run or "
        "evaluate_diversity"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_measures(["alpha_nDCG@20"])
