"""skirm's errors: one family, every class public.

Every mistake skirm reports (an argument it cannot take, data it cannot
evaluate, a malformed file) is an instance of :class:`SkirmError`, drawn
with its subclasses in that class's docstring. Each class carries the exit
status of the ``skirm`` command that stops on it: one table
(:data:`EXIT_STATUSES`) for every subcommand, with trec_eval's statuses where
it has them. The classes are shown and pickled under the public package that
exports them (the last lines of this module).
"""

from __future__ import annotations

__all__ = [
    "DuplicateDocnoError",
    "EmptyRunError",
    "InvalidInputError",
    "InvalidParameterError",
    "MeasureParameterError",
    "MissingDependencyError",
    "MissingQueriesError",
    "NoCommonQueryError",
    "RunNotGroupedError",
    "SkirmError",
    "TrecFormatError",
    "UnknownMeasureError",
]

#: The exit statuses of the ``skirm`` command, by meaning.
USAGE, INPUT, STOPPED, NO_COMMON_QUERY = 1, 2, 4, 7

#: ``(status, meaning)`` for every status the ``skirm`` command exits with;
#: ``--help`` and the documentation print this table.
EXIT_STATUSES = (
    (0, "success"),
    (
        USAGE,
        "a usage error: an unknown option or measure name, an option value "
        "out of its range, a missing optional dependency",
    ),
    (
        INPUT,
        "input that cannot be read or evaluated: a missing or malformed file, "
        "parameters a measure cannot take (P.0), an illegal -R",
    ),
    (
        STOPPED,
        "the evaluation stops: a docno twice in an evaluated query, judged "
        "queries missing from the run (trec_eval 10.0 without -c)",
    ),
    (NO_COMMON_QUERY, "no query is in both the qrels and the run"),
)


class SkirmError(Exception):
    """The base of every error skirm raises about its arguments and data.

    ``except skirm.SkirmError`` catches them all::

        SkirmError
        ├── InvalidParameterError        an argument's type or value
        │   ├── UnknownMeasureError      a measure name no grammar knows
        │   └── MeasureParameterError    a known measure, parameters it refuses
        ├── InvalidInputError            data it cannot evaluate
        │   ├── EmptyRunError            a run without a line
        │   ├── MissingQueriesError      judged queries the run lacks
        │   ├── NoCommonQueryError       no query in both qrels and run
        │   └── TrecFormatError          a malformed TREC file (file:line)
        │       ├── DuplicateDocnoError  a docno twice in an evaluated query
        │       └── RunNotGroupedError   a streamed run, query lines apart
        └── MissingDependencyError       an optional package not installed

    Each is also the builtin class Python code catches for that kind of
    mistake, so code written for those keeps working:
    :class:`InvalidParameterError` and :class:`InvalidInputError` are
    ``ValueError`` and ``TypeError``, :class:`MissingDependencyError` is an
    ``ImportError``.

    Parameters
    ----------
    message : str
        What went wrong, naming the argument, what it accepts and what it
        received.
    command_line : str, default=None
        The same message in the ``skirm`` command's option names, where they
        differ from the Python argument names (``-l`` for
        ``relevance_level``); the command prints it.
    exit_status : int, default=None
        The status the ``skirm`` command exits with on this error, where it
        differs from its class's (trec_eval exits 2 on an illegal ``-R``).

    Attributes
    ----------
    exit_status : int
        The status the ``skirm`` command exits with on this error.
    command_line : str or None
        The message in the command line's words, if it has its own.
    """

    exit_status = USAGE

    def __init__(
        self,
        message: str,
        *,
        command_line: str | None = None,
        exit_status: int | None = None,
    ) -> None:
        # One positional argument: the exception pickles (Dask workers, process
        # pools), and str(exc) is the message.
        super().__init__(message)
        self.command_line = command_line
        if exit_status is not None:  # a rule whose trec_eval status differs
            self.exit_status = exit_status

    def __reduce__(self):
        return _rebuild, (type(self), str(self), self.command_line, self.exit_status)


def _rebuild(cls, message, command_line, exit_status):
    return cls(message, command_line=command_line, exit_status=exit_status)


class InvalidParameterError(SkirmError, ValueError, TypeError):
    """An argument of a type or a value the function does not take.

    Both a ``ValueError`` and a ``TypeError``, as scikit-learn's error of
    that name: what Python code caught for either before still catches it.
    """


class UnknownMeasureError(InvalidParameterError):
    """A measure name that no grammar (skirm's, trec_eval's, ir_measures',
    ndeval's) knows; the message suggests the close names."""


class MeasureParameterError(InvalidParameterError):
    """A known measure asked for with parameters it cannot take (``P.0``,
    ``utility.1``): trec_eval's "Cannot initialize measure"."""

    exit_status = INPUT


class InvalidInputError(SkirmError, ValueError, TypeError):
    """Data that cannot be evaluated: labels, scores, query ids, weights, a
    run or qrels whose content breaks a rule of the evaluation.

    Both a ``ValueError`` and a ``TypeError`` (data of a wrong type raised a
    ``TypeError`` before the family existed)."""

    exit_status = INPUT


class EmptyRunError(InvalidInputError):
    """A run without a line: nothing to evaluate."""


class MissingQueriesError(InvalidInputError):
    """Judged queries the run lacks, where trec_eval 10.0 stops (pass
    ``all_queries=True``, trec_eval's ``-c``, to score them)."""

    exit_status = STOPPED


class NoCommonQueryError(InvalidInputError):
    """No query of the run is in the qrels: nothing to evaluate."""

    exit_status = NO_COMMON_QUERY


class TrecFormatError(InvalidInputError):
    """A malformed TREC file (qrels, run, preferences, z-scores); the
    message starts with ``file:line``."""


class DuplicateDocnoError(TrecFormatError):
    """A docno twice in an evaluated query (trec_eval stops there)."""

    exit_status = STOPPED


class RunNotGroupedError(TrecFormatError):
    """A run read as a stream whose lines of one query are not together.

    :func:`skirm.trec.evaluate_run` catches it and reads such a run again,
    by query; it reaches the caller only from the streaming readers."""

    def __init__(
        self, message: str, *, name: str = "", line: int = 0, query: str = ""
    ) -> None:
        super().__init__(message)
        self.name, self.line, self.query = name, line, query

    def __reduce__(self):
        return _rebuild_not_grouped, (str(self), self.name, self.line, self.query)


def _rebuild_not_grouped(message, name, line, query):
    return RunNotGroupedError(message, name=name, line=line, query=query)


class MissingDependencyError(SkirmError, ImportError):
    """An optional package a function needs is not installed; the message
    names the extra that installs it (``pip install skirm[plot]``)."""


# Each class is shown (in tracebacks, reprs, the documentation) and pickled
# under the public package that exports it.
for _cls, _package in (
    (SkirmError, "skirm"),
    (InvalidParameterError, "skirm"),
    (InvalidInputError, "skirm"),
    (MissingDependencyError, "skirm"),
    (UnknownMeasureError, "skirm.metrics"),
    (TrecFormatError, "skirm.io"),
    (RunNotGroupedError, "skirm.io"),
    (MeasureParameterError, "skirm.trec"),
    (EmptyRunError, "skirm.trec"),
    (MissingQueriesError, "skirm.trec"),
    (NoCommonQueryError, "skirm.trec"),
    (DuplicateDocnoError, "skirm.trec"),
):
    _cls.__module__ = _package
del _cls, _package
