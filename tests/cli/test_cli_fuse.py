"""``skirm fuse``: the run skirm.trec.fuse returns, written byte for byte as
skirm.io.write_run writes it; with --tune, tune_fusion's held-out run and a
report of its weights and its comparison with each input run."""

import io

import pytest
from _fusion import make_runs

from skirm.io import as_run, write_run
from skirm.trec import fuse, tune_fusion


def _write(run, path, run_id):
    record = as_run(run, run_id=run_id)
    write_run(path, record.query_ids, record.doc_ids, record.scores, run_id=run_id)


@pytest.fixture
def files(tmp_path):
    runs = make_runs("missing", 0, n_queries=10)
    paths = []
    for name, run in zip(("bm25", "dense", "splade"), runs, strict=True):
        path = tmp_path / f"{name}.run"
        _write(run, path, name)
        paths.append(str(path))
    qrels = tmp_path / "qrels"
    lines = []
    for q in sorted(runs[0]):
        docs = sorted({d for run in runs for d in run[q]})
        lines += [f"{q} 0 {d} {i % 3}\n" for i, d in enumerate(docs[::2])]
    qrels.write_text("".join(lines))
    return paths, str(qrels)


def _written(run, run_id):
    out = io.StringIO()
    write_run(out, run.query_ids, run.doc_ids, run.scores, run_id=run_id)
    return out.getvalue()


@pytest.mark.parametrize(
    ("argv", "kwargs"),
    [
        ([], {}),
        (["-m", "rrf", "--k", "10"], {"method": "rrf", "k": 10.0}),
        (
            ["-m", "combmnz", "--norm", "zscore", "--weights", "1,0.5,0"],
            {"method": "combmnz", "norm": "zscore", "weights": [1.0, 0.5, 0.0]},
        ),
        (["--method", "rbc", "--phi", "0.5"], {"method": "rbc", "phi": 0.5}),
    ],
)
def test_the_run_written_is_the_python_doors_byte_for_byte(
    argv, kwargs, files, run_cli
):
    paths, _ = files
    status, out, err = run_cli(["fuse", *argv, *paths, "--run-id", "mine"])
    assert status == 0 and err == ""
    assert out == _written(fuse(paths, run_id="mine", **kwargs), "mine")


def test_tune_writes_the_held_out_run_and_reports(files, run_cli, tmp_path):
    paths, qrels = files
    argv = ["fuse", "--tune", "map", "--folds", "2", "--qrels", qrels, *paths]
    argv += ["--weight-step", "0.5", "--seed", "3"]
    status, out, err = run_cli(argv)
    tuned = tune_fusion(qrels, paths, "map", folds=2, weight_step=0.5, random_state=3)
    assert status == 0
    assert out == _written(tuned.run, "fused")
    lines = err.splitlines()
    assert lines[0].startswith("skirm fuse: rrf, weights chosen per fold on map")
    assert lines[1] == "fold  queries  train map  weights"
    for f in range(2):
        weights = " ".join(f"{w:g}" for w in tuned.weights[f])
        assert lines[2 + f].endswith(f"{tuned.train_scores[f]:.4f}  {weights}")
    assert "fused" in err and "Holm correction over 3 comparisons" in err
    report = tmp_path / "report.txt"
    status, out_again, err = run_cli([*argv, "--report", str(report)])
    assert status == 0 and err == "" and out_again == out
    assert report.read_text().splitlines()[:4] == lines[:4]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tune", "map"], "--tune needs --qrels"),
        (["--qrels", "q"], "--qrels goes with --tune"),
        (["--report", "r"], "--report goes with --tune"),
        (
            ["--tune", "map", "--qrels", "q", "--weights", "1,1,1"],
            "--tune chooses the weights: leave out --weights",
        ),
        (["--weights", "1;2"], "--weights must be numbers separated by commas"),
        (["--weights", "1,-2,1"], "--weights must be None or a 1-D array-like"),
        (["-m", "wsum"], "--method must be one of 'rrf'"),
        (["--folds", "1"], "--folds must be an integer >= 2"),
    ],
)
def test_usage_errors(argv, message, files, run_cli):
    paths, _ = files
    status, out, err = run_cli(["fuse", *argv, *paths])
    assert status == 1 and out == ""
    assert f"skirm fuse: error: {message}" in err


def test_input_errors_have_their_statuses(files, run_cli, tmp_path):
    paths, _ = files
    dup = tmp_path / "dup.run"
    dup.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d1 2 1.0 r\n")
    status, out, err = run_cli(["fuse", paths[0], str(dup)])
    assert status == 4 and out == ""
    assert f"{dup}:2: duplicate docno 'd1' for query 'q1'" in err
    status, _, err = run_cli(["fuse", paths[0], str(tmp_path / "missing.run")])
    assert status == 2 and "cannot read" in err
    status, _, err = run_cli(["fuse", "-m", "combsum", "--norm", "max", *paths])
    assert status == 0  # generated scores are positive
    negative = tmp_path / "negative.run"
    negative.write_text("q1 Q0 d1 1 -1.0 r\nq1 Q0 d2 2 -2.0 r\n")
    status, _, err = run_cli(["fuse", "-m", "combsum", "--norm", "max", str(negative)])
    assert status == 2 and "norm='max' divides each query's scores" in err


@pytest.mark.parametrize(
    ("argv", "kwargs"),
    [
        ([], {}),
        (["-m", "combmnz", "--weights", "1,0.5,0"], {"method": "combmnz",
                                                     "weights": [1, 0.5, 0]}),
    ],
)  # fmt: skip
def test_the_run_written_is_the_dicts_run_byte_for_byte(argv, kwargs, files, run_cli):
    # the runs held as dicts take their own reader; the files the records'
    paths, _ = files
    runs = make_runs("missing", 0, n_queries=10)
    status, out, err = run_cli(["fuse", *argv, *paths, "--run-id", "mine"])
    assert status == 0 and err == ""
    assert out == _written(fuse(runs, run_id="mine", **kwargs), "mine")
