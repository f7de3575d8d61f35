"""One exit-status table for every command: the same status for the same
mistake, the table the commands' ``--help`` and the reference page print."""

import re

import pytest
from _data import ROOT

from skirm._errors import EXIT_STATUSES, INPUT, NO_COMMON_QUERY, USAGE

COMMANDS = ["eval", "compare", "ndeval"]


@pytest.fixture
def files(tmp_path):
    """Relevance judgments (read as qrels and as subtopic judgments) and two
    runs, and a run of other queries."""
    paths = {
        "qrels": "1 0 d1 1\n1 1 d2 0\n2 0 d1 1\n",
        "a.run": "1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n2 Q0 d1 1 1.0 a\n",
        "b.run": "1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n2 Q0 d1 1 1.0 b\n",
        "other.run": "9 Q0 d1 1 2.0 c\n",
        "other2.run": "9 Q0 d2 1 2.0 d\n",
    }
    for name, text in paths.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in paths}


def _argv(command, files, *, qrels=None, runs=None):
    qrels = qrels or files["qrels"]
    runs = runs or (
        [files["a.run"], files["b.run"]] if command == "compare" else [files["a.run"]]
    )
    return [command, qrels, *runs]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_file_is_an_input_error_in_every_command(command, files, run_cli):
    status, out, err = run_cli(_argv(command, files, qrels="no-such-file"))
    assert status == INPUT == 2 and out == ""
    reason = "cannot read no-such-file: No such file or directory"
    assert err == f"skirm {command}: error: {reason}\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_option_is_a_usage_error_in_every_command(command, files, run_cli):
    status, out, err = run_cli([*_argv(command, files), "--no-such-option"])
    assert status == USAGE == 1 and out == ""
    assert err.startswith(f"usage: skirm {command} ")
    assert err.endswith(
        f"skirm {command}: error: unrecognized arguments: --no-such-option\n"
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_no_common_query_exits_7_in_every_command(command, files, run_cli):
    runs = [files["other.run"], files["other2.run"]]
    status, out, err = run_cli(
        _argv(command, files, runs=runs[: 1 + (command == "compare")])
    )
    assert status == NO_COMMON_QUERY == 7 and out == ""
    # with several runs, the run's file is named first
    where = f"{runs[0]}: " if command == "compare" else ""
    assert err.startswith(f"skirm {command}: error: {where}no query of the run")


@pytest.mark.parametrize("command", COMMANDS)
def test_help_ends_with_the_table(command, run_cli):
    status, out, _ = run_cli([command, "--help"])
    assert status == 0
    tail = out[out.index("exit status (every command") :]
    for status_, meaning in EXIT_STATUSES:
        assert re.search(rf"^  {status_}  {re.escape(meaning.split()[0])}", tail, re.M)
    words = " ".join(tail.split())
    for _, meaning in EXIT_STATUSES:
        assert meaning in words


def test_the_reference_pages_print_the_table_and_no_other():
    cli = (ROOT / "docs" / "user_guide" / "cli.rst").read_text()
    assert cli.count(".. exit-statuses::") == 1
    # no second, hand-written table of statuses
    assert not re.search(r"^[0-9]\s{3,}\S", cli, re.M)
    trec = (ROOT / "docs" / "user_guide" / "trec.rst").read_text()
    stated = dict(
        re.findall(r"(\d) (?:on|for|when) ([a-z ]+?)[,)]", " ".join(trec.split()))
    )
    assert stated.get("1", "").startswith("a usage error")
    assert stated.get("2", "").startswith("a file")
