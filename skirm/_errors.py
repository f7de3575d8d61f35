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
#: Interrupted (Ctrl-C), and standard output closed early (a pipe to
#: ``head``): 128 + SIGINT and 128 + SIGPIPE, as a shell reports them.
INTERRUPTED, PIPE_CLOSED = 130, 141

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
    (INTERRUPTED, "interrupted (Ctrl-C)"),
    (PIPE_CLOSED, "standard output closed early (a pipe to head): nothing said"),
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

    Examples
    --------
    >>> import skirm
    >>> try:
    ...     skirm.ndcg_score([1, 0], [0.5, 0.2], groups=[0, 0], k=0)
    ... except skirm.SkirmError as exc:
    ...     print(type(exc).__name__, exc.exit_status)
    ...     print(exc)
    InvalidParameterError 1
    `k` must be a positive integer or None, got 0 (int)
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

    Examples
    --------
    >>> import skirm
    >>> try:
    ...     skirm.ndcg_score([1, 0], [0.5, 0.2], groups=[0, 0], ties="random")
    ... except ValueError as exc:  # or TypeError, or skirm.InvalidParameterError
    ...     print(type(exc).__name__, exc)
    InvalidParameterError `ties` must be one of 'average', ..., got 'random' (str)
    """


class UnknownMeasureError(InvalidParameterError):
    """A measure name that no grammar (skirm's, trec_eval's, ir_measures',
    ndeval's) knows; the message suggests the close names.

    Examples
    --------
    >>> from skirm.metrics import UnknownMeasureError, get_metric
    >>> try:
    ...     get_metric("ndgc@10")
    ... except UnknownMeasureError as exc:
    ...     print(exc)
    unknown measure 'ndgc@10' (did you mean 'ndcg@10'?); valid names: ...
    """


class MeasureParameterError(InvalidParameterError):
    """A known measure asked for with parameters it cannot take (``P.0``,
    ``utility.1``): trec_eval's "Cannot initialize measure".

    Examples
    --------
    >>> from skirm.trec import MeasureParameterError, evaluate_run
    >>> qrels, run = {"q1": {"d1": 1}}, {"q1": {"d1": 2.0}}
    >>> try:
    ...     evaluate_run(qrels, run, ["P.0"])
    ... except MeasureParameterError as exc:
    ...     print(exc.exit_status, exc)
    2 cutoffs of 'P.0' must be distinct positive integers, got '0'
    """

    exit_status = INPUT


class InvalidInputError(SkirmError, ValueError, TypeError):
    """Data that cannot be evaluated: labels, scores, query ids, weights, a
    run or qrels whose content breaks a rule of the evaluation.

    Both a ``ValueError`` and a ``TypeError`` (data of a wrong type raised a
    ``TypeError`` before the family existed).

    Examples
    --------
    >>> import skirm
    >>> try:
    ...     skirm.ndcg_score([1, 0], [float("nan"), 0.2], groups=[0, 0])
    ... except skirm.InvalidInputError as exc:
    ...     print(exc.exit_status, exc)
    2 `y_score` must not contain NaN, got NaN at flat index 0
    """

    exit_status = INPUT


class EmptyRunError(InvalidInputError):
    """A run without a line: nothing to evaluate.

    Examples
    --------
    >>> import io
    >>> from skirm.trec import EmptyRunError, evaluate_run
    >>> try:
    ...     evaluate_run({"q1": {"d1": 1}}, io.BytesIO(b""), ["map"])
    ... except EmptyRunError as exc:
    ...     print(exc.exit_status, exc)
    2 the run is empty: nothing to evaluate
    """


class MissingQueriesError(InvalidInputError):
    """Judged queries the run lacks, where trec_eval 10.0 stops (pass
    ``all_queries=True``, trec_eval's ``-c``, to score them).

    Examples
    --------
    >>> from skirm.trec import MissingQueriesError, evaluate_run
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}}
    >>> try:
    ...     evaluate_run(qrels, {"q1": {"d1": 2.0}}, ["map"])
    ... except MissingQueriesError as exc:
    ...     print(exc.exit_status, exc)
    4 1 qrels queries are missing from the run (e.g. ['q2']); ...
    >>> evaluate_run(qrels, {"q1": {"d1": 2.0}}, ["map"], all_queries=True)["map"]
    0.5
    """

    exit_status = STOPPED


class NoCommonQueryError(InvalidInputError):
    """No query of the run is in the qrels: nothing to evaluate.

    Examples
    --------
    >>> from skirm.trec import NoCommonQueryError, evaluate_run
    >>> try:
    ...     evaluate_run({"q1": {"d1": 1}}, {"q9": {"d1": 2.0}}, ["map"])
    ... except NoCommonQueryError as exc:
    ...     print(exc.exit_status, exc)
    7 no query of the run appears in the qrels: nothing to evaluate ...
    """

    exit_status = NO_COMMON_QUERY


class TrecFormatError(InvalidInputError):
    """A malformed TREC file (qrels, run, preferences, z-scores); the
    message starts with ``file:line``.

    Examples
    --------
    >>> import io
    >>> from skirm.io import TrecFormatError, read_qrels
    >>> try:
    ...     read_qrels(io.BytesIO(b"q1 0 d1\\n"))
    ... except TrecFormatError as exc:
    ...     print(exc.exit_status, exc)
    2 <file>:1: too few fields (3); expected 4 fields: qid iter docno rel, got 'q1 0 d1'
    """


class DuplicateDocnoError(TrecFormatError):
    """A docno twice in an evaluated query (trec_eval stops there).

    Examples
    --------
    >>> import io
    >>> from skirm.trec import DuplicateDocnoError, evaluate_run
    >>> run = io.BytesIO(b"q1 Q0 d1 1 2.0 r\\nq1 Q0 d1 2 1.0 r\\n")
    >>> try:
    ...     evaluate_run({"q1": {"d1": 1}}, run, ["map"])
    ... except DuplicateDocnoError as exc:
    ...     print(exc.exit_status, exc)
    4 <file>:2: duplicate docno 'd1' for query 'q1' (first at line 1); ...
    """

    exit_status = STOPPED


class RunNotGroupedError(TrecFormatError):
    """A run read as a stream whose lines of one query are not together.

    skirm streams a run file query by query; :func:`skirm.trec.evaluate_run`
    catches this error from the stream and reads such a run again, by query,
    so its callers get the values, not the error. It is public so that code
    catching :class:`TrecFormatError` can tell it apart; ``name``, ``line``
    (0-based) and ``query`` say where the query came back.

    Examples
    --------
    >>> import io
    >>> from skirm.io import RunNotGroupedError, TrecFormatError
    >>> from skirm.trec import evaluate_run
    >>> issubclass(RunNotGroupedError, TrecFormatError)
    True
    >>> run = io.BytesIO(b"q1 Q0 d1 1 2 r\\nq2 Q0 d1 1 2 r\\nq1 Q0 d2 2 1 r\\n")
    >>> evaluate_run({"q1": {"d2": 1}, "q2": {"d1": 1}}, run, ["map"])["map"]
    0.75
    """

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
    names the extra that installs it (``pip install skirm[plot]``).

    Examples
    --------
    Code that catches ``ImportError`` around an optional feature keeps
    working:

    >>> import skirm
    >>> issubclass(skirm.MissingDependencyError, ImportError)
    True
    """


#: Each class and the public package that exports it: the class is shown (in
#: tracebacks, reprs, the documentation) and pickled under that package (a
#: test holds the packages' exports to this table).
PUBLIC_PACKAGES = {
    SkirmError: "skirm",
    InvalidParameterError: "skirm",
    InvalidInputError: "skirm",
    MissingDependencyError: "skirm",
    UnknownMeasureError: "skirm.metrics",
    TrecFormatError: "skirm.io",
    RunNotGroupedError: "skirm.io",
    MeasureParameterError: "skirm.trec",
    EmptyRunError: "skirm.trec",
    MissingQueriesError: "skirm.trec",
    NoCommonQueryError: "skirm.trec",
    DuplicateDocnoError: "skirm.trec",
}
for _cls, _package in PUBLIC_PACKAGES.items():
    _cls.__module__ = _package
del _cls, _package

#: The classes' examples, for the doctests of this module: a class shown
#: under another module is not looked for in this one.
__test__ = {cls.__name__: cls for cls in PUBLIC_PACKAGES}
