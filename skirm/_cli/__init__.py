"""The ``skirm`` command line: ``skirm eval``, ``skirm compare`` and
``skirm ndeval``.

Parsing and printing only: the work is done by :mod:`skirm.trec`,
:mod:`skirm.stats` and :mod:`skirm.plot`. The modules follow the stages of
a command: the parser (:mod:`._parser`), the commands (:mod:`._eval`,
:mod:`._compare`), the output formats (:mod:`._formats`) and the figures
(:mod:`._plots`).
"""

from __future__ import annotations

import codecs
import contextlib
import sys

from skirm._cli._eval import run_eval
from skirm._cli._ndeval import run_ndeval
from skirm._cli._parser import build_parser
from skirm._cli._usage import UsageError
from skirm._errors import INPUT, USAGE, SkirmError
from skirm._progress import Progress

__all__ = ["main"]


#: Bytes of output held in memory; beyond, the output waits in a temporary
#: file until the command has finished.
OUTPUT_SPOOL = 1 << 25
#: Bytes read back from the temporary file at a time.
SPOOL_READ = 1 << 20


class _Output:
    """A command's output, kept until the command has finished (an error
    prints no partial output), as UTF-8 bytes: in memory up to
    :data:`OUTPUT_SPOOL` bytes, then in a temporary file. Ids read from
    non-UTF-8 files go back out as the bytes they were."""

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

    def _chunks(self):
        yield from self._pieces
        if self._file is not None:
            with self._file:
                self._file.seek(0)
                yield from iter(lambda: self._file.read(SPOOL_READ), b"")

    def send(self):
        """Write the output to standard output."""
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:
            decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
            for chunk in self._chunks():
                sys.stdout.write(decoder.decode(chunk))
            sys.stdout.write(decoder.decode(b"", final=True))
            return
        sys.stdout.flush()
        for chunk in self._chunks():
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
    if args.command == "compare":
        from skirm._cli._compare import run_compare as run
    else:
        run = run_ndeval if args.command == "ndeval" else run_eval
    command = f"skirm {args.command}"
    try:
        out = _Output()
        with _progress(args):  # erased before the output and any error
            run(args, out)
        out.send()
    except UsageError as exc:
        parser.commands[args.command].print_usage(sys.stderr)
        print(f"{command}: error: {exc}", file=sys.stderr)
        return USAGE
    except (OSError, SkirmError) as exc:
        # The advice in the command line's words, where the error has them.
        text = getattr(exc, "command_line", None) or str(exc)
        text = text.splitlines()[0] if text else type(exc).__name__
        if isinstance(exc, OSError) and exc.filename is not None:
            text = f"cannot read {exc.filename}: {exc.strerror}"
        print(f"{command}: error: {text}", file=sys.stderr)
        return exc.exit_status if isinstance(exc, SkirmError) else INPUT
    return 0


def _progress(args):
    """The progress line of a long command on standard error: only where
    standard error is a terminal and without ``--quiet``; it appears after a
    second of work (:mod:`skirm._progress`)."""
    if getattr(args, "quiet", True) or not sys.stderr.isatty():
        return contextlib.nullcontext()
    return Progress(sys.stderr, f"skirm {args.command}")
