"""What the commands that evaluate nothing import, and the one-line
"did you mean" for a misspelled measure (issue 51, item 13).

``skirm --version`` and ``skirm --help`` took 0.9-1.6 s: building the
``compare`` options imported ``scipy.stats`` (through
``skirm.stats._compare``). They are built for ``skirm compare`` only; the
times themselves are measured by ``benchmarks/bench_trec.py --startup``.
"""

import subprocess
import sys

import pytest

from skirm.trec import evaluate_run

IMPORTS = """
import sys
from skirm._cli import main
status = main({argv!r})
print(status, "scipy.stats" in sys.modules, "skirm.stats" in sys.modules,
      file=sys.stderr)
"""


def _imports(argv):
    """``(status, scipy.stats imported, skirm.stats imported, stdout)`` of
    ``skirm`` run with ``argv`` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORTS.format(argv=argv)],
        capture_output=True,
        text=True,
        check=False,
    )
    status, scipy_stats, skirm_stats = done.stderr.split()[-3:]
    return int(status), scipy_stats == "True", skirm_stats == "True", done.stdout


@pytest.mark.parametrize(
    "argv", [["--version"], ["--help"], ["eval", "--help"], ["ndeval", "--help"]]
)
def test_version_and_help_import_no_scipy_stats_regression(argv):
    status, scipy_stats, skirm_stats, out = _imports(argv)
    assert status == 0 and out.startswith(("usage: skirm", "skirm 0."))
    assert not scipy_stats and not skirm_stats


def test_compare_help_still_lists_its_options():
    status, scipy_stats, _, out = _imports(["compare", "--help"])
    assert status == 0 and scipy_stats
    for option in ("--test", "randomized_tukey_hsd", "--missing", "intersect"):
        assert option in out


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    return str(qrels), str(run)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("ndgc_cut.10", "ndcg_cut.10"),
        ("ndgc_cut_10", "ndcg_cut_10"),
        ("mapp_cut.100", "map_cut.100"),
        ("reacll.1000", "recall.1000"),
        ("iprec_at_recal.0.5", "iprec_at_recall.0.5"),
        ("recip_rnk", "recip_rank"),
        ("ndgc@10", "ndcg@10"),
    ],
)
@pytest.mark.parametrize("command", ["eval", "compare"])
def test_a_misspelled_measure_gets_one_short_line_regression(
    files, typed, meant, command, run_cli
):
    """``skirm eval -m ndgc_cut.10`` printed some 1,500 characters of names
    and no "did you mean"."""
    qrels, run = files
    runs = [run] if command == "eval" else [run, run]
    status, out, err = run_cli([command, "-m", typed, qrels, *runs])
    assert status == 1 and out == ""
    (line,) = [x for x in err.splitlines() if x.startswith(f"skirm {command}: error")]
    assert f"unknown measure {typed!r} (did you mean {meant!r}?)" in line
    assert "`skirm eval --help` lists the measures" in line
    assert len(line) < 200


def test_the_library_keeps_the_full_list_and_the_hint(files):
    qrels, run = files
    with pytest.raises(ValueError, match=r"did you mean 'ndcg_cut\.10'\?\); valid"):
        evaluate_run(qrels, run, ["ndgc_cut.10"])
