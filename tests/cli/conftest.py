"""Builders shared by the command-line tests."""

import pytest

from skirm._cli import main


@pytest.fixture
def run_cli(capsys):
    """``run_cli(argv)``: ``skirm`` run with ``argv``, as ``(status, stdout,
    stderr)``."""

    def run(argv):
        status = main(argv)
        out, err = capsys.readouterr()
        return status, out, err

    return run
