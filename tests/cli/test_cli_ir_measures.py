"""``skirm ir_measures``: ir_measures' command line, next to ir_measures'."""

import json
import sys

import numpy as np
import pytest

ir_measures = pytest.importorskip("ir_measures")
ir_main = pytest.importorskip("ir_measures.__main__")


def _write(tmp_path, seed=0, n_queries=6):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(1, n_queries + 1):
        for d in range(12):
            qrels.append(f"{q} 0 d{d} {int(rng.choice(4, p=[0.5, 0.3, 0.1, 0.1]))}")
        for rank, d in enumerate(rng.permutation(16)[:10]):
            run.append(f"{q} Q0 d{d} {rank} {float(rng.integers(0, 5))} r")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _reference(argv, capsys, monkeypatch):
    """What the ``ir_measures`` command prints for ``argv``."""
    monkeypatch.setattr(sys, "argv", ["ir_measures", *argv])
    ir_main.main_cli()
    return capsys.readouterr()


MEASURES = ["nDCG@10 P@5 RR", "RBP(rel=1)", "ERR@10", "Judged@5", "Compat(p=0.8)"]


@pytest.mark.oracle
@pytest.mark.parametrize("options", [[], ["-p", "2"], ["-p", "-1"], ["-o", "jsonl"]])
def test_the_summary_lines_are_ir_measures(
    options, tmp_path, capsys, monkeypatch, run_cli
):
    qrels, run = _write(tmp_path)
    argv = [qrels, run, *MEASURES, *options]
    want = _reference(argv, capsys, monkeypatch)
    status, out, err = run_cli(["ir_measures", *argv])
    assert status == 0 and err == want.err
    if options == ["-p", "-1"] or options == ["-o", "jsonl"]:  # every digit
        for got_line, want_line in zip(
            out.splitlines(), want.out.splitlines(), strict=True
        ):
            if options == ["-p", "-1"]:
                (name, got), (name_, value) = (
                    got_line.split("\t"),
                    want_line.split("\t"),
                )
            else:
                got_record, want_record = json.loads(got_line), json.loads(want_line)
                name, got = got_record["measure"], got_record["value"]
                name_, value = want_record["measure"], want_record["value"]
            # gdeval prints 5 decimals; pytrec_eval sums in C (the last bit)
            assert name == name_ and float(got) == pytest.approx(
                float(value), rel=1e-12, abs=1e-5 if "ERR" in name else 1e-15
            )
    else:
        assert out == want.out


@pytest.mark.oracle
@pytest.mark.parametrize("options", [["-q"], ["-q", "-n"], ["-q", "-o", "jsonl"]])
def test_the_per_query_lines_are_ir_measures(
    options, tmp_path, capsys, monkeypatch, run_cli
):
    qrels, run = _write(tmp_path, seed=1)
    argv = [qrels, run, *MEASURES, *options]
    want = _reference(argv, capsys, monkeypatch)
    status, out, _ = run_cli(["ir_measures", *argv])
    assert status == 0
    # the same lines; by measure, then by query (ir_measures: by provider)
    if "jsonl" in options:
        parse = json.loads
        got = sorted(map(json.dumps, map(parse, out.splitlines())))
        want_lines = sorted(map(json.dumps, map(parse, want.out.splitlines())))
        assert [json.loads(g)["measure"] for g in got] == [
            json.loads(w)["measure"] for w in want_lines
        ]
        return
    assert len(out.splitlines()) == len(want.out.splitlines())
    assert sorted(out.splitlines()) == sorted(want.out.splitlines())


def test_usage_errors(tmp_path, run_cli):
    qrels, run = _write(tmp_path)
    status, out, err = run_cli(["ir_measures", qrels, run, "P@5", "-n"])
    assert status == 1 and out == ""
    assert err.endswith(
        "skirm ir_measures: error: --no_summary (-n) applies with --by_query "
        "(-q) only\n"
    )
    status, _, err = run_cli(["ir_measures", qrels, run, "P@5", "-p", "-2"])
    assert status == 1 and err.endswith("--places must be -1 or more, got -2\n")
    status, _, err = run_cli(["ir_measures", qrels, run, "nDCg@10"])
    assert status == 1
    assert "unknown measure 'nDCg@10' (did you mean 'nDCG@10'" in err
    status, _, err = run_cli(["ir_measures", "no-such-qrels", run, "P@5"])
    assert status == 2
    reason = "cannot read no-such-qrels: No such file or directory"
    assert err == f"skirm ir_measures: error: {reason}\n"
