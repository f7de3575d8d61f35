"""Metric names in three spellings, parsed into one registry record.

skirm's own names (``ndcg@10``, ``p@5``, ``rprec``), trec_eval's
(``ndcg_cut.10``, ``P_5``, ``recip_rank``, ``set_F``) and ir_measures'
strings (``nDCG@10``, ``P(rel=2)@5``, ``AP(rel=2)``, ``RBP(p=0.8)``,
``ERR@20``, ``SetF``) all become a registry record, a cutoff and the options
the name implies. A name that does not parse gets one error, whatever the
front door (metric functions, ``evaluate``, scorers, the CLI), with "did you
mean" suggestions.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from skirm._errors import InvalidParameterError, UnknownMeasureError
from skirm._params import describe


class Alias(NamedTuple):
    """A foreign spelling of a registered metric."""

    target: str  # the registry name
    cutoff: bool  # takes a cutoff (``@k``, or ``.k`` / ``_k`` for trec_eval)
    options: tuple = ()  # the foreign options it accepts, e.g. ("rel", "p")
    fixed: tuple = ()  # (option, value) pairs the name implies


#: trec_eval measures that exist on the array path, by trec_eval's spelling.
TREC_NAMES = {
    "P": Alias("precision", True),
    "recall": Alias("recall", True),
    "ndcg_cut": Alias("ndcg", True),
    "map_cut": Alias("map", True),
    "success": Alias("hit_rate", True),
    "ndcg": Alias("ndcg", False),
    "map": Alias("map", False),
    "recip_rank": Alias("mrr", False),
    "Rprec": Alias("r_precision", False),
    "set_P": Alias("precision", False),
    "set_recall": Alias("recall", False),
    "set_F": Alias("f1", False),
}

#: ir_measures measures that exist on the array path, by ir_measures' spelling.
#: ``ERR`` is gdeval's, whose grades run up to 4.
IR_MEASURES_NAMES = {
    "nDCG": Alias("ndcg", True, ("dcg",)),
    "P": Alias("precision", True, ("rel",)),
    "R": Alias("recall", True, ("rel",)),
    "AP": Alias("map", True, ("rel",)),
    "RR": Alias("mrr", True, ("rel",)),
    "RBP": Alias("rbp", True, ("rel", "p")),
    "ERR": Alias("err", True, (), (("max_grade", 4.0),)),
    "Success": Alias("hit_rate", True, ("rel",)),
    "Judged": Alias("judged", True),
    "Rprec": Alias("r_precision", False, ("rel",)),
    "SetP": Alias("precision", False, ("rel",)),
    "SetR": Alias("recall", False, ("rel",)),
    "SetF": Alias("f1", False, ("rel", "beta")),
    "Accuracy": Alias("accuracy", True, ("rel",)),
    "Compat": Alias("compat", False, ("p", "normalize")),
    "INST": Alias("inst", False, ("T", "min_rel", "max_rel")),
    "INSQ": Alias("insq", False, ("T", "min_rel", "max_rel")),
    "BPM": Alias("bpm", True, ("T", "min_rel", "max_rel")),
    "NERR8": Alias("nerr8", True, ("min_rel", "max_rel")),
    "NERR9": Alias("nerr9", True, ("min_rel", "max_rel")),
    "NERR10": Alias("nerr10", False, ("p", "min_rel", "max_rel")),
    "NERR11": Alias("nerr11", False, ("T", "min_rel", "max_rel")),
    "SDCG": Alias("sdcg", True, ("dcg", "min_rel", "max_rel")),
}


class DiversityName(NamedTuple):
    """A diversity measure's column in the diversity table, and its options."""

    column: str
    function: str  # the skirm.metrics function computing it
    takes_k: bool
    options: tuple  # the ir_measures options it takes


_DIVERSITY = {
    "alpha_dcg": DiversityName("alpha_dcg", "alpha_dcg_score", True, ("alpha",)),
    "alpha_ndcg": DiversityName("alpha_ndcg", "alpha_ndcg_score", True, ("alpha",)),
    "err_ia": DiversityName("err_ia", "err_ia_score", True, ()),
    "nerr_ia": DiversityName("nerr_ia", "nerr_ia_score", True, ()),
    "nrbp": DiversityName("nrbp", "nrbp_score", False, ("alpha", "beta")),
    "nnrbp": DiversityName("nnrbp", "nnrbp_score", False, ("alpha", "beta")),
    "map_ia": DiversityName("map_ia", "map_ia_score", False, ()),
    "p_ia": DiversityName("p_ia", "precision_ia_score", True, ()),
    "strec": DiversityName("strec", "subtopic_recall_score", True, ()),
}
#: ir_measures' diversity measures, and ndeval's column names: computed from
#: subtopic judgments, not from one label per row.
IR_MEASURES_DIVERSITY = {
    **{
        spelling: _DIVERSITY[column]
        for column, spellings in {
            # ir_measures', ndeval's, then skirm's (its functions' names)
            "alpha_dcg": ("alpha_DCG", "\u03b1_DCG", "alpha-DCG", "alpha_dcg"),
            "alpha_ndcg": ("alpha_nDCG", "\u03b1_nDCG", "alpha-nDCG", "alpha_ndcg"),
            "err_ia": ("ERR_IA", "ERR-IA", "err_ia"),
            "nerr_ia": ("nERR_IA", "nERR-IA", "nerr_ia"),
            "nrbp": ("NRBP", "nrbp"),
            "nnrbp": ("nNRBP", "nnrbp"),
            "map_ia": ("AP_IA", "MAP_IA", "MAP-IA", "map_ia"),
            "p_ia": ("P_IA", "P-IA", "precision_ia"),
            "strec": ("StRecall", "strec", "subtopic_recall"),
        }.items()
        for spelling in spellings
    }
}
_DIVERSITY_NAME = re.compile(
    r"(?P<base>[A-Za-z\u03b1][A-Za-z_-]*)(?:\((?P<opts>[^()]*)\))?(?:@(?P<k>[0-9]+))?"
)


def parse_diversity_name(name, *, alpha=0.5, beta=0.5, rel=1, judged_only=False):
    """A diversity measure string (ir_measures', ndeval's or skirm's spelling) as
    ``(column, k, options)``: the options given in the name over the
    defaults passed (``alpha``, ``beta``, ``rel``, ``judged_only``)."""
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"a diversity measure name must be a string, got {name!r}"
        )
    match = _DIVERSITY_NAME.fullmatch(name)
    spec = IR_MEASURES_DIVERSITY.get(match["base"]) if match else None
    if spec is None:
        raise UnknownMeasureError(
            f"unknown diversity measure {name!r}; valid names: "
            + ", ".join(sorted(IR_MEASURES_DIVERSITY, key=str.lower))
        )
    k = int(match["k"]) if match["k"] is not None else None
    if spec.takes_k and (k is None or k < 1):
        raise InvalidParameterError(
            f"diversity measure {name!r} needs a positive cutoff, e.g. "
            f"'{match['base']}@20'"
        )
    if not spec.takes_k and k is not None:
        raise InvalidParameterError(
            f"diversity measure {match['base']!r} takes no cutoff, got {name!r}"
        )
    options = {"alpha": alpha, "beta": beta, "rel": rel, "judged_only": judged_only}
    allowed = (
        *spec.options,
        "rel",
        *(("judged_only",) if spec.column != "strec" else ()),
    )
    for key, value in _parse_options(
        match["opts"], name, allow=("judged_only",)
    ).items():
        if key not in allowed:
            raise InvalidParameterError(
                f"diversity measure {match['base']!r} in {name!r} takes no option "
                f"{key!r}; it takes: {', '.join(allowed)}"
            )
        if key == "judged_only":
            value = {"True": True, "False": False}.get(value, value)
            if not isinstance(value, bool):
                raise InvalidParameterError(
                    f"option 'judged_only' in {name!r} must be True or False"
                )
        options[key] = value
    return spec.column, k, options


_HEAD = re.compile(r"(?P<base>[A-Za-z][A-Za-z0-9_.,]*)(?:\((?P<opts>[^()]*)\))?")
_CUTOFF = re.compile(r"[1-9][0-9]*")
_TREC_CUTOFF = re.compile(r"(?P<base>[A-Za-z][A-Za-z_]*?)[._](?P<k>[0-9][0-9,]*)")


@dataclass
class Parsed:
    """A parsed name: the registry name, its cutoff and implied options."""

    target: str
    k: int | None = None
    options: dict = field(default_factory=dict)


def parse_name(name: str, registered) -> Parsed:
    """Parse ``name`` in any of the three spellings.

    ``registered`` maps lowercase skirm names and aliases to their records
    (only membership and ``takes_k`` are used).
    """
    head, at, cutoff = name.partition("@")
    if at:
        if not _CUTOFF.fullmatch(cutoff):
            raise _malformed(name, cutoff, registered)
        k = int(cutoff)
    else:
        k = None
    match = _HEAD.fullmatch(head)
    if match is None:
        raise _malformed(name, None, registered)
    base, opts = match["base"], match["opts"]
    if opts is None and base.lower() in registered and base not in _EXACT_FIRST:
        spec = registered[base.lower()]
        if k is not None and not spec.takes_k:
            raise InvalidParameterError(
                f"metric {spec.name!r} takes no cutoff, got {name!r}"
            )
        return Parsed(spec.name, k)
    ir_alias = IR_MEASURES_NAMES.get(base) or _IR_LOWER.get(base.lower())
    if ir_alias is not None and (opts is not None or base in _EXACT_FIRST or at):
        return _from_alias(ir_alias, name, base, k, _parse_options(opts, name))
    if opts is not None:
        raise _unknown(name, base, registered)
    trec_alias = TREC_NAMES.get(base) or _TREC_LOWER.get(base.lower())
    if trec_alias is not None:
        if trec_alias.cutoff and k is None:
            raise InvalidParameterError(
                f"trec_eval measure {base!r} needs one cutoff on the array path, "
                f"e.g. '{base}.10'; got {name!r}"
            )
        return _from_alias(trec_alias, name, base, k, {})
    if ir_alias is not None:
        return _from_alias(ir_alias, name, base, k, {})
    trec = _TREC_CUTOFF.fullmatch(base)
    if trec is not None and not at:
        stem = trec["base"]
        trec_alias = TREC_NAMES.get(stem) or _TREC_LOWER.get(stem.lower())
        if trec_alias is not None and trec_alias.cutoff:
            if not _CUTOFF.fullmatch(trec["k"]):
                raise InvalidParameterError(
                    f"malformed metric name {name!r}: the array path takes one "
                    f"positive integer cutoff per name (e.g. '{stem}.10'), got "
                    f"{trec['k']!r}"
                )
            return Parsed(trec_alias.target, int(trec["k"]))
    raise _unknown(name, base, registered)


#: ir_measures spellings whose exact case selects ir_measures' convention
#: over skirm's name of the same letters.
_EXACT_FIRST = frozenset({"ERR"})
_IR_LOWER = {key.lower(): alias for key, alias in IR_MEASURES_NAMES.items()}
_TREC_LOWER = {key.lower(): alias for key, alias in TREC_NAMES.items()}


def _from_alias(alias: Alias, name, base, k, options) -> Parsed:
    if k is not None and not alias.cutoff:
        raise InvalidParameterError(f"metric {base!r} takes no cutoff, got {name!r}")
    out = dict(alias.fixed)
    for key, value in options.items():
        if key not in alias.options:
            accepted = ", ".join(alias.options) or "none"
            raise InvalidParameterError(
                f"metric {base!r} in {name!r} takes no option {key!r}; options "
                f"skirm accepts for it: {accepted}"
            )
        out.update(_translate(key, value, name))
    return Parsed(alias.target, k, out)


def _translate(key, value, name) -> dict:
    """An ir_measures option as skirm options."""
    if key == "rel":
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise InvalidParameterError(
                f"option 'rel' in {name!r} must be a positive number, got {value!r}"
            )
        return {"relevance_threshold": float(value)}
    if key == "normalize":
        return {key: {"True": True, "False": False}.get(value, value)}
    if key in ("p", "T", "min_rel", "max_rel"):
        return {key: value}
    if key == "dcg":
        if value == "log2":
            return {}
        if value == "exp-log2":
            return {"gain": "exponential"}
        raise InvalidParameterError(
            f"option 'dcg' in {name!r} must be 'log2' or 'exp-log2', got {value!r}"
        )
    if key == "beta":
        if value != 1:
            raise InvalidParameterError(
                f"option 'beta' in {name!r}: skirm's F measure is F1, so beta must "
                f"be 1, got {value!r}"
            )
        return {}
    raise AssertionError(key)  # pragma: no cover - every accepted option is handled


def _parse_options(text, name, allow=()) -> dict:
    """``key=value`` pairs of an ir_measures name; values as int, float or str.

    ``allow``: options skirm's array path refuses that the caller takes."""
    if text is None:
        return {}
    options = {}
    for item in text.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key.isidentifier() or not value:
            raise InvalidParameterError(
                f"malformed metric name {name!r}: options in parentheses must be "
                f"key=value pairs separated by commas, got {item.strip()!r}"
            )
        if key in ("gains", "judged_only") and key not in allow:
            raise InvalidParameterError(
                f"option {key!r} in {name!r} is not supported on skirm's array "
                "path; map labels to gains before the call"
                + (" or drop unjudged rows" if key == "judged_only" else "")
            )
        if key in options:
            raise InvalidParameterError(f"option {key!r} is given twice in {name!r}")
        options[key] = _value(value.strip("'\""))
    return options


def _value(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def _skirm_names(registered) -> list[str]:
    names = []
    for key in sorted(registered):
        names.append(key)
        if registered[key].takes_k:
            names.append(f"{key}@k")
    return names


def _valid(registered) -> str:
    return (
        f"valid names: {', '.join(_skirm_names(registered))}; also trec_eval names "
        "(e.g. 'ndcg_cut.10', 'P.5', 'recip_rank') and ir_measures strings (e.g. "
        "'nDCG@10', 'P(rel=2)@5', 'AP', 'RBP(p=0.8)')"
    )


def _malformed(name, cutoff, registered) -> UnknownMeasureError:
    if cutoff is not None and cutoff.isdigit():
        return UnknownMeasureError(
            f"malformed metric name {name!r}: the cutoff k must be a positive "
            f"integer without leading zeros, got {cutoff!r}"
        )
    return UnknownMeasureError(
        f"malformed metric name {name!r}: expected NAME, NAME@K (K a positive "
        "integer), a trec_eval name such as 'ndcg_cut.10' or an ir_measures "
        f"string such as 'P(rel=2)@10'; {_valid(registered)}"
    )


def _unknown(name, base, registered) -> UnknownMeasureError:
    elsewhere = _elsewhere(base)
    if elsewhere:
        return UnknownMeasureError(f"metric {name!r} {elsewhere}")
    hint = suggest(base, registered, name)
    hint = f" (did you mean {hint}?)" if hint else ""
    return UnknownMeasureError(
        f"unknown metric {describe_name(base)}{hint}; {_valid(registered)}"
    )


def describe_name(base) -> str:
    return repr(base) if isinstance(base, str) else describe(base)


def _elsewhere(base) -> str | None:
    """Why a known foreign measure is not on the array path, or None."""
    if base in IR_MEASURES_DIVERSITY:
        return (
            "is a diversity measure: it needs subtopic judgments, one column "
            f"per subtopic; use skirm.metrics.{IR_MEASURES_DIVERSITY[base].function} "
            "(or skirm.trec.evaluate_diversity, skirm ndeval)"
        )
    # Imported here: the table of trec_eval's measures costs more to build
    # than the rest of the name grammar, and only a bad name needs it.
    from skirm._trec_names import IR_MEASURES_TREC, trec_measure_names

    trec = _TREC_CUTOFF.fullmatch(base)
    stem = trec["base"] if trec is not None else base
    names = trec_measure_names()
    if base in IR_MEASURES_TREC or base in names or stem in names:
        return (
            "is a trec_eval measure that skirm computes only on a run against its "
            "qrels: use skirm.trec.evaluate_run (or `skirm eval`)"
        )
    return None


def suggest(base, registered, name=None) -> str:
    """'did you mean' text for an unknown ``base`` (empty when nothing is close)."""
    digits = re.fullmatch(r"(?P<stem>[A-Za-z_]*?)[._]?(?P<k>[1-9][0-9]*)", base)
    if digits is not None:
        stem = digits["stem"]
        alias = TREC_NAMES.get(stem) or _TREC_LOWER.get(stem.lower())
        if alias is not None and alias.cutoff:
            return repr(f"{stem}.{digits['k']}")
        spec = registered.get(stem.lower())
        if spec is not None and spec.takes_k:
            return repr(f"{stem}@{digits['k']}")
    pool = {key: key for key in registered}
    for key in (*TREC_NAMES, *IR_MEASURES_NAMES):
        pool.setdefault(key.lower(), key)
    close = difflib.get_close_matches(base.lower(), list(pool), n=3, cutoff=0.75)
    tail = name[len(base) :] if name and name.startswith(base) else ""
    return " or ".join(repr(pool[c] + tail) for c in close)
