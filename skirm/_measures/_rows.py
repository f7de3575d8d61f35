"""The shape of the measure table: a row per measure, its spellings.

A :class:`Measure` is one definition: what it computes (its kind, cutoff,
bounds and options), which tool's definition it follows
(:class:`Reference`: its tie rule and its summary), what computes it
(:attr:`Measure.engine`), and how each grammar spells it: skirm's names,
trec_eval's (:class:`Trec`, each with its own parameters, summary and
place in trec_eval's output), ir_measures' (:class:`IrName`) and
ndeval's. The table itself is :mod:`skirm._measures._table`.
"""

from __future__ import annotations

import sys

__all__ = [
    "ARRAYS",
    "DIVERSITY",
    "PREFS",
    "QRELS",
    "QRELS_JG",
    "QRELS_PREFS",
    "REL_FORMATS",
    "TREC",
    "IrName",
    "Measure",
    "Reference",
    "Trec",
]

# What computes a measure.
#: The ranking engine's kernels (:mod:`skirm.metrics`), on arrays and on the
#: ranking of a run against its qrels.
ARRAYS = "arrays"
#: trec_eval's own computations, on a run against its qrels (:mod:`skirm.trec`).
TREC = "trec"
#: The diversity tables of subtopic judgments (:mod:`skirm.metrics`).
DIVERSITY = "diversity"

# The relevance formats of trec_eval (``-R``); a nickname of trec_eval is
# named after the format whose measures it lists.
QRELS = "qrels"
QRELS_JG = "qrels_jg"
PREFS = "prefs"
QRELS_PREFS = "qrels_prefs"
#: Each relevance format, and the format of the measures it serves (qrels
#: read as preferences serve the preference measures).
REL_FORMATS = {QRELS: QRELS, QRELS_JG: QRELS_JG, PREFS: PREFS, QRELS_PREFS: PREFS}


class Reference:
    """A tool whose definition of a measure skirm follows: the order it
    gives tied documents and how it summarises the queries, in words.

    ``order`` is the tie rule in a form code can apply, for the tools a
    measure is computed by (ir_measures' providers): ``"trec_eval"`` (score
    descending, then docno descending), ``"input"`` (score descending, ties
    in the order the run gave them) or ``"docno_ascending"`` (score
    descending, then docno ascending); None where skirm's own rule holds.
    ``score_type`` is how the tool reads scores: ``"float64"``, or
    ``"float32"`` for trec_eval 9.0.x (pytrec_eval), which holds them as C
    floats (scores closer than that tie there). ``judgments`` is how it
    reads a document judged more than once (subtopic qrels, a line given
    twice): ``"last"`` (the last row, as a dict keeps it), ``"any"`` (the
    highest label: relevant if any row reaches the level) or
    ``"positive"`` (gdeval: the rows with a positive label only, the
    document at the lowest of them, every one of them in the ideal DCG)."""

    __slots__ = ("judgments", "name", "order", "score_type", "summary", "ties")

    def __init__(
        self,
        name: str,
        ties: str,
        summary: str,
        *,
        order: str | None = None,
        score_type: str = "float64",
        judgments: str = "last",
    ) -> None:
        self.name, self.ties, self.summary = name, ties, summary
        self.order, self.score_type = order, score_type
        self.judgments = judgments

    def __repr__(self):
        return f"Reference({self.name!r})"


class Trec:
    """A trec_eval spelling of a measure, as trec_eval's table declares it.

    ``order`` is its place in trec_eval's output; ``params`` the kind of
    parameters it takes (``"none"``, ``"cutoffs"``, ``"float_cutoffs"``,
    ``"floats"``, ``"pairs"``) with ``default`` those it has unless given;
    ``summary`` how trec_eval summarises it (``"mean"``, ``"sum"``,
    ``"count"``, ``"gm"``, ``"none"``). ``kernel`` names the TREC kernel that
    computes it (:mod:`skirm.trec._kernels`), or is None when the measure's
    array kernel does (binary measures at trec_eval's relevance level);
    ``arrays`` tells whether the name also means the measure on arrays;
    ``n_params`` says how many parameters it takes when that is as many as
    its defaults (utility's "4 coefficients"), in words.
    ``nicknames`` lists trec_eval's nicknames that include it; ``since`` is
    the trec_eval version that added it (None: skirm's own, such as
    ``judged``): trec_eval 9.0.x's nicknames, and pytrec_eval, lack the ones
    10.0 added.
    """

    __slots__ = (
        "arrays",
        "default",
        "integer",
        "kernel",
        "n_params",
        "name",
        "nicknames",
        "order",
        "params",
        "per_query",
        "rel_format",
        "since",
        "string",
        "summary",
        "unsupported",
    )

    def __init__(
        self,
        name: str,
        order: int,
        params: str = "none",
        default: tuple = (),
        *,
        kernel: str | None = None,
        summary: str = "mean",
        per_query: bool = True,
        integer: bool = False,
        string: bool = False,
        rel_format: str = QRELS,
        nicknames: tuple = (),
        since: str | None = "9.0",
        arrays: bool = False,
        n_params: str = "",
        unsupported: str = "",
    ) -> None:
        self.name, self.order, self.params, self.default = name, order, params, default
        self.kernel, self.summary, self.per_query = kernel, summary, per_query
        self.integer, self.string, self.rel_format = integer, string, rel_format
        self.nicknames, self.since, self.arrays = nicknames, since, arrays
        self.n_params, self.unsupported = n_params, unsupported

    @property
    def cutoffs(self) -> bool:
        """Whether its parameters are cutoffs (one output per cutoff)."""
        return self.params in ("cutoffs", "float_cutoffs")

    def __repr__(self):
        return f"Trec({self.name!r})"

    def __reduce__(self):
        # Pickled by name, unpickled as the table's own spelling (Dask
        # workers, process pools): see Measure.__reduce__.
        return sys.modules["skirm._measures._table"].spelling_of, (self.name,)


class IrName:
    """An ir_measures spelling: the options it takes (ir_measures' names),
    the options it implies (``fixed``), whether it takes a cutoff
    (``"@k"``), takes a recall level (``"@level"``) or none (``""``),
    whether its exact case wins over a skirm name of the same letters
    (``ERR`` is gdeval's, ``err`` skirm's), and the trec_eval measure it
    names when given ``rel`` (``with_rel``: ``NumRet(rel=1)`` is
    ``num_rel_ret``).

    ``options`` are ir_measures' names. ``rel`` is the relevance level
    (skirm's ``relevance_threshold``, trec_eval's ``-l``); ``judged_only``
    (trec_eval's ``-J``) and ``gains`` (grades mapped to gains in the
    qrels) change what the qrels say, so they are taken per measure where a
    run is evaluated against its qrels (:func:`skirm.trec.evaluate_run`);
    the cutoff may also come as an option (``cutoff=``, ``recall=``).

    ``provider`` is the :class:`Reference` of the tool ir_measures' default
    pipeline computes the name with (its tie order and the queries it
    reports), ``cutoff_provider`` the one it uses when a cutoff is given
    (``RR@10`` is MS MARCO's, ``RR`` pytrec_eval's)."""

    __slots__ = (
        "cutoff",
        "cutoff_provider",
        "exact_case",
        "fixed",
        "name",
        "options",
        "provider",
        "with_rel",
    )

    def __init__(
        self,
        name: str,
        options: tuple = (),
        *,
        cutoff: str = "@k",
        fixed: tuple = (),
        exact_case: bool = False,
        with_rel: str | None = None,
        provider: Reference | None = None,
        cutoff_provider: Reference | None = None,
    ) -> None:
        self.name, self.options, self.cutoff = name, options, cutoff
        self.fixed, self.exact_case, self.with_rel = fixed, exact_case, with_rel
        self.provider = provider
        self.cutoff_provider = cutoff_provider or provider

    def __repr__(self):
        return f"IrName({self.name!r})"


class Measure:
    """One measure: a row of the table.

    Parameters
    ----------
    definition : str
        What it computes per query, in one line.
    engine : {ARRAYS, TREC, DIVERSITY, None}
        What computes it (None: nothing, ``runid``).
    reference : Reference
        The tool whose definition it follows.
    kind : str
        ``"binary"``, ``"graded"``, ``"judgement"`` (arrays); ``"count"``,
        ``"value"``, ``"text"`` (trec_eval's); ``"diversity"``.
    takes_k, bounded : bool
        Whether it takes a cutoff, and whether its values lie in [0, 1].
    options : dict
        Its options and their defaults (rules: :mod:`skirm._measures._options`).
    skirm : tuple of str
        skirm's names, the canonical one first (case-insensitive); empty for
        a measure computed on a run against its qrels only.
    trec, ir_measures : tuple
        Its :class:`Trec` and :class:`IrName` spellings.
    ndeval : tuple of str
        ndeval's column names.
    function : str
        The public function of :mod:`skirm.metrics` that computes it, where
        that is not ``<name>_score`` of its registry record.
    better : {"higher", "lower", None}
        Which values are better: ``"higher"`` (every measure but a few),
        ``"lower"`` (a loss or an error: normalized entropy, fall-out), or
        None where the best value is in between (PCOC: 1). A scorer
        negates a ``"lower"`` measure and refuses a None one.
    scores : {"ranking", "probability"}
        What of ``y_score`` it reads: ``"ranking"``, the order of the rows
        within each query only (a strictly increasing transform of the
        scores changes nothing); ``"probability"``, the values themselves,
        each a probability in [0, 1] (normalized entropy, calibration).
    """

    __slots__ = (
        "better",
        "bounded",
        "definition",
        "engine",
        "function",
        "ir_measures",
        "kind",
        "ndeval",
        "options",
        "reference",
        "scores",
        "skirm",
        "takes_k",
        "trec",
    )

    def __init__(
        self,
        definition: str,
        *,
        engine: str | None,
        reference: Reference,
        kind: str,
        takes_k: bool = False,
        bounded: bool = True,
        options: dict | None = None,
        skirm: tuple = (),
        trec: tuple = (),
        ir_measures: tuple = (),
        ndeval: tuple = (),
        function: str = "",
        better: str | None = "higher",
        scores: str = "ranking",
    ) -> None:
        self.definition, self.engine, self.reference = definition, engine, reference
        self.kind, self.takes_k, self.bounded = kind, takes_k, bounded
        self.options = dict(options or {})
        self.skirm, self.trec, self.ir_measures = skirm, trec, ir_measures
        self.ndeval, self.function = ndeval, function
        self.better, self.scores = better, scores

    @property
    def name(self) -> str:
        """Its name: skirm's canonical name, else its first spelling."""
        for names in (self.skirm, [t.name for t in self.trec]):
            if names:
                return names[0]
        return self.ir_measures[0].name

    @property
    def aliases(self) -> tuple:
        """skirm's other names for it."""
        return self.skirm[1:]

    @property
    def key(self) -> tuple:
        """What tells it from every other measure: its engine and name."""
        return (self.engine, self.name)

    def __repr__(self):
        return f"Measure({self.name!r})"

    def __reduce__(self):
        # Pickled by key and unpickled as the table's own row, so that a row
        # that travels to another process is still the one the code there
        # compares with ``is``. Rows exist only once the table is imported:
        # its module is in sys.modules (no import here: the table imports
        # this module), and unpickling imports it.
        return sys.modules["skirm._measures._table"].measure_of, (self.key,)
