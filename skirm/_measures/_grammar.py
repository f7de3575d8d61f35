"""The grammars of measure names, read from the one table.

Three doors read names, each with the grammars it can compute:

* the array path (:func:`parse_metric`): skirm's names (``ndcg@10``,
  ``p@5``, case-insensitive), ir_measures' strings (``nDCG@10``,
  ``P(rel=2)@5``, ``RBP(p=0.8)``) and trec_eval's names of the measures
  arrays have (``ndcg_cut.10``, ``P_5``, ``recip_rank``), into a
  :class:`Named`: the measure, its cutoff and the options the name implies;
* a run against its qrels (:func:`parse_trec`): trec_eval's names first
  (with parameters and nicknames: ``P.5,10``, ``official``) and the
  ir_measures spellings of trec_eval's measures (``Bpref``, ``IPrec@0.5``),
  into :class:`TrecName` outputs; the array path then, and the diversity
  measures;
* subtopic judgments (:func:`parse_diversity`): ir_measures', ndeval's and
  skirm's diversity names (``alpha_nDCG@20``, ``ERR-IA@10``,
  ``NRBP(alpha=0.3)``), into a :class:`DiversityName`.

A name no door's grammar knows gets one error,
:func:`~skirm._measures._unknown.unknown_measure`, quoting the name as given
and suggesting the close names of that door.
"""

from __future__ import annotations

from skirm._errors import (
    InvalidParameterError,
    MeasureParameterError,
    UnknownMeasureError,
)
from skirm._measures._names import (
    CUTOFF,
    DIVERSITY_NAME,
    DIVERSITY_NAMES,
    HEAD,
    IR_LOWER,
    IR_OF_TREC,
    IR_ON_ARRAYS,
    NICKNAME_SPELLINGS,
    NUMBER,
    SKIRM_NAMES,
    TREC_CUTOFF,
    TREC_LOWER,
    TREC_NAMES,
    TREC_ON_ARRAYS,
)
from skirm._measures._table import STREC
from skirm._measures._unknown import malformed, unknown_measure

__all__ = [
    "DiversityName",
    "Named",
    "TrecName",
    "parse_diversity",
    "parse_metric",
    "parse_trec",
]

# --------------------------------------------------------------------------
# The array path
# --------------------------------------------------------------------------


class Named:
    """A measure name read on the array path: the measure, its cutoff and
    the options the name implies (``P(rel=2)@5``: relevance_threshold=2).

    ``variant`` holds what the name changes in the qrels, which only a run
    evaluated against its qrels can apply (``judged_only``, ``gains``; see
    :func:`variant_of`)."""

    __slots__ = ("k", "measure", "options", "text", "variant")

    def __init__(self, text, measure, k=None, options=None, variant=()):
        self.text, self.measure, self.k = text, measure, k
        self.options = dict(options or {})
        self.variant = variant

    def __repr__(self):
        return f"Named({self.text!r}: {self.measure.name}, k={self.k})"


def parse_metric(name: str, door: str = "arrays") -> Named:
    """A name of the array path (skirm's, ir_measures', trec_eval's), or
    :class:`~skirm.metrics.UnknownMeasureError` (its message says what
    ``door`` accepts: ``"arrays"``, or ``"trec"`` where these names come
    after trec_eval's)."""
    head, at, cutoff = name.partition("@")
    if at:
        if not CUTOFF.fullmatch(cutoff):
            raise malformed(name, cutoff, door)
        k = int(cutoff)
    else:
        k = None
    match = HEAD.fullmatch(head)
    if match is None:
        raise malformed(name, None, door)
    base, opts = match["base"], match["opts"]
    exact_ir = IR_ON_ARRAYS.get(base)
    exact_first = exact_ir is not None and exact_ir[1].exact_case
    if opts is None and base.lower() in SKIRM_NAMES and not exact_first:
        measure = SKIRM_NAMES[base.lower()]
        if k is not None and not measure.takes_k:
            raise _no_cutoff(measure.name, name)
        return Named(name, measure, k)
    ir = exact_ir or IR_LOWER.get(base.lower())
    if ir is not None and (opts is not None or exact_first or at):
        return _from_ir(ir, name, base, k, _parse_options(opts, name), door)
    if opts is not None:
        raise unknown_measure(name, door)
    trec = TREC_ON_ARRAYS.get(base) or TREC_LOWER.get(base.lower())
    if trec is not None:
        measure, spelling = trec
        takes_cutoff = spelling.params == "cutoffs"
        if takes_cutoff and k is None:
            raise InvalidParameterError(
                f"trec_eval measure {base!r} needs one cutoff on the array path, "
                f"e.g. '{base}.10'; got {name!r}"
            )
        if k is not None and not takes_cutoff:
            raise _no_cutoff(base, name)
        return Named(name, measure, k)
    if ir is not None:
        return _from_ir(ir, name, base, k, {}, door)
    trec_k = TREC_CUTOFF.fullmatch(base)
    if trec_k is not None and not at:
        stem = trec_k["base"]
        trec = TREC_ON_ARRAYS.get(stem) or TREC_LOWER.get(stem.lower())
        if trec is not None and trec[1].params == "cutoffs":
            if not CUTOFF.fullmatch(trec_k["k"]):
                raise InvalidParameterError(
                    f"malformed measure name {name!r}: the array path takes one "
                    f"positive integer cutoff per name (e.g. '{stem}.10'), got "
                    f"{trec_k['k']!r}"
                )
            return Named(name, trec[0], int(trec_k["k"]))
    raise unknown_measure(name, door)


def _no_cutoff(base, name, what="measure") -> InvalidParameterError:
    """The error for a cutoff given to a measure that takes none."""
    return InvalidParameterError(f"{what} {base!r} takes no cutoff, got {name!r}")


def _from_ir(ir, name, base, k, options, door) -> Named:
    measure, spelling = ir
    k = _cutoff_option(spelling, options, k, base, name)
    if k is not None and not spelling.cutoff:
        raise _no_cutoff(base, name)
    _check_options(spelling, options, base, name)
    variant = variant_of(options, name, door)
    out = dict(spelling.fixed)
    for key, value in options.items():
        if key not in QRELS_OPTIONS:
            out.update(_translate(key, value, name))
    return Named(name, measure, k, out, variant)


#: ir_measures' options that change what the qrels say: a run evaluated
#: against its qrels applies them per measure (trec_eval's -J; grades
#: mapped to gains, as ir_measures maps the qrels it hands pytrec_eval).
QRELS_OPTIONS = ("judged_only", "gains")


def _check_options(spelling, options, base, name):
    for key in options:
        if key not in spelling.options:
            accepted = ", ".join(o for o in spelling.options if o != "recall")
            raise InvalidParameterError(
                f"measure {base!r} in {name!r} takes no option {key!r}; options "
                f"skirm accepts for it: {accepted or 'none'}"
            )


def _cutoff_option(spelling, options, k, base, name):
    """The cutoff given as an option (``nDCG(cutoff=5)``), taken out of
    ``options``; ``k`` when there is none."""
    if "cutoff" not in options or spelling.cutoff != "@k":
        return k
    value = options.pop("cutoff")
    if k is not None:
        raise InvalidParameterError(
            f"measure {base!r} in {name!r} is given a cutoff twice (cutoff= and @)"
        )
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(
            f"option 'cutoff' in {name!r} must be a positive integer, got {value!r}"
        )
    return value


def variant_of(options, name, door) -> tuple:
    """What ``options`` change in the qrels, as a hashable key (``()`` for
    nothing): ``judged_only`` and ``gains``, which only the door of a run
    against its qrels (``door="trec"``) applies."""
    items = []
    if options.get("judged_only", False) is not False:
        if options["judged_only"] is not True:
            raise InvalidParameterError(
                f"option 'judged_only' in {name!r} must be True or False, got "
                f"{options['judged_only']!r}"
            )
        items.append(("judged_only", True))
    if "gains" in options:
        items.append(("gains", _gains(options["gains"], name)))
    if items and door != "trec":
        raise InvalidParameterError(
            f"option {items[0][0]!r} in {name!r} changes the qrels, which rows do "
            "not have: evaluate the run against its qrels with "
            "skirm.trec.evaluate_run (it takes the option per measure)"
            + (
                ", or pass unjudged='condensed' to the call"
                if items[0][0] == "judged_only"
                else ", or map the labels to gains before the call"
            )
        )
    return tuple(items)


def _gains(value, name):
    """``{grade: gain}`` as sorted integer pairs (trec_eval reads integer
    grades)."""
    if not isinstance(value, dict) or not value:
        raise InvalidParameterError(
            f"option 'gains' in {name!r} must be a {{grade: gain}} dict such as "
            f"gains={{0:0,1:1,2:3}}, got {value!r}"
        )
    for grade, gain in value.items():
        if not all(type(x) is int for x in (grade, gain)):
            raise InvalidParameterError(
                f"option 'gains' in {name!r} must map integer grades to integer "
                f"gains (qrels hold integers), got {grade!r}: {gain!r}"
            )
    return tuple(sorted(value.items()))


def _translate(key, value, name) -> dict:
    """An ir_measures option as skirm options."""
    if key == "rel":
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise InvalidParameterError(
                f"option 'rel' in {name!r} must be a positive number, got {value!r}"
            )
        return {"relevance_threshold": float(value)}
    if key == "normalize":
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
                f"option 'beta' in {name!r}: skirm's F measure on arrays is F1, "
                f"so beta must be 1, got {value!r} (a run against its qrels, "
                "skirm.trec.evaluate_run, computes it as trec_eval's set_F)"
            )
        return {}
    return {key: value}  # p, T, min_rel, max_rel: skirm's own names


def _parse_options(text, name) -> dict:
    """``key=value`` pairs of an ir_measures name; values as int, float,
    bool (``True``, ``False``), a ``{number: number}`` dict, or str."""
    if text is None:
        return {}
    options = {}
    for item in _split_options(text):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key.isidentifier() or not value:
            raise InvalidParameterError(
                f"malformed measure name {name!r}: options in parentheses must be "
                f"key=value pairs separated by commas, got {item.strip()!r}"
            )
        if key in options:
            raise InvalidParameterError(f"option {key!r} is given twice in {name!r}")
        options[key] = _value(value.strip("'\""), name)
    return options


def _split_options(text):
    """``text`` split at the commas outside braces (``gains={0:0,1:1},p=1``)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _value(text, name):
    if text in ("True", "False"):
        return text == "True"
    if text.startswith("{") and text.endswith("}"):
        pairs = {}
        for item in filter(None, (p.strip() for p in text[1:-1].split(","))):
            key, colon, value = (part.strip() for part in item.partition(":"))
            number_key, number = _value(key, name), _value(value, name)
            if not colon or not all(
                isinstance(x, int | float) and not isinstance(x, bool)
                for x in (number_key, number)
            ):
                raise InvalidParameterError(
                    f"malformed measure name {name!r}: a dict option holds "
                    f"number: number pairs, got {item!r}"
                )
            pairs[number_key] = number
        return pairs
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# --------------------------------------------------------------------------
# trec_eval's names, on a run against its qrels
# --------------------------------------------------------------------------


class TrecName:
    """One trec_eval measure asked for: its spelling, its parameters (as
    given, or the defaults when ``text`` is None) and, for ``P@10`` or an
    ir_measures spelling, the name the user gave (``label``) and what its
    options change in the evaluation (``variant``: the relevance level,
    ``judged_only``)."""

    __slots__ = ("label", "measure", "spelling", "text", "values", "variant")

    def __init__(self, measure, spelling, values, text, label=None, variant=()):
        self.measure, self.spelling, self.values = measure, spelling, values
        self.text, self.label, self.variant = text, label, variant

    def outputs(self) -> list:
        """``[(output name, parameter)]`` in print order."""
        spelling = self.spelling
        if self.label is not None:
            return [(self.label, self.values[0] if spelling.cutoffs else self.values)]
        if spelling.params == "cutoffs":
            return [(f"{spelling.name}_{k}", k) for k in self.values]
        if spelling.params == "float_cutoffs":
            return [(f"{spelling.name}_{x:3.2f}", x) for x in self.values]
        if self.text is None:
            return [(spelling.name, self.values)]
        return [(f"{spelling.name}_{self.text}", self.values)]

    def __repr__(self):
        return f"TrecName({self.spelling.name!r}, {self.values!r})"


def parse_trec(name: str, compat: str = "10.0") -> list | None:
    """The :class:`TrecName` outputs of a trec_eval-style name (a measure,
    a nickname, with parameters), or None if it is not one. ``compat="9.0"``
    leaves the measures added in 10.0 out of the nicknames."""
    if name in TREC_NAMES:
        measure, spelling = TREC_NAMES[name]
        return [TrecName(measure, spelling, spelling.default, None)]
    if name in NICKNAME_SPELLINGS:
        spellings = NICKNAME_SPELLINGS[name]
        if compat == "9.0":
            spellings = tuple(s for s in spellings if s.since != "10.0")
        return [TrecName(TREC_NAMES[s.name][0], s, s.default, None) for s in spellings]
    base, sep, k = name.partition("@")
    if sep and base in TREC_NAMES and TREC_NAMES[base][1].params == "cutoffs":
        if not CUTOFF.fullmatch(k):
            raise UnknownMeasureError(
                f"malformed cutoff in {name!r}: expected {base}@K, K >= 1"
            )
        measure, spelling = TREC_NAMES[base]
        return [TrecName(measure, spelling, (int(k),), k, label=name)]
    ir = _trec_ir_name(name) or _trec_beta(name)
    if ir is not None:
        return [ir]
    for base, sep, text in (name.partition("."), name.rpartition("_")):
        if not sep or base not in TREC_NAMES:
            continue
        if sep == "_" and not NUMBER.fullmatch(text):
            continue
        measure, spelling = TREC_NAMES[base]
        return [TrecName(measure, spelling, _trec_params(spelling, text, name), text)]
    return None


def _trec_ir_name(name) -> TrecName | None:
    """An ir_measures spelling of a trec_eval measure (``Bpref``,
    ``IPrec@0.5``, ``Bpref(rel=2)``, ``IPrec(judged_only=True)@0.1``),
    labelled as given."""
    head, sep, level = name.partition("@")
    match = HEAD.fullmatch(head)
    if match is None or match["base"] not in IR_OF_TREC:
        return None
    base = match["base"]
    found = IR_OF_TREC[base]
    measure, ir = found
    options = _parse_options(match["opts"], name)
    _check_options(ir, options, base, name)
    variant = variant_of(options, name, "trec")
    if "rel" in options:
        variant = (*variant, ("level", _level(options["rel"], name)))
        if ir.with_rel is not None:
            measure = TREC_NAMES[ir.with_rel][0]
    spelling = measure.trec[0]
    if ir.cutoff != "@level":
        if sep:
            raise _no_cutoff(base, name)
        return TrecName(
            measure, spelling, spelling.default, None, label=name, variant=variant
        )
    if "recall" in options:
        if sep:
            raise InvalidParameterError(
                f"measure {base!r} in {name!r} is given a recall level twice "
                "(recall= and @)"
            )
        sep, level = "@", str(options["recall"])
    value = float(level) if sep and NUMBER.fullmatch(level) else -1.0
    if not 0.0 <= value <= 1.0:
        raise InvalidParameterError(
            f"measure {base!r} needs a recall level in [0, 1], e.g. '{base}@0.5'; "
            f"got {name!r}"
        )
    return TrecName(measure, spelling, (value,), level, label=name, variant=variant)


def _trec_beta(name) -> TrecName | None:
    """``SetF(beta=b)`` with ``b`` other than 1 (skirm's F measure on arrays
    is F1): trec_eval's ``set_F.b``, as ir_measures hands it to
    pytrec_eval, labelled as given; None for any other name."""
    head, sep, _ = name.partition("@")
    match = HEAD.fullmatch(head)
    if match is None or match["opts"] is None or match["base"] not in IR_ON_ARRAYS:
        return None
    base = match["base"]
    measure, ir = IR_ON_ARRAYS[base]
    if "beta" not in ir.options:
        return None
    options = _parse_options(match["opts"], name)
    beta = options.get("beta", 1)
    if beta == 1:
        return None
    _check_options(ir, options, base, name)
    if sep:
        raise _no_cutoff(base, name)
    if isinstance(beta, bool) or not isinstance(beta, int | float) or beta <= 0:
        raise InvalidParameterError(
            f"option 'beta' in {name!r} must be a positive number, got {beta!r}"
        )
    variant = variant_of(options, name, "trec")
    if "rel" in options:
        variant = (*variant, ("level", _level(options["rel"], name)))
    spelling = measure.trec[0]  # set_F, whose parameter is beta
    return TrecName(
        measure, spelling, (float(beta),), str(beta), label=name, variant=variant
    )


def _level(value, name):
    """``rel=t`` of a trec_eval measure: trec_eval's ``-l``, an integer."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(
            f"option 'rel' in {name!r} must be an integer >= 1 (trec_eval's "
            f"relevance level, -l), got {value!r}"
        )
    return value


def _trec_params(spelling, text, name):
    """The parameters of ``name`` (``P.5,10``, ``utility.1,-1,0,0``,
    ``ndcg.1=3,2=9``), as trec_eval reads them."""
    if spelling.params == "none":
        raise MeasureParameterError(
            f"measure {spelling.name!r} takes no parameters, got {name!r}"
        )
    if spelling.params == "pairs":
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
    if not all(NUMBER.fullmatch(item) for item in items):
        raise MeasureParameterError(
            f"malformed parameters in {name!r}: expected comma-separated numbers"
        )
    if spelling.params == "cutoffs":
        values = [int(float(item)) for item in items]  # trec_eval uses atol
        if any(v <= 0 for v in values) or len(set(values)) != len(values):
            raise MeasureParameterError(
                f"cutoffs of {name!r} must be distinct positive integers, got {text!r}"
            )
        return tuple(sorted(values))
    values = [float(item) for item in items]
    if spelling.params == "float_cutoffs":
        if len(set(values)) != len(values) or any(v < 0 for v in values):
            raise MeasureParameterError(
                f"cutoffs of {name!r} must be distinct non-negative numbers, "
                f"got {text!r}"
            )
        return tuple(sorted(values))
    if spelling.n_params and len(values) != len(spelling.default):
        raise MeasureParameterError(
            f"{spelling.name} takes {spelling.n_params}, got {name!r}"
        )
    return tuple(values)


# --------------------------------------------------------------------------
# Diversity names
# --------------------------------------------------------------------------


class DiversityName:
    """A diversity measure asked for: the measure, its cutoff and the
    options the name gives (``alpha``, ``beta``, ``rel``, ``judged_only``;
    the evaluation's own apply to the others)."""

    __slots__ = ("k", "measure", "options", "text")

    def __init__(self, text, measure, k, options):
        self.text, self.measure, self.k, self.options = text, measure, k, options

    def __repr__(self):
        return f"DiversityName({self.text!r})"


def parse_diversity(name) -> DiversityName | None:
    """A diversity measure name (ir_measures', ndeval's or skirm's spelling)
    and the options it gives; None if ``name`` is no diversity measure's
    name."""
    if not isinstance(name, str):
        return None
    match = DIVERSITY_NAME.fullmatch(name)
    if match is None or match["base"] not in DIVERSITY_NAMES:
        return None
    found = DIVERSITY_NAMES[match["base"]]
    measure, spelling = found
    k = int(match["k"]) if match["k"] is not None else None
    if measure.takes_k and (k is None or k < 1):
        raise InvalidParameterError(
            f"diversity measure {name!r} needs a positive cutoff, e.g. "
            f"'{match['base']}@20'"
        )
    if not measure.takes_k and k is not None:
        raise _no_cutoff(match["base"], name, "diversity measure")
    options = {}
    allowed = (
        *spelling.options,
        "rel",
        *(() if measure is STREC else ("judged_only",)),
    )
    for key, value in _parse_options(match["opts"], name).items():
        if key not in allowed:
            raise InvalidParameterError(
                f"diversity measure {match['base']!r} in {name!r} takes no option "
                f"{key!r}; it takes: {', '.join(allowed)}"
            )
        if key == "judged_only":
            if not isinstance(value, bool):
                raise InvalidParameterError(
                    f"option 'judged_only' in {name!r} must be True or False"
                )
        options[key] = value
    return DiversityName(name, measure, k, options)
