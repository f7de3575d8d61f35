"""The measure table: every measure skirm knows, once, with every spelling.

One :class:`~skirm._measures._rows.Measure` per measure, in the order of the
documentation's tables: the measures on arrays (:mod:`._arrays`: the metric
registry of :mod:`skirm.metrics` binds their kernels), the measures of
impression logs (:mod:`._impressions`: per-group AUC, calibration,
propensity-scored; on arrays too), trec_eval's own (:mod:`._trec`: kernels
in :mod:`skirm.trec`) and the diversity measures (:mod:`._ndeval`).
Each spelling of a measure (skirm's, trec_eval's, ir_measures', ndeval's)
is written in one of those rows and nowhere else:
the name grammars, trec_eval's order and nicknames, the pytrec_eval
drop-in's list, the documentation's tables and the tests read them from
there. This module gathers them: ``table.NDCG``, ``table.BPREF``, ...
"""

from __future__ import annotations

from skirm._measures import _arrays, _impressions, _ndeval, _trec
from skirm._measures._arrays import *
from skirm._measures._impressions import *
from skirm._measures._ndeval import *
from skirm._measures._rows import Measure
from skirm._measures._trec import *
from skirm._measures._vocabulary import *


def _rows(*modules):
    """The measures of the table's parts, in the order they are written."""
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, Measure):
                yield value
            elif isinstance(value, tuple) and value and isinstance(value[0], Measure):
                yield from value


#: Every measure, in the order of the documentation's tables.
MEASURES = tuple(_rows(_arrays, _impressions, _trec, _ndeval))
# ir_measures' SetP(relative=True) is trec_eval's set_relative_P: the two
# rows live in two parts of the table, linked here.
PRECISION.ir_measures[1].relative = SET_RELATIVE_P.ir_measures[0]
#: The measures ``evaluate`` (and its Dask and cross-validation forms)
#: computes when none are named.
DEFAULT_METRICS = (f"{NDCG.name}@10", MAP.name, MRR.name)
#: The measures ``skirm compare`` compares when none are named.
COMPARE_METRICS = (MAP.trec[0].name, f"{NDCG.trec[1].name}.10")
#: The diversity measures, in the order of ndeval's columns.
DIVERSITY_MEASURES = tuple(_rows(_ndeval))

_BY_KEY = {measure.key: measure for measure in MEASURES}
_SPELLINGS = {spelling.name: spelling for m in MEASURES for spelling in m.trec}


def measure_of(key):
    """The row of a measure's :attr:`~skirm._measures._rows.Measure.key`."""
    return _BY_KEY[key]


def spelling_of(name):
    """The trec_eval spelling of that name."""
    return _SPELLINGS[name]
