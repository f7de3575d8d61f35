"""The ``skirm`` command line."""

import csv
import io
import json
import subprocess
import sys

import pytest

from skirm._cli import main
from skirm.trec import evaluate_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 0\nq2 0 d4 1\n"
RUN_A = "q1 Q0 d1 1 0.9 runA\nq1 Q0 d2 2 0.5 runA\nq2 Q0 d4 1 0.3 runA\n"
RUN_B = "q1 Q0 d3 1 0.9 runB\nq1 Q0 d9 2 0.5 runB\nq2 Q0 d1 1 0.3 runB\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in [("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)]:
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return {k: str(v) for k, v in paths.items()}


def _main(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_table_shows_runs_side_by_side(files, capsys):
    status, out, err = _main(
        [
            "eval",
            files["qrels"],
            files["a.run"],
            files["b.run"],
            "-m",
            "map",
            "-m",
            "P.1",
        ],
        capsys,
    )
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["measure", "runA", "runB"]
    assert lines[1].split() == ["map", "0.7500", "0.2500"]
    assert lines[2].split() == ["P_1", "1.0000", "0.5000"]


def test_default_measures_are_official(files, capsys):
    status, out, _ = _main(["eval", files["qrels"], files["a.run"]], capsys)
    assert status == 0
    names = [line.split()[0] for line in out.splitlines()[1:]]
    assert names[:5] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert "iprec_at_recall_0.50" in names and "P_1000" in names


def test_trec_format_per_query(files, capsys):
    status, out, _ = _main(
        [
            "eval",
            "-q",
            "-m",
            "official",
            "--format",
            "trec",
            files["qrels"],
            files["a.run"],
        ],
        capsys,
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "num_ret               \tq1\t2"
    assert "map                   \tq2\t1.0000" in lines
    assert "runid                 \tall\trunA" in lines
    assert lines[-1] == "P_1000                \tall\t0.0010"
    first_all = next(i for i, line in enumerate(lines) if "\tall\t" in line)
    assert all("\tall\t" in line for line in lines[first_all:])


def test_json_and_csv_agree_with_evaluate_run(files, capsys):
    expected = evaluate_run(files["qrels"], files["b.run"], ["ndcg", "bpref"])
    status, out, _ = _main(
        [
            "eval",
            files["qrels"],
            files["b.run"],
            "-m",
            "ndcg",
            "-m",
            "bpref",
            "-q",
            "--format",
            "json",
        ],
        capsys,
    )
    assert status == 0
    doc = json.loads(out)
    assert doc[0]["run_id"] == "runB"
    assert doc[0]["summary"] == expected.means
    assert doc[0]["per_query"]["q1"]["ndcg"] == expected.per_query["ndcg"][0]
    status, out, _ = _main(
        ["eval", files["qrels"], files["b.run"], "-m", "ndcg", "--format", "csv"],
        capsys,
    )
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["run", "query", "measure", "value"]
    assert rows[1][:3] == ["runB", "all", "ndcg"]
    assert float(rows[1][3]) == expected.means["ndcg"]


def test_options_reach_evaluate_run(files, capsys):
    status, out, _ = _main(
        [
            "eval",
            files["qrels"],
            files["b.run"],
            "-m",
            "num_ret",
            "-m",
            "map",
            "-J",
            "-M",
            "1",
            "-l",
            "2",
            "-c",
            "--format",
            "trec",
        ],
        capsys,
    )
    assert status == 0
    expected = evaluate_run(
        files["qrels"],
        files["b.run"],
        ["num_ret", "map"],
        relevance_level=2,
        judged_only=True,
        max_docs=1,
        all_queries=True,
    )
    assert out.splitlines() == [
        f"num_ret               \tall\t{expected.means['num_ret']:.0f}",
        f"map                   \tall\t{expected.means['map']:6.4f}",
    ]


def test_skirm_metric_names_are_accepted(files, capsys):
    status, out, _ = _main(
        [
            "eval",
            files["qrels"],
            files["a.run"],
            "-m",
            "ndcg@2",
            "-m",
            "err@2",
            "-m",
            "judged@2",
        ],
        capsys,
    )
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()[1:]] == [
        "judged@2",
        "ndcg@2",
        "err@2",
    ]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["eval", "QRELS", "RUN", "-m", "nope"], "unknown metric 'nope'"),
        (["eval", "QRELS", "RUN", "-m", "mapp"], "did you mean 'map'?"),
        (["eval", "QRELS", "RUN", "-m", "ndcg@0"], "must be a positive integer"),
        (["eval", "QRELS", "RUN", "-m", "P(x=1)"], "takes no option 'x'"),
        (["eval", "QRELS", "RUN", "-m", "map_avgjg"], "needs rel_format='qrels_jg'"),
        (["eval", "QRELS", "RUN", "-m", "P.0"], "must be distinct positive integers"),
        (["eval", "QRELS", "RUN", "-l", "0"], "-l must be an integer >= 1"),
        (["eval", "QRELS", "RUN", "-M", "x"], "invalid int value"),
        (["eval", "QRELS", "RUN", "--format", "xml"], "invalid choice"),
        (["eval", "QRELS"], "the following arguments are required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2(files, capsys, argv, message):
    argv = [
        files["qrels"] if a == "QRELS" else files["a.run"] if a == "RUN" else a
        for a in argv
    ]
    status, out, err = _main(argv, capsys)
    assert status == 2
    assert out == ""
    assert message in err


def test_input_errors_exit_1_with_one_line(files, tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2\n")
    status, out, err = _main(["eval", files["qrels"], str(bad)], capsys)
    assert status == 1 and out == ""
    assert err.count("\n") == 1
    assert f"{bad}:2: too few fields" in err
    status, _, err = _main(["eval", files["qrels"], str(tmp_path / "missing")], capsys)
    assert status == 1
    assert "cannot read" in err and "missing" in err
    other = tmp_path / "other.run"
    other.write_text("q7 Q0 d1 1 0.5 r\n")
    status, _, err = _main(["eval", files["qrels"], str(other)], capsys)
    assert status == 1
    assert "no query of the run appears in the qrels" in err


def test_python_dash_m_and_help():
    proc = subprocess.run(
        [sys.executable, "-m", "skirm", "eval", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    for option in ("-m MEASURE", "-q", "-l LEVEL", "-c", "-M N", "-J", "--format"):
        assert option in proc.stdout
    for name in ("all_trec", "official", "bpref", "infAP", "ndcg_cut", "ndcg@k"):
        assert name in proc.stdout
    assert "exit status" in proc.stdout


def test_compat_option(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "run").write_text(
        "q1 Q0 d1 1 12.25000004 r\nq1 Q0 d2 2 12.25000001 r\n"
    )
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    argv = ["eval", "--format", "trec", "-m", "recip_rank", "-m", "num_q"]
    # q2 is judged but not retrieved: trec_eval 10.0 stops, 9.0.x skips it
    status, out, err = _main([*argv, *paths], capsys)
    assert status == 1 and out == ""
    assert "qrels queries are missing from the run (e.g. ['q2'])" in err
    status, out, _ = _main([*argv, "--compat", "9.0", *paths], capsys)
    assert status == 0
    assert (
        out == "num_q                 \tall\t1\nrecip_rank            \tall\t0.5000\n"
    )
    status, out, _ = _main([*argv, "-c", "-q", *paths], capsys)
    assert status == 0
    assert out.splitlines() == [
        "recip_rank            \tq1\t1.0000",
        "recip_rank            \tq2\t0.0000",
        "num_q                 \tall\t2",
        "recip_rank            \tall\t0.5000",
    ]
    status, _, err = _main([*argv, "--compat", "8", *paths], capsys)
    assert status == 2 and "invalid choice: '8'" in err


def test_standard_input_read_once(files, capsys):
    status, _, err = _main(["eval", "-", "-"], capsys)
    assert status == 2 and "standard input ('-') can be read once only" in err
