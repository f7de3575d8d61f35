"""Which measures each relevance format (trec_eval ``-R``) serves."""

from __future__ import annotations

import numpy as np

from skirm.io._prefs import Prefs, QrelsJG
from skirm.trec._groups import KERNELS, _query_part, average_over_groups
from skirm.trec._measures import MEASURES

__all__ = [
    "REL_FORMATS",
    "MissingTopics",
    "check_qrels_type",
    "check_rel_format",
    "group_values",
]

#: The formats of the relevance file, as trec_eval names them.
REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")

#: The measure family each format serves (MeasureDef.rel_format).
_FAMILY = {
    "qrels": "qrels",
    "qrels_jg": "qrels_jg",
    "prefs": "prefs",
    "qrels_prefs": "prefs",
}

#: Measures that need no relevance information.
_ANY_FORMAT = ("runid", "num_q")


def check_rel_format(rel_format, outputs):
    """Validate ``rel_format`` against the parsed measures; returns it."""
    if rel_format not in REL_FORMATS:
        raise ValueError(
            f"`rel_format` must be one of {', '.join(map(repr, REL_FORMATS))}, "
            f"got {rel_format!r}"
        )
    wrong = []
    for name, kind, what, _ in outputs:
        needs = "qrels" if kind == "skirm" else MEASURES[what].rel_format
        if kind == "trec" and what in _ANY_FORMAT:
            continue
        if needs != _FAMILY[rel_format]:
            wrong.append(f"{name} (needs rel_format={needs!r})")
    if wrong:
        raise ValueError(
            f"with rel_format={rel_format!r} these measures cannot be computed: "
            f"{', '.join(wrong)}"
            + {
                "qrels_jg": "; the judgment-group measures are map_avgjg, P_avgjg "
                "and Rprec_mult_avgjg (nickname qrels_jg)",
                "prefs": "; the preference measures are prefs_* (nicknames "
                "all_prefs and prefs)",
            }.get(_FAMILY[rel_format], "")
        )
    return rel_format


def check_qrels_type(qrels, rel_format):
    """Judgment groups or preferences given with the wrong ``rel_format``."""
    expected = {QrelsJG: ("qrels_jg",), Prefs: ("prefs", "qrels_prefs")}
    for kind, formats in expected.items():
        if isinstance(qrels, kind) and rel_format not in formats:
            raise TypeError(
                f"`qrels` is a {kind.__name__}: pass rel_format="
                f"{' or '.join(map(repr, formats))} to evaluate it, got "
                f"rel_format={rel_format!r}"
            )


def group_values(ctx, base, param, codes, n_queries):
    """Per-query values of a ``-R qrels_jg`` measure: the standard kernel on
    each (query, group) topic of ``ctx``, averaged over each query's groups."""
    if base == "num_q":
        return np.ones(n_queries)
    return average_over_groups(ctx.value(KERNELS[base], param), codes, n_queries)


class MissingTopics:
    """``-c``: the qrels topics missing from the run, and their values.

    trec_eval 10.0 evaluates each such topic against a placeholder ranking of
    one unjudged document, then zeroes the outputs named exactly ``num_ret``
    and ``utility`` and empties ``relstring``: every measure is 0 except
    ``num_q`` (1), ``num_rel`` (R), ``yaap`` (log(1 / (1 + R))) and a
    ``utility`` with explicit parameters (p2 + p3 R + p4 (N - 1 - R): its
    name is not ``utility``, so it keeps the placeholder's one retrieved
    document; likewise ``relstring.k`` shows ``-``). These values enter the
    summary (and ``-Z``).
    """

    def __init__(self, qrels, evaluated, level, all_queries, group_codes):
        self.query_ids = np.zeros(0, dtype=str)
        self.R = np.zeros(0)
        if not all_queries:
            return
        codes, ids = qrels._query_codes()
        if group_codes is not None:  # (query, group) topics: only ids matter
            ids = np.unique(_query_part(ids))
            self.query_ids = ids[~np.isin(ids, evaluated)]
            self.R = np.zeros(self.query_ids.shape[0])
            return
        R = np.bincount(codes, weights=qrels.labels >= level, minlength=len(ids))
        miss = ~np.isin(ids, evaluated)
        self.query_ids, self.R = ids[miss], R[miss]

    def values(self, base, name=None, param=None, num_docs=0):
        """The values of trec measure ``base`` (None: a skirm metric) whose
        output is called ``name``, with parameters ``param``."""
        if base == "utility" and name != "utility":
            _, p2, p3, p4 = param
            return p2 + p3 * self.R + p4 * (num_docs - 1.0 - self.R)
        if base == "num_q":
            return np.ones(self.R.shape[0])
        if base == "num_rel":
            return self.R.copy()
        if base == "yaap":
            return np.log(1.0 / (1.0 + self.R))
        return np.zeros(self.R.shape[0])
