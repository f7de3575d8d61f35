"""trec_eval's measures by name: parameters, print order, nicknames, grammar.

The table every layer that speaks trec_eval's names reads: the name parser
of :mod:`skirm.metrics` (to tell a trec_eval-only name from an unknown one),
the TREC evaluation (:mod:`skirm.trec`) and the command line. Names only:
the kernels that compute the measures live in :mod:`skirm.trec`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skirm._errors import (
    InvalidParameterError,
    MeasureParameterError,
    UnknownMeasureError,
)


@dataclass(frozen=True)
class MeasureDef:
    name: str
    params: str  # "none", "cutoffs", "float_cutoffs", "floats", "pairs"
    default: tuple = ()
    summary: str = "mean"  # "mean", "sum", "count", "gm", "none"
    per_query: bool = True  # printed per query by trec_eval -q
    integer: bool = False
    unsupported: str = ""  # why skirm does not compute it
    string: bool = False  # per-query strings (relstring), no summary
    rel_format: str = "qrels"  # the -R input the measure reads


_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: trec_eval's measures in its print order, plus skirm's ``judged``.
MEASURES = {
    m.name: m
    for m in (
        MeasureDef("runid", "none", summary="none", per_query=False),
        MeasureDef("num_q", "none", summary="count", per_query=False, integer=True),
        MeasureDef("num_ret", "none", summary="sum", integer=True),
        MeasureDef("num_rel", "none", summary="sum", integer=True),
        MeasureDef("num_rel_ret", "none", summary="sum", integer=True),
        MeasureDef("map", "none"),
        MeasureDef("gm_map", "none", summary="gm", per_query=False),
        MeasureDef("Rprec", "none"),
        MeasureDef("bpref", "none"),
        MeasureDef("recip_rank", "none"),
        MeasureDef("iprec_at_recall", "float_cutoffs", _RECALL_LEVELS),
        MeasureDef("P", "cutoffs", _CUTS),
        MeasureDef("relstring", "floats", (10.0,), summary="none", string=True),
        MeasureDef("recall", "cutoffs", _CUTS),
        MeasureDef("infAP", "none"),
        MeasureDef("gm_bpref", "none", summary="gm", per_query=False),
        MeasureDef(
            "Rprec_mult",
            "float_cutoffs",
            (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        ),
        MeasureDef("utility", "floats", (1.0, -1.0, 0.0, 0.0)),
        MeasureDef("11pt_avg", "floats", _RECALL_LEVELS),
        MeasureDef("binG", "none"),
        MeasureDef("G", "none"),
        MeasureDef("ndcg", "pairs"),
        MeasureDef("ndcg_rel", "none"),
        MeasureDef("Rndcg", "none"),
        MeasureDef("ndcg_cut", "cutoffs", _CUTS),
        MeasureDef("map_cut", "cutoffs", _CUTS),
        MeasureDef("relative_P", "cutoffs", _CUTS),
        MeasureDef("success", "cutoffs", (1, 5, 10)),
        MeasureDef("set_P", "none"),
        MeasureDef("set_relative_P", "none"),
        MeasureDef("set_recall", "none"),
        MeasureDef("set_map", "none"),
        MeasureDef("set_F", "floats", (1.0,)),
        MeasureDef("num_nonrel_judged_ret", "none", summary="sum", integer=True),
        *(
            MeasureDef(
                name,
                "none",
                summary="sum" if "_num_" in name else "mean",
                integer="_num_" in name,
                rel_format="prefs",
            )
            for name in (
                "prefs_num_prefs_poss",
                "prefs_num_prefs_ful",
                "prefs_num_prefs_ful_ret",
                "prefs_simp",
                "prefs_pair",
                "prefs_avgjg",
                "prefs_avgjg_Rnonrel",
                "prefs_simp_ret",
                "prefs_pair_ret",
                "prefs_avgjg_ret",
                "prefs_avgjg_Rnonrel_ret",
                "prefs_simp_imp",
                "prefs_pair_imp",
                "prefs_avgjg_imp",
            )
        ),
        MeasureDef("map_avgjg", "none", rel_format="qrels_jg"),
        MeasureDef("P_avgjg", "cutoffs", _CUTS, rel_format="qrels_jg"),
        MeasureDef(
            "Rprec_mult_avgjg",
            "float_cutoffs",
            (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
            rel_format="qrels_jg",
        ),
        MeasureDef("yaap", "none"),
        MeasureDef("rbp", "none"),
        MeasureDef("rbp_resid", "none"),
        MeasureDef("unj", "cutoffs", (5, 10, 20)),
        MeasureDef("judged", "cutoffs", (5, 10, 20)),
        MeasureDef(
            "ndcg_p",
            "pairs",
            unsupported="trec_eval has its source (m_ndcg_p.c) but does not "
            "compile it: trec_eval 10.0 rejects -m ndcg_p too; use ndcg with "
            "gains, e.g. ndcg.1=3,2=9",
        ),
    )
}

ORDER = {name: i for i, name in enumerate(MEASURES)}

NICKNAMES = {
    "official": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
    ),
    "all_trec": tuple(
        n
        for n, d in MEASURES.items()
        if n not in ("judged", "yaap", "ndcg_p") and d.rel_format == "qrels"
    ),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
    "all_prefs": (
        "runid",
        "num_q",
        *(n for n, d in MEASURES.items() if d.rel_format == "prefs"),
    ),
    "prefs": (
        "runid",
        "num_q",
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
        "prefs_simp",
        "prefs_pair",
        "prefs_avgjg",
    ),
}

#: Measures trec_eval 10.0 added to ``all_trec`` (absent from 9.0.x).
NEW_IN_10 = ("rbp", "rbp_resid", "unj")

#: ir_measures spellings (exact case) of measures computed by trec_eval only,
#: with their default parameters; ``IPrec`` takes its recall level as
#: ``IPrec@0.5``. The output keeps the name as given.
IR_MEASURES_TREC = {
    "Bpref": "bpref",
    "BPref": "bpref",
    "infAP": "infAP",
    "SetAP": "set_map",
    "SetRelP": "set_relative_P",
    "NumQ": "num_q",
    "NumRel": "num_rel",
    "NumRet": "num_ret",
    "NumRelRet": "num_rel_ret",
    "IPrec": "iprec_at_recall",
}

_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


@dataclass
class Request:
    """One requested trec measure: a base name and its parameters."""

    base: str
    values: tuple  # cutoffs / floats / ((level, gain), ...)
    text: str | None  # the parameter text as given, or None for the defaults
    label: str | None = None  # the user's name for '@' requests

    def outputs(self):
        """``[(output name, parameter)]`` in print order."""
        d = MEASURES[self.base]
        if self.label is not None:
            one = d.params in ("cutoffs", "float_cutoffs")
            return [(self.label, self.values[0] if one else self.values)]
        if d.params == "cutoffs":
            return [(f"{self.base}_{k}", k) for k in self.values]
        if d.params == "float_cutoffs":
            return [(f"{self.base}_{x:3.2f}", x) for x in self.values]
        if self.text is None:
            return [(self.base, self.values)]
        return [(f"{self.base}_{self.text}", self.values)]


def _parse_params(base, text, name):
    d = MEASURES[base]
    if d.params == "none":
        raise MeasureParameterError(
            f"measure {base!r} takes no parameters, got {name!r}"
        )
    if d.params == "pairs":
        pairs = []
        for item in text.split(","):
            level, _, gain = item.partition("=")
            try:
                pairs.append((int(level), float(gain)))
            except ValueError:
                raise MeasureParameterError(
                    f"malformed parameters in {name!r}: expected level=gain "
                    "pairs such as ndcg.1=3,2=9"
                ) from None
        return tuple(pairs)
    items = text.split(",")
    if not all(_NUMBER.fullmatch(item) for item in items):
        raise MeasureParameterError(
            f"malformed parameters in {name!r}: expected comma-separated numbers"
        )
    if d.params == "cutoffs":
        values = [int(float(item)) for item in items]  # trec_eval uses atol
        if any(v <= 0 for v in values) or len(set(values)) != len(values):
            raise MeasureParameterError(
                f"cutoffs of {name!r} must be distinct positive integers, got {text!r}"
            )
        return tuple(sorted(values))
    values = [float(item) for item in items]
    if d.params == "float_cutoffs":
        if len(set(values)) != len(values) or any(v < 0 for v in values):
            raise MeasureParameterError(
                f"cutoffs of {name!r} must be distinct non-negative numbers, "
                f"got {text!r}"
            )
        return tuple(sorted(values))
    if base == "utility" and len(values) != 4:
        raise MeasureParameterError(f"utility takes 4 coefficients, got {name!r}")
    if base == "set_F" and len(values) != 1:
        raise MeasureParameterError(
            f"set_F takes one parameter (beta squared), got {name!r}"
        )
    return tuple(values)


def parse_trec_name(name, compat="10.0"):
    """A :class:`Request` for a trec_eval-style name, or None if it is not one.

    ``compat="9.0"`` leaves the measures added in 10.0 out of ``all_trec``.
    """
    if name in MEASURES:
        return [Request(name, MEASURES[name].default, None)]
    if name in NICKNAMES:
        bases = NICKNAMES[name]
        if compat == "9.0":
            bases = [b for b in bases if b not in NEW_IN_10]
        return [Request(b, MEASURES[b].default, None) for b in bases]
    base, sep, k = name.partition("@")
    if sep and base in MEASURES and MEASURES[base].params == "cutoffs":
        if not re.fullmatch(r"[1-9][0-9]*", k):
            raise UnknownMeasureError(
                f"malformed cutoff in {name!r}: expected {base}@K, K >= 1"
            )
        return [Request(base, (int(k),), k, label=name)]
    ir_measures = _ir_measures_request(name)
    if ir_measures is not None:
        return [ir_measures]
    base, sep, text = name.partition(".")
    if sep and base in MEASURES:
        return [Request(base, _parse_params(base, text, name), text)]
    base, sep, text = name.rpartition("_")
    if sep and base in MEASURES and _NUMBER.fullmatch(text):
        return [Request(base, _parse_params(base, text, name), text)]
    return None


def _ir_measures_request(name):
    """A :class:`Request` for an ir_measures spelling in ``IR_MEASURES_TREC``."""
    base, sep, level = name.partition("@")
    trec = IR_MEASURES_TREC.get(base)
    if trec is None:
        return None
    if MEASURES[trec].params != "float_cutoffs":
        if sep:
            raise InvalidParameterError(
                f"measure {base!r} takes no cutoff, got {name!r}"
            )
        return Request(trec, MEASURES[trec].default, None, label=name)
    value = float(level) if sep and _NUMBER.fullmatch(level) else -1.0
    if not 0.0 <= value <= 1.0:
        raise InvalidParameterError(
            f"measure {base!r} needs a recall level in [0, 1], e.g. '{base}@0.5'; "
            f"got {name!r}"
        )
    return Request(trec, (value,), level, label=name)


def check_supported(request):
    d = MEASURES[request.base]
    if d.unsupported:
        raise UnknownMeasureError(
            f"trec_eval measure {request.base!r} is not supported: {d.unsupported}"
        )


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
    names = [n for n, d in MEASURES.items() if not d.unsupported]
    return [*names, *sorted(NICKNAMES)]
