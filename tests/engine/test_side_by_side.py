"""Tasks run side by side (``skirm._engine.side_by_side``): the qrels of a
TREC evaluation indexed while a run held in memory is read. Results in
order, on two threads where two cores are there, the first failing task's
error raised; and the evaluation's errors and values as one thread gives
them."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import skirm._engine._threads as threads_module
import skirm.trec._evaluate_run as evaluate_module
from skirm import InvalidInputError
from skirm._engine import side_by_side
from skirm.trec import evaluate_run


def test_results_in_order_on_two_threads(monkeypatch):
    monkeypatch.setattr(threads_module, "n_threads", lambda: 2)
    seen = []
    both = threading.Barrier(2, timeout=10)  # each waits for the other

    def task(value):
        def run():
            both.wait()
            seen.append(threading.get_ident())
            return value

        return run

    assert side_by_side(task("qrels"), task("run")) == ["qrels", "run"]
    assert len(set(seen)) == 2


def test_one_core_runs_them_in_turn(monkeypatch):
    monkeypatch.setattr(threads_module, "n_threads", lambda: 1)
    order = []
    result = side_by_side(
        lambda: order.append(1) or "a", lambda: order.append(2) or "b"
    )
    assert result == ["a", "b"] and order == [1, 2]


@pytest.mark.parametrize("cores", [1, 2])
def test_the_first_failing_task_s_error_is_raised(monkeypatch, cores):
    monkeypatch.setattr(threads_module, "n_threads", lambda: cores)

    def fails(message):
        def run():
            raise ValueError(message)

        return run

    with pytest.raises(ValueError, match=r"^first$"):
        side_by_side(fails("first"), fails("second"))
    with pytest.raises(ValueError, match=r"^second$"):
        side_by_side(lambda: 1, fails("second"))


def _frames():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    q = np.repeat([f"q{i}" for i in range(40)], 30)
    d = np.array([f"d{i}" for i in range(q.shape[0])])
    run = pd.DataFrame({"query_id": q, "doc_id": d, "score": rng.random(q.shape[0])})
    judged = rng.random(q.shape[0]) < 0.3
    qrels = pd.DataFrame(
        {
            "query_id": q[judged],
            "doc_id": d[judged],
            "relevance": rng.integers(0, 3, judged.sum()),
        }
    )
    return qrels, run


def test_a_run_in_memory_is_read_beside_the_qrels(monkeypatch, tmp_path):
    qrels, run = _frames()
    calls = []
    real = evaluate_module.side_by_side
    monkeypatch.setattr(
        evaluate_module, "side_by_side", lambda *t: calls.append(len(t)) or real(*t)
    )
    measures = ["map", "ndcg_cut.10", "P.5"]
    beside = evaluate_run(qrels, run, measures)
    assert calls == [2]
    path = tmp_path / "run"
    path.write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in run.itertuples(index=False))
    )
    streamed = evaluate_run(qrels, path, measures)
    assert calls == [2]  # a file is read as it is evaluated
    for one_core in (False, True):
        if one_core:
            monkeypatch.setattr(threads_module, "n_threads", lambda: 1)
        again = evaluate_run(qrels, run, measures)
        for other in (streamed, again):
            np.testing.assert_array_equal(other.group_ids, beside.group_ids)
            for name in beside.per_query:
                np.testing.assert_array_equal(
                    other.per_query[name], beside.per_query[name]
                )


def test_bad_qrels_and_a_bad_run_tell_the_qrels_error(monkeypatch):
    qrels, run = _frames()
    bad_qrels = qrels.assign(relevance=qrels["relevance"].astype(object))
    bad_qrels.loc[bad_qrels.index[0], "relevance"] = "high"
    bad_run = run.assign(score=run["score"].astype(object))
    bad_run.loc[bad_run.index[0], "score"] = "x"
    for cores in (2, 1):
        monkeypatch.setattr(threads_module, "n_threads", lambda n=cores: n)
        with pytest.raises(InvalidInputError, match="`qrels`: relevance values"):
            evaluate_run(bad_qrels, bad_run, ["map"])
        with pytest.raises(InvalidInputError, match="`run`: score values"):
            evaluate_run(qrels, bad_run, ["map"])
