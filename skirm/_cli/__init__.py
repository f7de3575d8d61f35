"""The ``skirm`` command line: ``skirm eval``, ``skirm compare``,
``skirm ndeval``, ``skirm ir_measures`` and ``skirm fuse``.

Parsing and printing only: the work is done by :mod:`skirm.trec`,
:mod:`skirm.stats` and :mod:`skirm.plot`. The modules follow the stages of
a command: the parser (:mod:`._parser`), the commands, one module each,
named ``_<command>_command`` (:mod:`._eval_command`,
:mod:`._compare_command`, :mod:`._ndeval_command`,
:mod:`._ir_measures_command`, :mod:`._fuse_command`), the output formats
(:mod:`._formats`), the gold qrels (:mod:`._gold_qrels`) and the figures
(:mod:`._plots`).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
import warnings

from skirm._cli._eval_command import run_eval
from skirm._cli._parser import build_parser
from skirm._cli._usage import UsageError
from skirm._errors import INPUT, INTERRUPTED, PIPE_CLOSED, USAGE, SkirmError
from skirm._progress import Progress, current

__all__ = ["main"]


#: Bytes of output held in memory; beyond, the output waits in a temporary
#: file until the command has finished.
OUTPUT_SPOOL = 1 << 25
#: Bytes read back from the temporary file at a time.
SPOOL_READ = 1 << 20


class _Output:
    """A command's output, kept until it is sent, as UTF-8 bytes: in memory
    up to :data:`OUTPUT_SPOOL` bytes, then in a temporary file. Ids read
    from non-UTF-8 files go back out as the bytes they were. The commands
    write only whole pieces (a run's results), so what an error leaves is
    sent before the error is told."""

    def __init__(self):
        self._pieces, self._size, self._file = [], 0, None

    def write(self, text):
        data = text.encode("utf-8", "surrogateescape")
        if self._file is None and self._size + len(data) > OUTPUT_SPOOL:
            import tempfile

            self._file = tempfile.TemporaryFile()
            self._file.writelines(self._pieces)
            self._pieces = []
        if self._file is not None:
            self._file.write(data)
        else:
            self._pieces.append(data)
            self._size += len(data)
        return len(text)

    @staticmethod
    def _chunks(pieces, file):
        yield from pieces
        if file is not None:
            with file:
                file.seek(0)
                yield from iter(lambda: file.read(SPOOL_READ), b"")

    def send(self):
        """Write the output kept so far to standard output, and forget it."""
        pieces = self._chunks(self._pieces, self._file)
        self._pieces, self._size, self._file = [], 0, None
        current().close()  # the progress line is erased first
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:
            decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
            for chunk in pieces:
                sys.stdout.write(decoder.decode(chunk))
            sys.stdout.write(decoder.decode(b"", final=True))
            return
        sys.stdout.flush()
        for chunk in pieces:
            buffer.write(chunk)
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
        0 on success; on an error, the error's
        :attr:`~skirm.SkirmError.exit_status`, the same for every command
        and trec_eval's where it has one: 1 on a usage error, 2 for input
        that cannot be read or evaluated, 4 when the evaluation stops, 7 when
        no query is in both files (``skirm --help`` lists them).

    Examples
    --------
    >>> from skirm._cli import main
    >>> main(["eval", "no-such-qrels", "no-such-run"])  # the error goes to stderr
    2
    """
    argv_given = argv is not None
    argv = sys.argv[1:] if argv is None else list(argv)
    # importing skirm.stats (scipy.stats) costs more than most evaluations:
    # compare's options (their choices come from skirm.stats) are built only
    # for `skirm compare`, not for `skirm --version` or `skirm --help`
    command_asked = argv[0] if argv[:1] == ["eval"] else None
    parser = build_parser(compare_options=argv[:1] == ["compare"], only=command_asked)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported with the command's usage line, not skirm's
            command = parser.commands[args.command]
            command.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:
        return int(exc.code or 0)
    run = run_eval
    if args.command == "compare":
        from skirm._cli._compare_command import run_compare as run
    elif args.command == "ndeval":
        from skirm._cli._ndeval_command import run_ndeval as run
    elif args.command == "ir_measures":
        from skirm._cli._ir_measures_command import run_ir_measures as run
    elif args.command == "fuse":
        from skirm._cli._fuse_command import run_fuse as run
    command = f"skirm {args.command}"
    out = _Output()
    try:
        with _progress(args), _warnings(command):  # erased before any output
            run(args, out)
        out.send()
    except BrokenPipeError:
        return _pipe_closed()
    except UsageError as exc:
        parser.commands[args.command].print_usage(sys.stderr)
        print(f"{command}: error: {exc}", file=sys.stderr)
        return USAGE
    except (OSError, SkirmError) as exc:
        try:
            out.send()  # what was done before the error (runs evaluated)
        except BrokenPipeError:
            return _pipe_closed()
        # The advice in the command line's words, where the error has them.
        text = getattr(exc, "command_line", None) or str(exc)
        text = text.splitlines()[0] if text else type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None:
            text = f"cannot read {exc.filename}: {exc.strerror}"
        print(f"{command}: error: {text}", file=sys.stderr)
        return exc.exit_status if isinstance(exc, SkirmError) else INPUT
    except KeyboardInterrupt:
        try:
            out.send()  # the runs done before Ctrl-C (a table, on a terminal)
        except (BrokenPipeError, KeyboardInterrupt):
            pass
        return _interrupted(command, exit_now=argv_given is False)
    return 0


def _pipe_closed():
    """Standard output closed early (``skirm eval ... | head``): nothing is
    said, as ``cat`` says nothing, and the status is a shell's for a command
    ended by SIGPIPE; Python's flush at exit goes to the null device."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return PIPE_CLOSED


def _interrupted(command, *, exit_now):
    """Ctrl-C: one line on standard error and status 130 (128 + SIGINT), as
    a shell reports a command it interrupted. As the process's command, it
    ends at once: worker threads evaluating blocks are not waited for."""
    print(f"{command}: interrupted", file=sys.stderr)
    if exit_now:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os._exit(INTERRUPTED)
    return INTERRUPTED


@contextlib.contextmanager
def _warnings(command):
    """Warnings told in one line each, in the command's words: no source
    path, no Python class (``skirm eval: warning: ...``)."""

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message).splitlines()[0] if str(message) else category.__name__
        print(f"{command}: warning: {text}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _progress(args):
    """The progress line of a long command on standard error: only where
    standard error is a terminal and without ``--quiet``; it appears after a
    second of work (:mod:`skirm._progress`)."""
    if getattr(args, "quiet", True) or not sys.stderr.isatty():
        return contextlib.nullcontext()
    return Progress(sys.stderr, f"skirm {args.command}")
