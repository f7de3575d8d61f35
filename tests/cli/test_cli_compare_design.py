"""``skirm compare`` with several baselines and with --power."""

import re

import numpy as np
import pytest

from skirm.io import read_qrels, read_run
from skirm.stats import compare, minimum_detectable_effect
from skirm.trec import evaluate_run


def _write(tmp_path, n_queries=30, seed=0):
    """Three runs of ``n_queries`` queries (as test_cli_compare's)."""
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


def _expected(files, **kwargs):
    qrels = read_qrels(files["qrels"])
    results = {
        name: evaluate_run(qrels, read_run(files[name]), ["map", "ndcg_cut.10"])
        for name in ["bm25", "neural", "random"]
    }
    return compare(results, **kwargs)


@pytest.fixture
def files(tmp_path):
    return _write(tmp_path)


def _runs(files):
    return [files["qrels"], files["bm25"], files["neural"], files["random"]]


def test_several_baselines_are_one_family(files, run_cli):
    argv = ["compare", *_runs(files), "--baseline", "bm25", "--baseline", "random"]
    status, out, err = run_cli(argv)
    assert status == 0 and err == ""
    expected = _expected(files, baseline=["bm25", "random"])
    assert out == str(expected) + "\n"
    assert "each system against each of 2 baselines: bm25, random" in out


def test_power_prints_the_minimum_detectable_effect(files, run_cli):
    status, out, err = run_cli(["compare", *_runs(files), "--power", "0.9"])
    assert status == 0 and err == ""
    comparison = _expected(files)
    table, extra = out.split("\n\nMinimum detectable effect", 1)
    assert table + "\n" == str(comparison) + "\n"
    d_z = minimum_detectable_effect(30, power=0.9, alpha=0.05 / 3).effect_size
    assert f"(paired t test, alpha 0.05/3 per pair, 30 queries): d_z {d_z:.4f}" in extra
    a, b = comparison.pairs[0]
    diffs = comparison.per_query[a]["map"] - comparison.per_query[b]["map"]
    assert f"map: {a} - {b} = {d_z * diffs.std(ddof=1):.4f}" in extra
    assert len(re.findall(r"^(map|ndcg_cut_10): ", extra, re.M)) == 6


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--power", "1.5"], "--power must be a number in (0, 1), got 1.5"),
        (
            ["--power", "0.8", "--format", "csv"],
            "--power adds lines to --format table only",
        ),
        (
            ["--baseline", "bm25", "--baseline", "nope"],
            "--baseline must be one of the runs",
        ),
    ],
)
def test_bad_options(files, run_cli, options, message):
    status, _, err = run_cli(["compare", *_runs(files), *options])
    assert status == 1
    assert message in err
