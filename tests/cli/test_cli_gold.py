"""``--gold-qrels``: ``skirm eval`` and ``skirm compare`` on a judge's qrels
corrected by a qrels of human judgements of some queries."""

import csv
import io
import json

import numpy as np
import pytest

from skirm.io import read_qrels, read_run
from skirm.stats import ppi_compare, ppi_mean
from skirm.trec import evaluate_run

RUNS = {"bm25": 1.5, "neural": 0.6, "random": 50.0}
MEASURES = ["map", "ndcg_cut.10"]


def _write(tmp_path, n_queries=80, n_gold=25, scale=1):
    rng = np.random.default_rng(0)
    judge, gold, runs = [], [], {name: [] for name in RUNS}
    gold_queries = set(rng.choice(n_queries, n_gold, replace=False).tolist())
    for q in range(n_queries):
        labels = rng.choice(3, size=20, p=[0.7, 0.2, 0.1])
        judged = np.clip(labels + (rng.random(20) < 0.3), 0, 2)
        for d in range(20):
            judge.append(f"q{q} 0 d{d} {judged[d]}")
            if q in gold_queries:
                gold.append(f"q{q} 0 d{d} {labels[d] * scale}")
        for name, noise in RUNS.items():
            scores = labels + rng.normal(0, noise, 20)
            for rank, d in enumerate(np.argsort(-scores)):
                runs[name].append(f"q{q} Q0 d{d} {rank + 1} {scores[d]:.6f} {name}")
    paths = {"judge": tmp_path / "judge.qrels", "gold": tmp_path / "gold.qrels"}
    paths["judge"].write_text("\n".join(judge) + "\n")
    paths["gold"].write_text("\n".join(gold) + "\n")
    for name, lines in runs.items():
        paths[name] = tmp_path / f"{name}.run"
        paths[name].write_text("\n".join(lines) + "\n")
    return {k: str(v) for k, v in paths.items()}


@pytest.fixture
def files(tmp_path):
    return _write(tmp_path)


def _results(files, qrels, names=RUNS):
    judgements = read_qrels(files[qrels])
    return {n: evaluate_run(judgements, read_run(files[n]), MEASURES) for n in names}


def test_eval_prints_each_run_s_corrected_means(files, run_cli):
    argv = ["eval", files["judge"], files["bm25"], files["neural"]]
    status, out, err = run_cli([*argv, "--gold-qrels", files["gold"]])
    assert status == 0 and err == ""
    judge, gold = _results(files, "judge"), _results(files, "gold")
    names = ["map", "ndcg_cut_10"]
    expected = "".join(
        f"{name}\n{ppi_mean(judge[name], gold[name], metrics=names)}\n\n"
        for name in ["bm25", "neural"]
    )
    assert out == expected
    assert "map: 25 gold queries" in out


def test_eval_json_and_csv(files, run_cli):
    argv = ["eval", files["judge"], files["bm25"], "--gold-qrels", files["gold"]]
    status, out, _ = run_cli([*argv, "--format", "json", "--ppi-interval", "z"])
    assert status == 0
    doc = json.loads(out)
    assert doc[0]["run"] == "bm25" and doc[0]["file"] == files["bm25"]
    judge, gold = _results(files, "judge", ["bm25"]), _results(files, "gold", ["bm25"])
    result = ppi_mean(judge["bm25"], gold["bm25"], interval="z")
    assert doc[0]["estimates"][0]["ci_low"] == result.to_records()[0]["ci_low"]
    status, out, _ = run_cli([*argv, "--format", "csv", "--ppi-method", "ppi"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows[0]["run"] == "bm25" and len(rows) == 8
    assert {r["estimator"] for r in rows} == {"ppi++", "ppi", "gold", "judge"}


def test_compare_tests_the_corrected_differences(files, run_cli):
    argv = ["compare", files["judge"], files["bm25"], files["neural"], files["random"]]
    status, out, err = run_cli(
        [*argv, "--gold-qrels", files["gold"], "--baseline", "bm25"]
    )
    assert status == 0 and err == ""
    judge, gold = _results(files, "judge"), _results(files, "gold")
    expected = ppi_compare(judge, gold, baseline="bm25", metrics=["map", "ndcg_cut_10"])
    assert out == str(expected) + "\n"
    status, out, _ = run_cli([*argv, "--gold-qrels", files["gold"], "--format", "json"])
    doc = json.loads(out)
    assert doc["method"] == "ppi++" and doc["n_gold"] == {"map": 25, "ndcg_cut_10": 25}
    assert len(doc["pairs_table"]) == 6 and "kendall_tau" in doc
    status, out, _ = run_cli([*argv, "--gold-qrels", files["gold"], "--format", "csv"])
    tables = {row["table"] for row in csv.DictReader(io.StringIO(out))}
    assert tables == {"systems", "pairs"}


@pytest.mark.parametrize(
    ("command", "extra", "message"),
    [
        ("eval", ["-q"], "-q does not apply with --gold-qrels"),
        ("eval", ["--format", "trec"], "--gold-qrels prints table, json, csv"),
        ("compare", ["--test", "sign"], "--test does not apply with --gold-qrels"),
        ("compare", ["--format", "latex"], "--gold-qrels prints table, json, csv"),
        ("compare", ["--seed", "3"], "--seed does not apply with --gold-qrels"),
    ],
)
def test_options_that_do_not_apply(files, run_cli, command, extra, message):
    runs = [files["bm25"], files["neural"]]
    argv = [command, files["judge"], *runs, "--gold-qrels", files["gold"], *extra]
    status, out, err = run_cli(argv)
    assert status == 1 and out == ""
    assert f"error: {message}" in err


def test_the_ppi_options_need_the_gold_qrels(files, run_cli):
    status, _, err = run_cli(
        ["eval", files["judge"], files["bm25"], "--ppi-method", "ppi"]
    )
    assert status == 1
    assert "error: --ppi-method applies with --gold-qrels only" in err


def test_runs_from_standard_input_are_refused(files, run_cli):
    argv = ["eval", files["judge"], "-", "--gold-qrels", files["gold"]]
    status, _, err = run_cli(argv)
    assert status == 1 and "give them as files, not '-'" in err


def test_gold_labels_on_another_scale(tmp_path, run_cli):
    files = _write(tmp_path, scale=4)
    argv = ["eval", files["judge"], files["bm25"], "--gold-qrels", files["gold"]]
    status, out, err = run_cli(argv)
    assert status == 2 and out == ""
    assert "the labels are on different scales: --gold-qrels" in err
    assert "goes up to 8 and QRELS (the judge's) up to 2" in err
