"""The measure table's spellings, looked up: by grammar, and listed.

Built once from the table (:mod:`._table`): skirm's names of the measures
on arrays, trec_eval's names with their print order and nicknames,
ir_measures' names by the engine that computes them, and every spelling of
the diversity measures.
"""

from __future__ import annotations

import re

from skirm._measures._rows import ARRAYS, DIVERSITY, QRELS, TREC
from skirm._measures._table import ALL_TREC, MEASURES, NICKNAMES, OFFICIAL, SET

#: skirm's names (lowercase) of the measures on arrays.
SKIRM_NAMES = {name: m for m in MEASURES if m.engine == ARRAYS for name in m.skirm}
#: trec_eval's names: ``{name: (measure, spelling)}``.
TREC_NAMES = {t.name: (m, t) for m in MEASURES for t in m.trec}
#: trec_eval's print order.
ORDER = {name: spelling.order for name, (_, spelling) in TREC_NAMES.items()}
#: Each nickname's spellings, in print order.
NICKNAME_SPELLINGS = {
    nickname: tuple(
        sorted(
            (t for m in MEASURES for t in m.trec if nickname in t.nicknames),
            key=lambda t: t.order,
        )
    )
    for nickname in NICKNAMES
}
#: pytrec_eval's measures: trec_eval 9.0.x's, read from qrels (it has no
#: other relevance format, and none of the measures 10.0 added).
PYTREC_EVAL_NAMES = tuple(
    name
    for name, (_, spelling) in TREC_NAMES.items()
    if spelling.since == "9.0" and spelling.rel_format == QRELS
    and not spelling.unsupported
)  # fmt: skip
#: pytrec_eval's nicknames, and the measures each stands for.
PYTREC_EVAL_NICKNAMES = {
    OFFICIAL: tuple(s.name for s in NICKNAME_SPELLINGS[OFFICIAL]),
    SET: tuple(s.name for s in NICKNAME_SPELLINGS[SET]),
    ALL_TREC: PYTREC_EVAL_NAMES,
}
#: ir_measures' names (of every engine): ``{name: (measure, spelling)}``.
IR_NAMES = {i.name: (m, i) for m in MEASURES for i in m.ir_measures}
_IR = IR_NAMES
#: ir_measures' names of the measures on arrays, and of trec_eval's.
IR_ON_ARRAYS = {n: v for n, v in _IR.items() if v[0].engine == ARRAYS}
IR_OF_TREC = {n: v for n, v in _IR.items() if v[0].engine == TREC}
#: trec_eval's names that also name their measure on arrays.
TREC_ON_ARRAYS = {n: v for n, v in TREC_NAMES.items() if v[1].arrays}
#: Every spelling of the diversity measures (ir_measures', ndeval's, skirm's).
DIVERSITY_NAMES = {
    name: (m, i)
    for m in MEASURES
    if m.engine == DIVERSITY
    for name, i in (
        *((i.name, i) for i in m.ir_measures),
        *((n, m.ir_measures[0]) for n in (*m.ndeval, *m.skirm)),
    )
}
IR_LOWER = {key.lower(): value for key, value in IR_ON_ARRAYS.items()}
TREC_LOWER = {key.lower(): value for key, value in TREC_ON_ARRAYS.items()}


class _Pattern:
    """A regular expression compiled on its first use: a request of
    trec_eval's nicknames matches none of them, and compiling the five took
    about a millisecond of every start."""

    __slots__ = ("_compiled", "text")

    def __init__(self, text):
        self.text, self._compiled = text, None

    def _pattern(self):
        if self._compiled is None:
            self._compiled = re.compile(self.text)
        return self._compiled

    def fullmatch(self, string):
        return self._pattern().fullmatch(string)

    def match(self, string):
        return self._pattern().match(string)


NUMBER = _Pattern(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
HEAD = _Pattern(r"(?P<base>[A-Za-z][A-Za-z0-9_.,]*)(?:\((?P<opts>[^()]*)\))?")
CUTOFF = _Pattern(r"[1-9][0-9]*")
TREC_CUTOFF = _Pattern(r"(?P<base>[A-Za-z][A-Za-z_]*?)[._](?P<k>[0-9][0-9,]*)")
DIVERSITY_NAME = _Pattern(
    r"(?P<base>[A-Za-z\u03b1][A-Za-z_-]*)(?:\((?P<opts>[^()]*)\))?(?:@(?P<k>[0-9]+))?"
)


def metric_names() -> list[str]:
    """skirm's names of the measures on arrays, bare and with ``@k``."""
    names = []
    for name in sorted(SKIRM_NAMES):
        names.append(name)
        if SKIRM_NAMES[name].takes_k:
            names.append(f"{name}@k")
    return names


def trec_measure_names() -> list[str]:
    """The trec_eval measure names and nicknames :func:`evaluate_run` accepts.

    Parameterised measures are also accepted with parameters (``P.5,10``,
    ``P_10``, ``P@10``, ``iprec_at_recall.0.5``, ``ndcg.1=3,2=9``), and every
    :func:`skirm.metrics.metric_names` name works too.

    Returns
    -------
    names : list of str
        Measure names in trec_eval's print order, then the nicknames.

    Examples
    --------
    >>> from skirm.trec import trec_measure_names
    >>> names = trec_measure_names()
    >>> "bpref" in names, "all_trec" in names, "relstring" in names
    (True, True, True)
    """
    names = sorted(
        (s for _, s in TREC_NAMES.values() if not s.unsupported),
        key=lambda s: s.order,
    )
    return [*(s.name for s in names), *sorted(NICKNAMES)]
