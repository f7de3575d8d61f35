"""Progress of long work on standard error: one line of status.

A :class:`Progress` shows where a long evaluation is: the bytes of a run
read, the queries evaluated, the resamples drawn. The work reports at the
granularity it already has (a block of a few MiB read and evaluated, a chunk
of random draws): :meth:`Progress.advance` is called once per block, never
per row or per query, and costs a clock reading when nothing is shown. No
thread is needed: the line changes when a block is done.

Two displays:

* on a terminal (the command line), one status line rewritten in place with
  ``"\\r"``, shown only once the work has lasted :data:`DELAY` seconds, at
  most ten times a second, and erased when the work ends, so that the
  terminal is left clean and standard output is never touched;
* as lines (``verbose=`` of the Python functions, in scikit-learn's sense),
  one message per line whatever standard error is: a line a second
  (``verbose=1``) or up to ten (``verbose >= 2``), and a last one per stage.

The reporter of the work under way is held in a context variable
(:func:`current`, set by ``with progress:``), so that a stage deep down,
such as the chunks of random draws of :mod:`skirm.stats`, reports to it
without a parameter on every function between; :func:`current` gives a
silent reporter when there is none.

Why not tqdm or rich: either would be a run-time dependency for one line of
status; skirm's run-time dependencies are numpy, scipy and scikit-learn, and
this module needs the standard library only.

Private, for tests: the environment variable ``SKIRM_PROGRESS_DELAY`` (in
seconds) replaces :data:`DELAY`, so that a test sees the line on a small
input.
"""

from __future__ import annotations

import _thread
import contextlib
import contextvars
import os
import sys
import time
import warnings

from skirm._params import Instance, Interval, Param

#: Seconds of work before the terminal line appears (short work shows none).
DELAY = 1.0
#: Least seconds between two updates of the terminal line (or of the lines of
#: ``verbose >= 2``).
INTERVAL = 0.1
#: Least seconds between two lines of ``verbose=1``.
VERBOSE_INTERVAL = 1.0

_CURRENT: contextvars.ContextVar[Progress | None] = contextvars.ContextVar(
    "skirm_progress", default=None
)


#: How much progress a function prints on standard error (scikit-learn's
#: ``verbose``): 0 none; ``True`` counts as 1.
VERBOSE = Param(
    "verbose",
    Interval(int, 0, closed="left"),
    Instance(bool, "True or False"),
    expected="a non-negative integer (0: silent)",
)


def _size(n):
    """A byte count for people: ``163.1 MB``."""
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError  # pragma: no cover


def _delay():
    try:
        return float(os.environ["SKIRM_PROGRESS_DELAY"])
    except (KeyError, ValueError):
        return DELAY


class Progress:
    """One line of status on ``stream``, for the stages of a long work.

    Parameters
    ----------
    stream : file
        Where the status goes (standard error).
    title : str
        What works (``"skirm eval"``), at the start of every line.
    inline : bool, default=True
        Rewrite one line in place (a terminal) rather than write lines.
    delay : float, default=None
        Seconds before anything is shown; None: :data:`DELAY` on a terminal
        (or ``SKIRM_PROGRESS_DELAY``), 0 for lines.
    interval : float, default=None
        Least seconds between two updates; None: :data:`INTERVAL` on a
        terminal, :data:`VERBOSE_INTERVAL` for lines.
    """

    def __init__(self, stream, title, *, inline=True, delay=None, interval=None):
        self.stream, self.title, self.inline = stream, title, inline
        if delay is None:
            delay = _delay() if inline else 0.0
        if interval is None:
            interval = INTERVAL if inline else VERBOSE_INTERVAL
        self.delay, self.interval = delay, interval
        self.context = ""
        self._lock = _thread.allocate_lock()  # threading's Lock, without threading
        self._start = time.monotonic()
        self._shown_at = -float("inf")
        self._width = 0  # of the line on the terminal, to erase it
        self._token = None
        self._showwarning = None
        self._stage(None, None, None)

    # -- what the work calls ----------------------------------------------

    def stage(self, name, total=None, unit=None):
        """Start a stage: ``name``, and the ``total`` of ``unit`` it will do
        (``"bytes"``, ``"resamples"``), if known."""
        with self._lock:
            self._stage(name, total, unit)
            now = time.monotonic()
            if not self.inline:  # as lines, every stage says it starts
                self._shown_at = -float("inf")
            self._show(now)

    def advance(self, n=0, *, done=None, total=None, **counts):
        """Add ``n`` to the stage's count (or set it to ``done`` of
        ``total``), and ``counts`` to its named counts (``queries=120``).

        Thread-safe: blocks evaluated by worker threads report here.
        """
        with self._lock:
            self._done = self._done + n if done is None else done
            if total is not None:
                self._total = total
            for key, value in counts.items():
                self._counts[key] = self._counts.get(key, 0) + value
            self._show(time.monotonic())

    def set_context(self, text):
        """Show ``text`` after the title (``"[run 2 of 3]"``); ``""``: none."""
        with self._lock:
            self.context = text

    def finish(self):
        """End the stage; as lines, its last line (with its time)."""
        with self._lock:
            if self._name is not None and not self.inline:
                now = time.monotonic()
                name, counts = self._text()
                self._write(name, f"{counts} (done, {now - self._start:.1f} s)", now)
            self._stage(None, None, None)

    def __enter__(self):
        self._token = _CURRENT.set(self)
        if self.inline:  # a warning gets a clean line of its own
            self._showwarning = warnings.showwarning
            warnings.showwarning = self._warn
        return self

    def __exit__(self, *exc_info):
        if self._showwarning is not None:
            warnings.showwarning = self._showwarning
            self._showwarning = None
        if self._token is not None:
            _CURRENT.reset(self._token)
            self._token = None
        self.close()

    def close(self):
        """Erase the terminal line (lines stay)."""
        with self._lock:
            self._erase()

    # -- the line -----------------------------------------------------------

    def _stage(self, name, total, unit):
        self._name, self._total, self._unit = name, total, unit
        self._done, self._counts = 0, {}

    def _text(self):
        done, total, unit = self._done, self._total, self._unit
        if unit == "bytes" and total:
            parts = [f"{min(100, 100 * done // total)}% of {_size(total)} read"]
        elif unit == "bytes":
            parts = [f"{_size(done)} read"] if done else []
        elif total:
            parts = [f"{done:,} of {total:,} {unit or ''}".rstrip()]
        else:
            parts = [f"{done:,} {unit}"] if done and unit else []
        parts += [f"{value:,} {key}" for key, value in self._counts.items()]
        head = f"{self.title} {self.context}" if self.context else self.title
        return f"{head}: {self._name}", f": {', '.join(parts)}" if parts else ""

    def _show(self, now):
        if self._name is None or now - self._start < self.delay:
            return
        if now - self._shown_at < self.interval:
            return
        if not self.inline and self._total and self._done >= self._total:
            return  # the stage's last line says it
        seconds = now - self._start
        when = f"{seconds:.0f} s" if self.inline else f"{seconds:.1f} s"
        name, counts = self._text()
        self._write(name, f"{counts} ({when})", now)

    def _write(self, name, counts, now):
        """Write ``name + counts``; on a terminal too narrow for the line,
        the name is cut rather than the counts."""
        self._shown_at = now
        text = name + counts
        if self.inline:
            width = _columns(self.stream) - 1
            if len(text) > width:
                keep = width - len(counts) - 3
                text = f"{name[:keep]}...{counts}" if keep > 10 else text[:width]
            pad = " " * max(0, self._width - len(text))
            self.stream.write(f"\r{text}{pad}")
            self._width = len(text)
        else:
            self.stream.write(f"{text}\n")
        self.stream.flush()

    def _erase(self):
        if self._width:
            self.stream.write(f"\r{' ' * self._width}\r")
            self.stream.flush()
            self._width = 0

    def _warn(self, *args, **kwargs):
        with self._lock:
            self._erase()
        showwarning = self._showwarning or warnings.showwarning
        showwarning(*args, **kwargs)


def _columns(stream):
    """The terminal's width (80 when it does not say, as a new pty)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, OSError, ValueError):
        return 80


class _Silent:
    """The reporter when nothing is shown: every call does nothing."""

    def stage(self, name, total=None, unit=None):
        pass

    def advance(self, n=0, *, done=None, total=None, **counts):
        pass

    def set_context(self, text):
        pass

    def finish(self):
        pass

    def close(self):
        pass


SILENT = _Silent()


def current():
    """The reporter of the work under way (``with progress:``), or a silent
    one."""
    progress = _CURRENT.get()
    return SILENT if progress is None else progress


def reporting(verbose, title, stream=None):
    """The reporter for a function called with ``verbose``: lines on
    ``stream`` (standard error) when ``verbose > 0``, as the context manager
    of a new reporter; else the one of the work under way, if any (the
    command line's), left as it is.

    Use as ``with reporting(verbose, "skirm.stats.compare") as progress:``.
    """
    verbose = int(VERBOSE(verbose))
    if verbose == 0:
        return contextlib.nullcontext(current())
    if stream is None:
        stream = sys.stderr
    interval = VERBOSE_INTERVAL if verbose == 1 else INTERVAL
    return Progress(stream, title, inline=False, interval=interval)
