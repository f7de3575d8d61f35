"""Many callers at once: the public evaluators give the serial values from
eight threads, while their own worker threads share out the blocks.

The inputs are large enough for the engine to cut them into blocks that go
to its worker threads (more rows than ``BLOCK_ROWS`` for the arrays, more
queries than ``MAX_BLOCK_QUERIES`` in a streamed run file), so the callers'
threads and the engine's run at the same time. Every value must be equal to
the serial one, bit for bit.
"""

import threading

import numpy as np
from joblib import parallel_config
from sklearn.linear_model import Ridge

import skirm._engine._blocks
import skirm.trec._inputs
from skirm.io import write_run
from skirm.metrics import evaluate, get_scorer, make_ranking_scorer
from skirm.trec import RelevanceEvaluator, evaluate_run

N_CALLERS = 8
METRICS = ["ndcg@10", "map", "mrr", "err@20", "p@5"]
TREC_MEASURES = ["map", "ndcg_cut.10", "P.5", "recip_rank", "bpref"]


def _arrays(n_groups=1_500, n_docs=100):
    rng = np.random.default_rng(39)
    groups = np.repeat(np.arange(n_groups), n_docs)
    rng.shuffle(groups)  # the engine sorts the rows by query
    X = rng.normal(size=(groups.size, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=groups.size)), 0, 3).astype(int)
    y_score = np.round(X @ [1.0, 0.5, 0.0, -0.5], 1)  # ties within queries
    return X, y, y_score, groups


def _trec_dicts(n_queries, n_docs, seed):
    rng = np.random.default_rng(seed)
    pool = np.tile(np.arange(3 * n_docs), (n_queries, 1))
    retrieved = rng.permuted(pool, axis=1)[:, :n_docs].tolist()
    judged = rng.permuted(pool, axis=1)[:, :n_docs].tolist()
    grades = rng.integers(0, 3, (n_queries, n_docs)).tolist()
    scores = np.round(rng.normal(size=(n_queries, n_docs)), 1).tolist()  # ties
    qrels, run = {}, {}
    for q in range(n_queries):
        qrels[f"q{q}"] = {f"d{d}": g for d, g in zip(judged[q], grades[q], strict=True)}
        run[f"q{q}"] = {
            f"d{d}": x for d, x in zip(retrieved[q], scores[q], strict=True)
        }
    return qrels, run


def _write_trec(tmp_path, qrels, run):
    qrels_path = tmp_path / "qrels.txt"
    with qrels_path.open("w") as out:
        for q, docs in qrels.items():
            out.writelines(f"{q} 0 {d} {g}\n" for d, g in docs.items())
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    run_path = tmp_path / "run.txt"
    write_run(run_path, *zip(*rows, strict=True))
    return qrels_path, run_path


def _at_once(calls):
    """Each caller's calls, all callers started together on their own
    threads: ``[[result of each call] for each caller]``."""
    start = threading.Barrier(len(calls))
    results = [None] * len(calls)
    errors = []

    def caller(i):
        try:
            start.wait()
            results[i] = [call() for call in calls[i]]
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def _per_query(result):
    return result.group_ids, {k: v.copy() for k, v in result.per_query.items()}


def test_eight_threads_at_once_give_the_serial_values(tmp_path):
    X, y, y_score, groups = _arrays()
    assert y.size > skirm._engine._blocks.BLOCK_ROWS  # blocks go to threads
    qrels, run = _trec_dicts(skirm.trec._inputs.MAX_BLOCK_QUERIES + 200, 4, 1)
    qrels_path, run_path = _write_trec(tmp_path, qrels, run)
    # the evaluator holds its qrels; it evaluates the run of 1,000 queries
    evaluator = RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "bpref"})
    some = dict(list(run.items())[:1_000])
    model = Ridge().fit(X, y)
    scorers = [make_ranking_scorer(METRICS), get_scorer("ndcg@10")]

    def arrays():
        return _per_query(
            evaluate(y, y_score, groups=groups, metrics=METRICS, n_jobs=2)
        )

    def trec():
        return _per_query(evaluate_run(qrels_path, run_path, TREC_MEASURES))

    def scores():
        with parallel_config(backend="threading", n_jobs=2):  # the engine's too
            return [scorer(model, X, y, groups=groups) for scorer in scorers]

    def shared_evaluator():
        return evaluator.evaluate(some)

    calls = [arrays, trec, scores, shared_evaluator]
    serial = [call() for call in calls]
    # each caller calls every evaluator, starting at its own
    rotated = [calls[i % 4 :] + calls[: i % 4] for i in range(N_CALLERS)]
    for i, results in enumerate(_at_once(rotated)):
        for j, got in enumerate(results):
            want = serial[(i + j) % 4]
            if isinstance(want, tuple):  # (query ids, {metric: per query})
                np.testing.assert_array_equal(got[0], want[0])
                assert got[1].keys() == want[1].keys()
                for name, values in want[1].items():
                    np.testing.assert_array_equal(got[1][name], values, err_msg=name)
            else:  # scorer values and pytrec_eval's dicts: exactly equal
                assert got == want
