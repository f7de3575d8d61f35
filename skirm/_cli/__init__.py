"""The ``skirm`` command line: ``skirm eval``, ``skirm compare`` and
``skirm ndeval``.

Parsing and printing only: the work is done by :mod:`skirm.trec`,
:mod:`skirm.stats` and :mod:`skirm.plot`. The modules follow the stages of
a command: the parser (:mod:`._parser`), the commands (:mod:`._eval`,
:mod:`._compare`), the output formats (:mod:`._formats`) and the figures
(:mod:`._plots`).
"""

from __future__ import annotations

import io
import sys

from skirm._cli._compare import run_compare
from skirm._cli._eval import run_eval
from skirm._cli._ndeval import run_ndeval
from skirm._cli._parser import UsageError, build_parser

__all__ = ["main"]


def _write_out(text):
    """Write to standard output; ids read from non-UTF-8 files go back out
    as the bytes they were."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8", "surrogateescape"))
    buffer.flush()


def main(argv=None) -> int:
    """Run the ``skirm`` command line; returns the exit status.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments (``sys.argv[1:]`` by default).

    Returns
    -------
    status : int
        0 on success, 1 on an input error, 2 on a usage error.

    Examples
    --------
    >>> from skirm._cli import main
    >>> main(["eval", "no-such-qrels", "no-such-run"])  # the error goes to stderr
    1
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    # importing skirm.stats (scipy.stats) costs more than most evaluations
    parser = build_parser(compare_options=argv[:1] != ["eval"])
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported with the command's usage line, not skirm's
            command = parser.commands[args.command]
            command.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:
        return int(exc.code or 0)
    run = {"compare": run_compare, "ndeval": run_ndeval}.get(args.command, run_eval)
    command = f"skirm {args.command}"
    try:
        out = io.StringIO()
        run(args, out)
        _write_out(out.getvalue())
    except UsageError as exc:
        parser.commands[args.command].print_usage(sys.stderr)
        print(f"{command}: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, TypeError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None:
            text = f"cannot read {exc.filename}: {exc.strerror}"
        print(f"{command}: error: {text}", file=sys.stderr)
        return 1
    return 0
