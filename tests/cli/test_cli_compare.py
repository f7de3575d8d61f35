"""``skirm compare``: paired tests of TREC runs from the command line."""

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

from skirm.io import read_qrels, read_run
from skirm.stats import compare
from skirm.trec import evaluate_run


def _write(tmp_path, n_queries=30, seed=0):
    rng = np.random.default_rng(seed)
    qrels, runs = [], {"bm25": [], "neural": [], "random": []}
    for q in range(n_queries):
        labels = rng.choice(3, size=20, p=[0.7, 0.2, 0.1])
        for d, label in enumerate(labels):
            qrels.append(f"q{q} 0 d{d} {label}")
        for name, noise in [("bm25", 1.5), ("neural", 0.6), ("random", 50.0)]:
            scores = labels + rng.normal(0, noise, 20)
            for rank, d in enumerate(np.argsort(-scores)):
                runs[name].append(f"q{q} Q0 d{d} {rank + 1} {scores[d]:.6f} {name}")
    paths = {"qrels": tmp_path / "qrels"}
    paths["qrels"].write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        paths[name] = tmp_path / f"{name}.run"
        paths[name].write_text("\n".join(lines) + "\n")
    return {k: str(v) for k, v in paths.items()}


@pytest.fixture
def files(tmp_path):
    return _write(tmp_path)


def _expected(files, **kwargs):
    qrels = read_qrels(files["qrels"])
    results = {
        name: evaluate_run(qrels, read_run(files[name]), ["map", "ndcg_cut.10"])
        for name in ["bm25", "neural", "random"]
    }
    return compare(results, **kwargs)


def test_table_default(files, run_cli):
    status, out, err = run_cli(
        ["compare", files["qrels"], files["bm25"], files["neural"], files["random"]]
    )
    assert status == 0 and err == ""
    assert out == str(_expected(files)) + "\n"
    assert "Holm correction over 3 comparisons per metric" in out


def test_latex_with_baseline_and_seed(files, run_cli):
    argv = [
        "compare",
        files["qrels"],
        files["bm25"],
        files["neural"],
        files["random"],
        "--baseline",
        "bm25",
        "--test",
        "randomization",
        "--seed",
        "7",
        "--n-resamples",
        "2000",
        "--format",
        "latex",
    ]
    status, out, _ = run_cli(argv)
    assert status == 0
    expected = _expected(
        files, baseline="bm25", test="randomization", random_state=7, n_resamples=2000
    )
    assert out == expected.to_latex()
    assert "seed 7" in out and r"\toprule" in out


def test_baseline_by_file_name(files, run_cli):
    argv = [
        "compare",
        files["qrels"],
        files["bm25"],
        files["neural"],
        "--baseline",
        files["neural"],
        "--format",
        "markdown",
        "-m",
        "map",
    ]
    status, out, _ = run_cli(argv)
    assert status == 0
    assert out.splitlines()[2].startswith("| a | neural |")


def test_csv_and_json(files, run_cli):
    base = [
        "compare",
        files["qrels"],
        files["bm25"],
        files["neural"],
        "-m",
        "P.10",
        "--correction",
        "none",
        "--baseline",
        "bm25",
    ]
    status, out, _ = run_cli([*base, "--format", "csv"])
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["table"], r["system"], r["other"]) for r in rows] == [
        ("systems", "bm25", ""),
        ("systems", "neural", ""),
        ("pairs", "neural", "bm25"),
    ]
    assert rows[0]["metric"] == "P_10" and rows[1]["significant"] == "True"
    assert rows[2]["p_value"] == rows[1]["p_value"]
    assert rows[2]["delta_ci_low"] == rows[1]["delta_ci_low"]
    status, out, _ = run_cli([*base, "--format", "json"])
    doc = json.loads(out)
    assert doc["systems"] == ["bm25", "neural"] and doc["correction"] is None
    assert doc["systems_table"][0]["p_value"] is None  # the baseline's own row
    assert doc["pairs_table"][0]["p_value"] < 0.05


def test_csv_without_a_baseline_has_the_pairs(files, run_cli):
    # Regression: without a baseline the CSV held only the systems, with
    # empty tests; each pair's test is a row of its own.
    argv = ["compare", files["qrels"], files["bm25"], files["neural"], "-m", "P.10"]
    status, out, _ = run_cli([*argv, "--format", "csv"])
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    pairs = [r for r in rows if r["table"] == "pairs"]
    assert len(pairs) == 1 and pairs[0]["metric"] == "P_10"
    assert {pairs[0]["system"], pairs[0]["other"]} == {"bm25", "neural"}
    assert 0.0 <= float(pairs[0]["p_value"]) <= 1.0
    status, out, _ = run_cli([*argv, "--format", "json"])
    (pair,) = json.loads(out)["pairs_table"]
    assert float(pairs[0]["p_value"]) == pytest.approx(pair["p_value"], rel=1e-12)
    assert [r["system"] for r in rows if r["table"] == "systems"] == ["bm25", "neural"]


@pytest.mark.parametrize(
    ("extra", "status", "message"),
    [
        (["--baseline", "nope"], 1, "--baseline must be one of the runs"),
        (["-m", "num_q"], 1, "has no per-query values"),
        (["-m", "nonsense"], 1, "unknown measure"),
        (["--alpha", "2"], 1, "--alpha must be a number in (0, 1), got 2.0"),
        (["--test", "anova"], 1, "invalid choice"),
    ],
)
def test_errors(files, extra, status, message, run_cli):
    argv = ["compare", files["qrels"], files["bm25"], files["neural"], *extra]
    got, _, err = run_cli(argv)
    assert got == status
    assert message in err


def test_needs_two_runs(files, run_cli):
    got, _, err = run_cli(["compare", files["qrels"], files["bm25"]])
    assert got == 1 and "at least two runs" in err


def test_missing_queries(tmp_path, run_cli):
    files = _write(tmp_path)
    path = Path(files["neural"])
    lines = path.read_text().splitlines()
    path.write_text("\n".join(x for x in lines if not x.startswith("q3 ")) + "\n")
    base = ["compare", files["qrels"], files["bm25"], files["neural"]]
    got, _, err = run_cli(base)  # trec_eval 10.0 stops on missing queries
    assert got == 4 and "1 qrels queries are missing from the run" in err
    got, out, _ = run_cli([*base, "-c"])
    assert got == 0 and "Mean over 30 queries" in out
    old = [*base, "--compat", "9.0"]  # 9.0.x leaves them out of the run's result
    got, _, err = run_cli(old)
    assert got == 4 and "skirm compare: error: 1 of 30 queries lack a value" in err
    got, out, _ = run_cli([*old, "--missing", "intersect"])
    assert got == 0 and "Mean over 29 queries" in out
    got, out, _ = run_cli([*old, "--missing", "zero"])
    assert got == 0 and "Mean over 30 queries" in out


def test_regression_missing_queries_name_the_run_and_the_option(tmp_path, run_cli):
    # With several runs the missing-queries error did not say which run
    # lacks them, and `--compat 9.0` advised `missing='intersect'`, a Python
    # argument, where the command takes `--missing intersect`.
    files = _write(tmp_path)
    path = Path(files["neural"])
    lines = path.read_text().splitlines()
    path.write_text("\n".join(x for x in lines if not x.startswith("q3 ")) + "\n")
    runs = [files["bm25"], files["neural"], files["random"]]
    for command in ("compare", "eval"):
        status, _, err = run_cli([command, files["qrels"], *runs])
        assert status == 4
        assert err.endswith(
            f"skirm {command}: error: {files['neural']}: 1 qrels queries are "
            "missing from the run (e.g. ['q3']); trec_eval 10.0 stops on them. "
            "Pass -c to score them as empty rankings, or --compat 9.0 to leave "
            "them out as trec_eval 9.0.x did\n"
        )
    status, _, err = run_cli(["compare", "--compat", "9.0", files["qrels"], *runs])
    assert status == 4
    assert err.endswith(
        "skirm compare: error: 1 of 30 queries lack a value in some system "
        "(first: query 'q3' in 'neural', metric 'map'); pass --missing "
        "intersect to drop them or --missing zero to score them 0\n"
    )
    status, out, _ = run_cli(
        ["compare", "--compat", "9.0", "--missing", "intersect", files["qrels"], *runs]
    )
    assert status == 0 and "Mean over 29 queries" in out
