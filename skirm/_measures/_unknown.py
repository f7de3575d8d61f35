"""The one error for a measure name no grammar of a door knows.

Three doors read names (:mod:`._grammar`): arrays, a run against its qrels
(``"trec"``) and subtopic judgments (``"diversity"``). A name none of a
door's grammars knows gets :func:`unknown_measure`: why a known measure is
not computed at that door, else the close names of the door's grammars
("did you mean"), quoting the name as given, and what the door accepts.
"""

from __future__ import annotations

import re

from skirm._errors import UnknownMeasureError
from skirm._measures._names import (
    DIVERSITY_NAME,
    DIVERSITY_NAMES,
    HEAD,
    IR_NAMES,
    IR_OF_TREC,
    IR_ON_ARRAYS,
    NICKNAME_SPELLINGS,
    PYTREC_EVAL_NAMES,
    PYTREC_EVAL_NICKNAMES,
    SKIRM_NAMES,
    TREC_CUTOFF,
    TREC_LOWER,
    TREC_NAMES,
    TREC_ON_ARRAYS,
    metric_names,
    trec_measure_names,
)
from skirm._measures._table import NICKNAMES
from skirm._params import describe

__all__ = ["malformed", "suggest", "unknown_measure"]


def unknown_measure(name, door: str = "arrays") -> UnknownMeasureError:
    """The error for ``name`` at a door (``"arrays"``, ``"trec"``,
    ``"diversity"``, ``"pytrec_eval"`` and ``"ir_measures"``: the
    drop-ins' names): why a known
    measure is not computed there, else the close names of the door's
    grammars and what the door accepts."""
    if not isinstance(name, str):
        return UnknownMeasureError(f"unknown measure {describe(name)}; {_valid(door)}")
    elsewhere = _elsewhere(name, door)
    if elsewhere:
        return UnknownMeasureError(f"{name!r} {elsewhere}")
    hint = suggest(name, door)
    hint = f" (did you mean {hint}?)" if hint else ""
    # The command line says where the names are listed rather than listing
    # them all (some 1,500 characters on one line).
    command_line = (
        f"unknown measure {name!r}{hint}; `skirm eval --help` lists the measures"
        if door == "trec"
        else None
    )
    return UnknownMeasureError(
        f"unknown measure {name!r}{hint}; {_valid(door)}", command_line=command_line
    )


def malformed(name, cutoff, door="arrays") -> UnknownMeasureError:
    if cutoff is not None and cutoff.isdigit():
        return UnknownMeasureError(
            f"malformed measure name {name!r}: the cutoff k must be a positive "
            f"integer without leading zeros, got {cutoff!r}"
        )
    return UnknownMeasureError(
        f"malformed measure name {name!r}: expected NAME, NAME@K (K a positive "
        "integer), a trec_eval name such as 'ndcg_cut.10' or an ir_measures "
        f"string such as 'P(rel=2)@10'; {_valid(door)}"
    )


def _valid(door) -> str:
    """What ``door`` accepts, for the end of the error message."""
    if door == "trec":
        return (
            f"valid trec_eval names: {', '.join(trec_measure_names())}; or a "
            "skirm metric name (see skirm.metrics.metric_names()); or a "
            "diversity measure (see skirm.trec.evaluate_diversity)"
        )
    if door == "pytrec_eval":
        names = ", ".join(sorted(PYTREC_EVAL_NAMES, key=str.lower))
        return (
            f"pytrec_eval's measures are {names} (with parameters as in P.5,10 "
            f"or P_5) and the nicknames {', '.join(PYTREC_EVAL_NICKNAMES)}"
        )
    if door == "diversity":
        return f"valid names: {', '.join(sorted(DIVERSITY_NAMES, key=str.lower))}"
    if door == "ir_measures":
        names = ", ".join(sorted(IR_NAMES, key=str.lower))
        return f"the ir_measures names skirm computes: {names}"
    return (
        f"valid names: {', '.join(metric_names())}; also trec_eval names "
        "(e.g. 'ndcg_cut.10', 'P.5', 'recip_rank') and ir_measures strings "
        "(e.g. 'nDCG@10', 'P(rel=2)@5', 'AP', 'RBP(p=0.8)')"
    )


def _base(name):
    match = DIVERSITY_NAME.fullmatch(name) or HEAD.match(name.partition("@")[0])
    return match["base"] if match else name


def _elsewhere(name, door) -> str | None:
    """Why a known measure ``name`` is not computed at ``door``, or None."""
    base = _base(name)
    if door == "trec" and "@" in name and base in TREC_NAMES:
        return f"is not a measure: trec_eval's {base!r} takes no cutoff"
    if door == "arrays" and base in DIVERSITY_NAMES:
        measure = DIVERSITY_NAMES[base][0]
        return (
            "is a diversity measure: it needs subtopic judgments, one column "
            f"per subtopic; use skirm.metrics.{measure.function} (or "
            "skirm.trec.evaluate_diversity, skirm ndeval)"
        )
    if door == "arrays":
        trec = TREC_CUTOFF.fullmatch(base)
        stem = trec["base"] if trec is not None else base
        trec_only = (
            base in IR_OF_TREC
            or base in NICKNAME_SPELLINGS
            or any(
                n in TREC_NAMES and not TREC_NAMES[n][1].unsupported
                for n in (base, stem)
            )
        )
        if trec_only:
            return (
                "is a trec_eval measure that skirm computes only on a run "
                "against its qrels: use skirm.trec.evaluate_run (or `skirm eval`)"
            )
    return None


def suggest(name, door="arrays") -> str:
    """The "did you mean" names for an unknown ``name`` at ``door`` (empty
    when nothing is close), each with the rest of the name as given."""
    base = _base(name)
    digits = re.fullmatch(r"(?P<stem>[A-Za-z_]*?)[._]?(?P<k>[1-9][0-9]*)", base)
    if digits is not None and door != "diversity":
        stem = digits["stem"]
        trec = TREC_ON_ARRAYS.get(stem) or TREC_LOWER.get(stem.lower())
        if door == "trec":
            trec = trec or TREC_NAMES.get(stem)
        if trec is not None and trec[1].params == "cutoffs":
            return repr(f"{stem}.{digits['k']}")
        measure = SKIRM_NAMES.get(stem.lower()) if door != "pytrec_eval" else None
        if measure is not None and measure.takes_k:
            return repr(f"{stem}@{digits['k']}")
    pool: dict[str, str] = {}
    for key in _pool(door):
        pool.setdefault(key.lower(), key)
    import difflib  # here: only an unknown name needs it

    tail = name[len(base) :] if name.startswith(base) else ""
    names = []
    if not tail and door != "diversity":  # ndgc_cut.10: the parameters kept
        names = [n for n in _with_parameters(base, door, difflib) if n != name]
    if not names:
        close = difflib.get_close_matches(base.lower(), list(pool), n=4, cutoff=0.75)
        names = [pool[c] + tail for c in close if pool[c] + tail != name]
    return " or ".join(repr(n) for n in names[:3])


def _with_parameters(base, door, difflib) -> list[str]:
    """Close names for a misspelled trec_eval measure given with its
    parameters (``ndgc_cut.10``, ``ndgc_cut_10``, ``iprec_at_recal.0.5``):
    the measure's name corrected among those taking parameters, the
    parameters kept as typed."""
    stem, dot, params = base.partition(".")
    if not dot:
        stem, dot, params = base.rpartition("_")
        if not (dot and params.isdigit()):
            return []
    table = TREC_NAMES if door in ("trec", "pytrec_eval") else TREC_ON_ARRAYS
    stems = {key.lower(): key for key, (_, s) in table.items() if s.params != "none"}
    close = difflib.get_close_matches(stem.lower(), list(stems), n=3, cutoff=0.75)
    return [f"{stems[c]}{dot}{params}" for c in close]


def _pool(door):
    """The names a door's grammars know, for suggestions."""
    if door == "diversity":
        return list(DIVERSITY_NAMES)
    if door == "pytrec_eval":
        return [*PYTREC_EVAL_NAMES, *PYTREC_EVAL_NICKNAMES]
    if door == "ir_measures":
        return list(IR_NAMES)
    names = [*SKIRM_NAMES, *TREC_ON_ARRAYS, *IR_ON_ARRAYS]
    if door == "trec":  # trec_eval's spellings first: they win a tie of case
        return [*TREC_NAMES, *NICKNAMES, *IR_OF_TREC, *names, *DIVERSITY_NAMES]
    return names
