"""skirm.trec.fuse and skirm.trec.tune_fusion: runs in every shape skirm.io
takes, one run out; weights chosen per fold without the fold's queries."""

import io

import numpy as np
import pytest
from _fusion import aligned, as_values, make_runs, reference_fuse
from _token_shapes import fake_hash

import skirm
from skirm.fusion import fuse_scores
from skirm.io import Run, as_run, write_run
from skirm.trec import DuplicateDocnoError, evaluate_run, fuse, tune_fusion

# ranx's numba kernels warn of their own casts while they compile
pytestmark = pytest.mark.filterwarnings(
    "ignore:unsafe cast from uint64 to int64:Warning"
)


def _written(run):
    out = io.StringIO()
    write_run(out, run.query_ids, run.doc_ids, run.scores, run_id=run.run_id)
    return out.getvalue()


def _as_dict(run):
    out = {}
    for q, d, s in zip(run.query_ids, run.doc_ids, run.scores, strict=True):
        out.setdefault(str(q), {})[str(d)] = s
    return out


@pytest.fixture
def runs():
    return make_runs("missing", 0)


def test_every_shape_of_run_gives_the_same_fused_run(runs, tmp_path):
    want = fuse(runs, method="combmnz", norm="zscore")
    records = [as_run(run, run_id=f"r{i}") for i, run in enumerate(runs)]
    paths = []
    for i, record in enumerate(records):
        path = tmp_path / f"run{i}"
        write_run(path, record.query_ids, record.doc_ids, record.scores)
        paths.append(path)
    shapes = {
        "records": records,
        "paths": paths,
        "open files": [open(path, "rb") for path in paths],
        "frames": [record.to_frame() for record in records],
    }
    ranx = pytest.importorskip("ranx")
    shapes["ranx"] = [ranx.Run(run) for run in runs]
    for name, given in shapes.items():
        got = fuse(given, method="combmnz", norm="zscore")
        assert _written(got) == _written(want), name
    for file in shapes["open files"]:
        file.close()


def test_the_fused_run_is_ranked_and_equals_the_arrays(runs):
    run = fuse(runs, method="rrf", k=10)
    keys, X, groups = aligned(runs)
    want = fuse_scores(X, groups=groups, method="rrf", k=10)
    np.testing.assert_array_equal(as_values(_as_dict(run), keys), want)
    # by query id, then score descending, then docno descending
    rows = list(zip(run.query_ids, -run.scores, [d for d in run.doc_ids], strict=True))
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0], rows[i][1]))
    assert [rows[i][0] for i in order] == [r[0] for r in rows]
    assert run.run_id == "fused"


def test_ties_of_fused_scores_are_written_by_docno_descending():
    a = {"q": {"x": 2.0, "y": 1.0}}
    b = {"q": {"y": 2.0, "x": 1.0}}
    run = fuse([a, b], run_id="both")
    assert run.doc_ids.tolist() == ["y", "x"] and run.scores[0] == run.scores[1]
    assert _written(run).splitlines()[0] == f"q Q0 y 1 {float(run.scores[0])!r} both"


def test_weight_zero_leaves_out_the_documents_only_that_run_returned(runs):
    run = fuse(runs, method="combsum", weights=[1.0, 0.0, 1.0])
    want = reference_fuse(runs, "combsum", "min-max", weights=[1.0, 0.0, 1.0])
    got = _as_dict(run)
    assert {q: set(docs) for q, docs in got.items()} == {
        q: set(docs) for q, docs in want.items()
    }
    for q, docs in want.items():
        assert got[q] == pytest.approx(docs, rel=1e-12, abs=1e-12)


def test_a_docno_twice_in_a_run_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "dup"
    path.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.5 r\nq1 Q0 d1 3 1.0 r\n")
    with pytest.raises(
        DuplicateDocnoError,
        match=rf"^{path}:3: duplicate docno 'd1' for query 'q1' \(first at line 1\) "
        r"in run 1 \('r'\)",
    ):
        fuse([{"q1": {"d1": 1.0}}, str(path)])


@pytest.mark.parametrize(
    ("runs_given", "match"),
    [
        ({"q1": {"d1": 1.0}}, r"^`runs` must be a list of runs .* got dict"),
        ("run.txt", r"^`runs` must be a list of runs .* got str"),
        ([], r"^`runs` must hold at least one run"),
    ],
)
def test_runs_must_be_a_list(runs_given, match):
    with pytest.raises(skirm.InvalidParameterError, match=match):
        fuse(runs_given)


def test_a_hash_collision_falls_back_to_the_strings(runs, monkeypatch):
    want = _written(fuse(runs, method="borda"))
    # every docno hashed alike: each query's keys collide
    fake_hash(monkeypatch, lambda t: np.zeros(len(t), dtype=np.uint64))
    assert _written(fuse(runs, method="borda")) == want


def _qrels(runs, seed=0):
    rng = np.random.default_rng(seed)
    docs = sorted({(q, d) for run in runs for q in run for d in run[q]})
    qrels = {}
    for q, d in docs:
        if rng.random() < 0.4:
            qrels.setdefault(q, {})[d] = int(rng.integers(0, 3))
    return qrels


def test_tuned_weights_are_the_best_on_the_other_folds_queries():
    runs = make_runs("plain", 1, n_queries=15)
    qrels = _qrels(runs)
    tuned = tune_fusion(
        qrels, runs, "ndcg@10", method="combsum", folds=3, weight_step=0.5
    )
    grid = np.array([[1, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 1, 0]])
    grid = np.vstack([grid, [[0, 0.5, 0.5], [0, 0, 1]]])
    assert tuned.weights.shape == (3, 3)
    held_out = {}
    for f, fold in enumerate(tuned.folds):
        others = [q for q in sorted({q for run in runs for q in run}) if q not in fold]
        train = [{q: run[q] for q in others} for run in runs]
        judged = {q: qrels[q] for q in others if q in qrels}
        scores = [
            evaluate_run(
                judged,
                fuse(train, method="combsum", weights=w),
                "ndcg@10",
                all_queries=True,
            ).means["ndcg@10"]
            for w in grid
        ]
        best = max(scores)
        winners = [w for w, s in zip(grid, scores, strict=True) if s == best]
        nearest = min(winners, key=lambda w: ((w - 1 / 3) ** 2).sum())
        np.testing.assert_array_equal(tuned.weights[f], nearest)
        assert tuned.train_scores[f] == pytest.approx(best, rel=1e-12)
        fused = _as_dict(fuse(runs, method="combsum", weights=tuned.weights[f]))
        held_out.update({q: fused[q] for q in fold})
    assert _as_dict(tuned.run) == held_out


def test_a_folds_judgements_do_not_reach_its_weights():
    runs = make_runs("plain", 2, n_queries=12)
    qrels = _qrels(runs, seed=1)
    tuned = tune_fusion(qrels, runs, "map", folds=3, weight_step=0.5)
    for f, fold in enumerate(tuned.folds):
        # every judgement of the fold's queries changed: its weights are not
        changed = {
            q: ({d: 2 - r for d, r in judged.items()} if q in fold else judged)
            for q, judged in qrels.items()
        }
        again = tune_fusion(changed, runs, "map", folds=3, weight_step=0.5)
        np.testing.assert_array_equal(again.weights[f], tuned.weights[f])


def test_tune_fusion_reads_each_run_once(tmp_path):
    # regression: the input runs' evaluations re-read the runs given, so an
    # open file (already read to its end by the fusion) was an empty run
    runs = make_runs("plain", 2, n_queries=12)
    qrels = _qrels(runs, seed=1)
    paths = []
    for i, run in enumerate(runs):
        record = as_run(run, run_id=f"r{i}")
        path = tmp_path / f"run{i}"
        write_run(path, record.query_ids, record.doc_ids, record.scores, run_id=f"r{i}")
        paths.append(path)
    want = tune_fusion(qrels, paths, "map", folds=3, weight_step=0.5)
    files = [open(path, "rb") for path in paths]
    try:
        got = tune_fusion(qrels, files, "map", folds=3, weight_step=0.5)
    finally:
        for file in files:
            file.close()
    assert _written(got.run) == _written(want.run)
    assert list(got.results) == ["fused", "r0", "r1", "r2"]
    for name, result in want.results.items():
        for measure, values in result.per_query.items():
            np.testing.assert_array_equal(got.results[name].per_query[measure], values)


def test_tune_fusion_errors():
    runs = make_runs("plain", 0, n_queries=4)
    qrels = _qrels(runs)
    with pytest.raises(skirm.InvalidInputError, match=r"^`folds`=5 is more than"):
        tune_fusion(qrels, runs, folds=5)
    with pytest.raises(skirm.InvalidParameterError, match=r"^`folds` must be"):
        tune_fusion(qrels, runs, folds=1)
    with pytest.raises(skirm.InvalidParameterError, match="one measure with"):
        tune_fusion(qrels, runs, "P.5,10", folds=2, weight_step=0.5)
    with pytest.raises(skirm.InvalidParameterError, match="unknown measure"):
        tune_fusion(qrels, runs, "ndgc@10", folds=2, weight_step=0.5)
    assert repr(tune_fusion(qrels, runs, folds=2, weight_step=0.5)).startswith(
        "TunedFusion(metric='ndcg@10', n_folds=2"
    )


def test_the_fused_run_is_a_skirm_run():
    run = fuse([{"q": {"a": 1.0}}, {"q": {"b": 1.0}}], method="isr")
    assert isinstance(run, Run)
    assert run.query_ids.tolist() == ["q", "q"]
