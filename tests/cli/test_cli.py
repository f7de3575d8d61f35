"""The ``skirm`` command line."""

import csv
import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from _data import ROOT

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


def test_table_shows_runs_side_by_side(files, run_cli):
    status, out, err = run_cli(
        [
            "eval",
            files["qrels"],
            files["a.run"],
            files["b.run"],
            "-m",
            "map",
            "-m",
            "P.1",
            "--format",
            "table",
        ]
    )
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["measure", "runA", "runB"]
    assert lines[1].split() == ["map", "0.7500", "0.2500"]
    assert lines[2].split() == ["P_1", "1.0000", "0.5000"]


def test_default_measures_are_official(files, run_cli):
    argv = ["eval", files["qrels"], files["a.run"], "--format", "table"]
    status, out, _ = run_cli(argv)
    assert status == 0
    names = [line.split()[0] for line in out.splitlines()[1:]]
    assert names[:5] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert "iprec_at_recall_0.50" in names and "P_1000" in names


def test_trec_format_per_query(files, run_cli):
    status, out, _ = run_cli(
        [
            "eval",
            "-q",
            "-m",
            "official",
            "--format",
            "trec",
            files["qrels"],
            files["a.run"],
        ]
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "num_ret               \tq1\t2"
    assert "map                   \tq2\t1.0000" in lines
    assert "runid                 \tall\trunA" in lines
    assert lines[-1] == "P_1000                \tall\t0.0010"
    first_all = next(i for i, line in enumerate(lines) if "\tall\t" in line)
    assert all("\tall\t" in line for line in lines[first_all:])


def test_json_and_csv_agree_with_evaluate_run(files, run_cli):
    expected = evaluate_run(files["qrels"], files["b.run"], ["ndcg", "bpref"])
    status, out, _ = run_cli(
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
        ]
    )
    assert status == 0
    doc = json.loads(out)
    assert doc[0]["run_id"] == "runB"
    assert doc[0]["summary"] == expected.means
    assert doc[0]["per_query"]["q1"]["ndcg"] == expected.per_query["ndcg"][0]
    status, out, _ = run_cli(
        ["eval", files["qrels"], files["b.run"], "-m", "ndcg", "--format", "csv"]
    )
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["run", "query", "measure", "value"]
    assert rows[1][:3] == ["runB", "all", "ndcg"]
    assert float(rows[1][3]) == expected.means["ndcg"]


def test_options_reach_evaluate_run(files, run_cli):
    status, out, _ = run_cli(
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
        ]
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


def test_skirm_metric_names_are_accepted(files, run_cli):
    status, out, _ = run_cli(
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
            "--format",
            "table",
        ]
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
        (["eval", "QRELS", "RUN", "-m", "nope"], "unknown measure 'nope"),
        (["eval", "QRELS", "RUN", "-m", "mapp"], "did you mean 'map'?"),
        (["eval", "QRELS", "RUN", "-m", "ndcg@0"], "must be a positive integer"),
        (["eval", "QRELS", "RUN", "-m", "P(x=1)"], "takes no option 'x'"),
        # the option in the command line's words: -R, not rel_format=
        (["eval", "QRELS", "RUN", "-m", "map_avgjg"], "map_avgjg (needs -R qrels_jg)"),
        (["eval", "QRELS", "RUN", "-R", "prefs", "-m", "map"], "with -R prefs these"),
        (["eval", "QRELS", "RUN", "-l", "0"], "-l must be an integer >= 1"),
        (["eval", "QRELS", "RUN", "-M", "x"], "invalid int value"),
        (["eval", "QRELS", "RUN", "--format", "xml"], "invalid choice"),
        (["eval", "QRELS"], "the following arguments are required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_exit_1_as_trec_eval(files, argv, message, run_cli):
    # trec_eval exits 1 on a usage error; every skirm command too.
    argv = [
        files["qrels"] if a == "QRELS" else files["a.run"] if a == "RUN" else a
        for a in argv
    ]
    status, out, err = run_cli(argv)
    assert status == 1
    assert out == ""
    assert message in err


@pytest.mark.oracle
@pytest.mark.parametrize(
    "measure", ["P.0", "P.5,5", "rbp.0.8", "ndcg.x", "P.x", "nosuch", "map"]
)
def test_measure_errors_exit_as_trec_eval(files, measure, trec_eval_binary, run_cli):
    # An unknown name is a usage error (1); parameters a known measure
    # cannot take stop its initialisation (2).
    done = subprocess.run(
        [trec_eval_binary, "-m", measure, files["qrels"], files["a.run"]],
        capture_output=True,
        check=False,
    )
    status, _, _ = run_cli(["eval", "-m", measure, files["qrels"], files["a.run"]])
    assert status == done.returncode, measure


def test_input_errors_exit_as_trec_eval_with_one_line(files, tmp_path, run_cli):
    # trec_eval: 2 for a file it quits in, 7 for no query in both files.
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2\n")
    status, out, err = run_cli(["eval", files["qrels"], str(bad)])
    assert status == 2 and out == ""
    assert err.count("\n") == 1
    assert f"{bad}:2: too few fields" in err
    status, _, err = run_cli(["eval", files["qrels"], str(tmp_path / "missing")])
    assert status == 2
    assert "cannot read" in err and "missing" in err
    other = tmp_path / "other.run"
    other.write_text("q7 Q0 d1 1 0.5 r\n")
    status, _, err = run_cli(["eval", files["qrels"], str(other)])
    assert status == 7
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


def test_the_skirm_command_and_python_dash_m_run_one_entry():
    # The console script and `python -m skirm` run skirm.__main__.main: the
    # command's imports with the collector paused, their objects frozen
    # (left out of later collections), the collector on again for the work.
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '\nskirm = "skirm.__main__:main"\n' in pyproject
    code = (
        "import gc, sys; sys.argv = ['skirm', '--version']; "
        "from skirm.__main__ import main; status = main(); "
        "print(status, gc.isenabled(), gc.get_freeze_count() > 0)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert proc.stdout.startswith("skirm ")
    assert proc.stdout.split()[-3:] == ["0", "True", "True"]


def test_compat_option(tmp_path, run_cli):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "run").write_text(
        "q1 Q0 d1 1 12.25000004 r\nq1 Q0 d2 2 12.25000001 r\n"
    )
    paths = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    argv = ["eval", "--format", "trec", "-m", "recip_rank", "-m", "num_q"]
    # q2 is judged but not retrieved: trec_eval 10.0 stops, 9.0.x skips it
    status, out, err = run_cli([*argv, *paths])
    assert status == 4 and out == ""
    assert "qrels queries are missing from the run (e.g. ['q2'])" in err
    # The advice in the command line's words, not Python's.
    assert "Pass -c to score them as empty rankings, or --compat 9.0" in err
    assert "all_queries" not in err
    status, out, _ = run_cli([*argv, "--compat", "9.0", *paths])
    assert status == 0
    assert (
        out == "num_q                 \tall\t1\nrecip_rank            \tall\t0.5000\n"
    )
    status, out, _ = run_cli([*argv, "-c", "-q", *paths])
    assert status == 0
    assert out.splitlines() == [
        "recip_rank            \tq1\t1.0000",
        "recip_rank            \tq2\t0.0000",
        "num_q                 \tall\t2",
        "recip_rank            \tall\t0.5000",
    ]
    status, _, err = run_cli([*argv, "--compat", "8", *paths])
    assert status == 1 and "invalid choice: '8'" in err


def test_standard_input_read_once(files, run_cli):
    status, _, err = run_cli(["eval", "-", "-"])
    assert status == 1 and "standard input ('-') can be read once only" in err


# --------------------------------------------------------------------------
# A trec_eval drop-in: layout, option names, standard input
# --------------------------------------------------------------------------


def _awk_map(text):
    """What ``awk '$1=="map"{print $3}'`` prints."""
    return [
        f[2] for f in (line.split() for line in text.splitlines()) if f[:1] == ["map"]
    ]


def test_trec_layout_when_stdout_is_not_a_terminal(files, run_cli):
    status, out, _ = run_cli(["eval", "-m", "map", files["qrels"], files["a.run"]])
    assert status == 0
    assert out == "map                   \tall\t0.7500\n"
    assert _awk_map(out) == ["0.7500"]


def test_table_layout_on_a_terminal(files, monkeypatch, run_cli):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    argv = ["eval", "-m", "map", files["qrels"], files["a.run"]]
    status, out, _ = run_cli(argv)
    assert status == 0
    assert [line.split() for line in out.splitlines()] == [
        ["measure", "runA"],
        ["map", "0.7500"],
    ]
    # an explicit --format wins over the terminal test
    status, out, _ = run_cli([*argv, "--format", "trec"])
    assert out == "map                   \tall\t0.7500\n"


def test_pipe_from_a_subprocess_is_trec_eval_layout(files):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "skirm",
            "eval",
            "-m",
            "map",
            files["qrels"],
            files["a.run"],
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert _awk_map(proc.stdout) == ["0.7500"]


def _trec_values(out):
    lines = (line.split("\t") for line in out.splitlines())
    return {(f[0].rstrip(), f[1]): f[2] for f in lines}


@pytest.mark.parametrize(
    "short, long, params",
    [
        (["-q"], ["--query_eval_wanted"], {}),
        (["-c"], ["--complete_rel_info_wanted"], {"all_queries": True}),
        (["-l2"], ["--level_for_rel", "2"], {"relevance_level": 2}),
        (["-l", "2"], ["--level_for_rel=2"], {"relevance_level": 2}),
        (["-M1"], ["--Max_retrieved_per_topic", "1"], {"max_docs": 1}),
        (["-J"], ["--Judged_docs_only"], {"judged_only": True}),
    ],
)
def test_trec_eval_option_names(files, short, long, params, run_cli):
    base = ["eval", files["qrels"], files["b.run"], "-mmap", "--measure", "P.2"]
    status, out_short, err = run_cli([*base, *short])
    assert status == 0, err
    status, out_long, err = run_cli([*base, *long])
    assert status == 0, err
    assert out_short == out_long
    expected = evaluate_run(files["qrels"], files["b.run"], ["map", "P.2"], **params)
    values = _trec_values(out_short)
    assert values[("map", "all")] == f"{expected.means['map']:6.4f}"
    assert values[("P_2", "all")] == f"{expected.means['P_2']:6.4f}"
    if short == ["-q"]:
        assert values[("map", "q1")] == f"{expected.per_query['map'][0]:6.4f}"


def test_nosummary(files, run_cli):
    base = ["eval", files["qrels"], files["a.run"], "-m", "map"]
    for flag in ("-n", "--nosummary"):
        status, out, _ = run_cli([*base, "-q", flag])
        assert status == 0
        assert out.splitlines() == [
            "map                   \tq1\t0.5000",
            "map                   \tq2\t1.0000",
        ]
    status, out, _ = run_cli([*base, "-n", "--format", "csv"])
    assert out == "run,query,measure,value\n"
    status, out, _ = run_cli([*base, "-n", "-q", "--format", "json"])
    assert "summary" not in json.loads(out)[0]


@pytest.mark.parametrize(
    "argv", [["-v"], ["--version"], ["eval", "-v"], ["eval", "--version"]]
)
def test_version(argv, run_cli):
    from skirm import __version__

    status, out, _ = run_cli(argv)
    assert status == 0
    assert out == f"skirm {__version__} (trec_eval 10.0 semantics)\n"


def test_run_from_standard_input(files, monkeypatch, run_cli):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN_B.encode())))
    status, out, err = run_cli(["eval", "-m", "map", files["qrels"], "-"])
    assert status == 0, err
    expected = evaluate_run(files["qrels"], files["b.run"], ["map"]).means["map"]
    assert out == f"map                   \tall\t{expected:6.4f}\n"


# --------------------------------------------------------------------------
# Errors that guide
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, command",
    [
        (["eval", "QRELS", "RUN", "-m", "mapp"], "eval"),
        (["eval", "QRELS", "RUN", "-M", "x"], "eval"),
        (["eval", "QRELS", "RUN", "-l", "0"], "eval"),
        (["compare", "QRELS", "RUN", "-m", "mapp"], "compare"),
        (["compare", "QRELS", "RUN"], "compare"),
        (["eval", "QRELS", "RUN", "--bogus"], "eval"),
        (["compare", "QRELS", "RUN", "RUN", "--bogus"], "compare"),
    ],
)
def test_usage_line_is_the_commands(files, argv, command, run_cli):
    argv = [
        files["qrels"] if a == "QRELS" else files["a.run"] if a == "RUN" else a
        for a in argv
    ]
    status, _, err = run_cli(argv)
    assert status == 1
    assert err.startswith(f"usage: skirm {command} ")


def test_empty_run_file(files, tmp_path, run_cli):
    empty = tmp_path / "empty.run"
    empty.write_text("")
    status, out, err = run_cli(["eval", files["qrels"], str(empty)])
    assert status == 2 and out == ""  # trec_eval: "Quit in file", 2
    assert err == f"skirm eval: error: the run file is empty: {empty}\n"
    status, _, err = run_cli(["compare", files["qrels"], files["a.run"], str(empty)])
    assert status == 2 and "the run file is empty" in err


def test_empty_run_in_python():
    from skirm.io import Qrels, Run

    qrels = Qrels(["q1"], ["d1"], [1])
    with pytest.raises(ValueError, match="the run is empty: nothing to evaluate"):
        evaluate_run(qrels, Run([], [], []), ["map"])


def test_swapped_files(files, run_cli):
    status, _, err = run_cli(["eval", files["a.run"], files["qrels"]])
    assert status == 2
    assert "too many fields (6) (did you swap QRELS and RUN?)" in err
    status, _, err = run_cli(["eval", files["qrels"], files["qrels"]])
    assert status == 2
    assert "too few fields (4) (did you swap QRELS and RUN?)" in err


def test_unknown_queries_listed_once(files, tmp_path, run_cli):
    other = tmp_path / "other.run"
    other.write_text(
        "q7 Q0 d1 1 0.5 r\nq7 Q0 d2 2 0.4 r\nq7 Q0 d3 3 0.3 r\nq8 Q0 d1 1 1 r\n"
    )
    status, _, err = run_cli(["eval", files["qrels"], str(other)])
    assert status == 7
    assert "run queries e.g. ['q7', 'q8']" in err


# --------------------------------------------------------------------------
# --plot
# --------------------------------------------------------------------------


@pytest.fixture
def saved_figures(monkeypatch):
    """The figures the command line saves."""
    from matplotlib.figure import Figure

    figures, save = [], Figure.savefig

    def record(self, *args, **kwargs):
        figures.append(self)
        return save(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", record)
    return figures


def _lines(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_eval_plot(files, tmp_path, saved_figures, run_cli):
    png = tmp_path / "runs.png"
    argv = ["eval", files["qrels"], files["a.run"], files["b.run"], "-m", "map"]
    status, out, err = run_cli([*argv, "--plot", str(png)])
    assert status == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Several runs: each starts with trec_eval's runid line.
    assert out == (
        "runid                 \tall\trunA\nmap                   \tall\t0.7500\n"
        "runid                 \tall\trunB\nmap                   \tall\t0.2500\n"
    )
    (figure,) = saved_figures
    left, right = figure.axes
    for path, label in [(files["a.run"], "runA"), (files["b.run"], "runB")]:
        k = list(range(1, 101))
        ndcg = evaluate_run(files["qrels"], path, [f"ndcg@{c}" for c in k]).means
        line = _lines(left)[label]
        assert line.get_xdata().tolist() == k
        assert line.get_ydata().tolist() == [ndcg[f"ndcg@{c}"] for c in k]
        iprec = evaluate_run(files["qrels"], path, ["iprec_at_recall"]).means
        line = _lines(right)[label]
        assert line.get_xdata().tolist() == pytest.approx([i / 10 for i in range(11)])
        assert line.get_ydata().tolist() == [
            iprec[f"iprec_at_recall_{i / 10:.2f}"] for i in range(11)
        ]


def test_a_figure_is_written_whole_or_not_at_all(files, tmp_path, monkeypatch, run_cli):
    # An error (or Ctrl-C) while the figure is written leaves the file that
    # was there as it was, and no partial or temporary file.
    from matplotlib.figure import Figure

    png = tmp_path / "runs.png"
    png.write_bytes(b"the figure before")

    def fail(self, path, *args, **kwargs):
        with open(path, "wb") as half:
            half.write(b"\x89PNG half")
        raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", fail)
    argv = ["eval", files["qrels"], files["a.run"], "-m", "map", "--plot", str(png)]
    status, _, err = run_cli(argv)
    assert status == 130 and err == "skirm eval: interrupted\n"
    assert png.read_bytes() == b"the figure before"
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".skirm-")]
    monkeypatch.undo()
    status, _, err = run_cli(argv)
    assert status == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_eval_plot_options_reach_the_figure(files, tmp_path, saved_figures, run_cli):
    argv = ["eval", files["qrels"], files["b.run"], "-l2", "-M1"]
    status, _, err = run_cli([*argv, "--plot", str(tmp_path / "r.png")])
    assert status == 0, err
    params = {"relevance_level": 2, "max_docs": 1}
    ndcg = evaluate_run(files["qrels"], files["b.run"], ["ndcg@1", "ndcg@2"], **params)
    line = _lines(saved_figures[0].axes[0])["runB"]
    assert line.get_ydata()[:2].tolist() == [ndcg.means["ndcg@1"], ndcg.means["ndcg@2"]]


def test_compare_plot(files, tmp_path, saved_figures, run_cli):
    from skirm.stats import compare

    pdf = tmp_path / "cmp.pdf"
    argv = ["compare", files["qrels"], files["a.run"], files["b.run"]]
    status, _, err = run_cli([*argv, "-m", "map", "-m", "P.1", "--plot", str(pdf)])
    assert status == 0, err
    assert pdf.read_bytes()[:5] == b"%PDF-"
    (figure,) = saved_figures
    results = {
        label: evaluate_run(files["qrels"], files[f"{name}.run"], ["map", "P.1"])
        for label, name in [("runA", "a"), ("runB", "b")]
    }
    expected = compare(results, metrics=["map", "P_1"], correction="holm")
    assert [ax.get_xlabel() for ax in figure.axes] == [
        "map, mean over queries",
        "P_1, mean over queries",
    ]
    for ax, metric in zip(figure.axes, ["map", "P_1"], strict=True):
        points = np.concatenate([c.get_offsets() for c in ax.collections[1:]])
        drawn = sorted(points.tolist(), key=lambda p: -p[1])  # first system on top
        means = [
            r["mean"] for r in expected.to_records("systems") if r["metric"] == metric
        ]
        assert [x for x, _ in drawn] == means
        assert ax.get_yticklabels()[0].get_text().startswith("runA")


def test_plot_without_matplotlib(files, tmp_path, monkeypatch, run_cli):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    png = tmp_path / "x.png"
    for command in ("eval", "compare"):
        argv = [command, files["qrels"], files["a.run"], files["b.run"]]
        status, out, err = run_cli([*argv, "--plot", str(png)])
        assert status == 1 and out == ""
        assert (
            "--plot needs matplotlib; install it with `pip install skirm[plot]`" in err
        )
    assert not png.exists()


# --------------------------------------------------------------------------
# The reference page follows the parser
# --------------------------------------------------------------------------

CLI_PAGE = ROOT / "docs" / "user_guide" / "cli.rst"


def _page_sections():
    """The text of each ``.. program::`` section of the reference page."""
    parts = re.split(r"^\.\. program:: skirm (\w+)$", CLI_PAGE.read_text(), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize(
    "command", ["eval", "compare", "ndeval", "ir_measures", "fuse"]
)
def test_reference_page_documents_every_option(command):
    from skirm._cli._parser import build_parser

    parser = build_parser().commands[command]
    options = re.findall(r"^\.\. option:: (.+)$", _page_sections()[command], re.M)
    documented = {word.split()[0] for line in options for word in line.split(", ")}
    expected = {s for a in parser._actions for s in a.option_strings}
    expected |= {a.metavar for a in parser._actions if not a.option_strings}
    assert expected <= documented, sorted(expected - documented)
    assert documented <= expected, sorted(documented - expected)


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "q", "r"],
        ["eval", "-m", "all_trec", "-q", "-l", "2", "-M", "10", "q", "r", "s"],
        ["eval", "--compat", "9.0", "-R", "qrels_jg", "--format", "csv", "q", "r"],
    ],
)
def test_the_eval_parser_alone_parses_as_the_whole_one(argv, monkeypatch):
    # `skirm eval` builds its own command's parser only: the same namespace
    # and the same help as with every command built.
    from skirm._cli._parser import build_parser

    monkeypatch.setenv("COLUMNS", "70")
    alone, whole = build_parser(False, only="eval"), build_parser()
    assert list(alone.commands) == ["eval"]
    assert vars(alone.parse_args(argv)) == vars(whole.parse_args(argv))
    assert alone.commands["eval"].format_help() == whole.commands["eval"].format_help()
    assert alone.format_usage() == whole.format_usage()


def test_one_message_two_renderings(files):
    # The condition the CLI reports with -R is reported in Python with the
    # keyword argument.
    with pytest.raises(ValueError, match=r"map_avgjg \(needs rel_format='qrels_jg'\)"):
        evaluate_run(files["qrels"], files["a.run"], ["map_avgjg"])


# -- the output, kept until the command has finished ---------------------------


def _latin1_files(tmp_path, n_queries=40):
    """qrels and run of ``n_queries`` queries whose ids are Latin-1 bytes."""
    qrels = b"".join(
        b"q\xe9%d 0 caf\xe9 1\nq\xe9%d 0 b 0\n" % (i, i) for i in range(n_queries)
    )
    run = b"".join(
        b"q\xe9%d Q0 caf\xe9 1 2.0 r\nq\xe9%d Q0 b 2 1.0 r\n" % (i, i)
        for i in range(n_queries)
    )
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    return ["eval", "--format", "trec", "-q", "-m", "map", "-m", "P.1", *files]


class _Bytes(io.TextIOWrapper):
    """A standard output whose bytes the test reads back."""

    def __init__(self):
        super().__init__(io.BytesIO(), encoding="utf-8", errors="surrogateescape")

    def bytes(self):
        self.flush()
        return self.buffer.getvalue()


@pytest.mark.parametrize("spool", [1 << 25, 100, 1])
def test_output_past_the_memory_spool_is_the_same_bytes(monkeypatch, tmp_path, spool):
    import skirm._cli

    argv = _latin1_files(tmp_path)
    line = b"%-22s\tq\xe9%d\t1.0000\n"
    expected = b"".join(
        line % (b"map", i) + line % (b"P_1", i) for i in sorted(range(40), key=str)
    )
    expected += (
        b"map                   \tall\t1.0000\nP_1                   \tall\t1.0000\n"
    )
    import tempfile

    import skirm._cli._formats

    spilled = []
    real = tempfile.TemporaryFile
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda: spilled.append(1) or real())
    monkeypatch.setattr(skirm._cli, "OUTPUT_SPOOL", spool)
    monkeypatch.setattr(skirm._cli._formats, "LINES_QUERIES", 1)  # many pieces
    monkeypatch.setattr(sys, "stdout", _Bytes())
    assert main(argv) == 0
    assert sys.stdout.bytes() == expected
    assert spilled == ([] if spool > len(expected) else [1])


@pytest.mark.parametrize("spool", [1 << 25, 1])
def test_output_to_a_text_stream_decodes_characters_split_across_pieces(
    monkeypatch, tmp_path, spool
):
    """A standard output without bytes (a text stream): the output goes back
    to text whole, a character split across two pieces of the spool
    included."""
    import skirm._cli

    qrels = "q 0 d 1\n"
    run = "q Q0 d 1 1.0 r\n"
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    argv = ["eval", "--format", "trec", "-m", "runid", "-m", "map"]
    argv += [str(tmp_path / "qrels"), str(tmp_path / "run")]
    # the run id: "r" then a character of three UTF-8 bytes
    (tmp_path / "run").write_text("q Q0 d 1 1.0 r\u65e5\n", encoding="utf-8")
    monkeypatch.setattr(skirm._cli, "OUTPUT_SPOOL", spool)
    monkeypatch.setattr(skirm._cli, "SPOOL_READ", 1)  # one byte a piece
    text = io.StringIO()
    monkeypatch.setattr(sys, "stdout", text)
    assert main(argv) == 0
    assert text.getvalue() == (
        "runid                 \tall\tr\u65e5\nmap                   \tall\t1.0000\n"
    )


@pytest.mark.parametrize("spool", [1 << 25, 1])
@pytest.mark.parametrize("fmt", ["trec", "csv", "json", "table"])
def test_a_failing_run_does_not_lose_the_runs_before_it(
    monkeypatch, tmp_path, spool, fmt
):
    """Two runs, the second with a repeated docno (status 4): the first
    run's results are written whole (from memory or the spool's temporary
    file), then the error is told. Before, nothing was printed."""
    import skirm._cli

    argv = _latin1_files(tmp_path)
    argv[argv.index("trec")] = fmt
    (tmp_path / "bad").write_text("q Q0 d 1 1.0 r\nq Q0 d 2 0.5 r\n")
    (tmp_path / "qrels").write_bytes(b"q 0 d 1\n" + (tmp_path / "qrels").read_bytes())
    monkeypatch.setattr(skirm._cli, "OUTPUT_SPOOL", spool)
    monkeypatch.setattr(sys, "stdout", _Bytes())
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    status = main([argv[0], "-c", *argv[1:], str(tmp_path / "bad")])
    assert status == 4 and err.getvalue().startswith("skirm eval: error:")
    out = sys.stdout.bytes()
    alone = _Bytes()
    monkeypatch.setattr(sys, "stdout", alone)
    assert main([argv[0], "-c", *argv[1:]]) == 0
    # trec_eval's format names each run of several with its runid line.
    named = b"runid                 \tall\tr\n" if fmt == "trec" else b""
    assert out == named + alone.bytes() and out.count(b"map") >= 1
