"""The options written in a measure's name: ir_measures' ``key=value``
pairs (``P(rel=2)@5``, ``nDCG(gains={0:0,1:1,2:3})``, ``RBP(p=0.8)``), read
into Python values, checked against what a spelling of the table accepts
and translated into skirm's options, or into what they change in the qrels
(``variant_of``), which only a run evaluated against its qrels applies."""

from __future__ import annotations

from skirm._errors import InvalidParameterError

__all__ = [
    "QRELS_OPTIONS",
    "check_options",
    "cutoff_option",
    "parse_options",
    "translate",
    "variant_of",
]


#: ir_measures' options that change what the qrels say: a run evaluated
#: against its qrels applies them per measure (trec_eval's -J; grades
#: mapped to gains, as ir_measures maps the qrels it hands pytrec_eval).
QRELS_OPTIONS = ("judged_only", "gains")


def check_options(spelling, options, base, name):
    """Refuses an option ``spelling`` (an ``IrName``) does not accept."""
    for key in options:
        if key not in spelling.options:
            accepted = ", ".join(o for o in spelling.options if o != "recall")
            raise InvalidParameterError(
                f"measure {base!r} in {name!r} takes no option {key!r}; options "
                f"skirm accepts for it: {accepted or 'none'}"
            )


def cutoff_option(spelling, options, k, base, name):
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
    nothing): ``judged_only`` and ``gains``, which only the doors of a run
    against its qrels (``door="trec"``, ``"ir_measures"``) apply."""
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
    if items and door not in ("trec", "ir_measures"):
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


def translate(key, value, name) -> dict:
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
    if key == "relative":
        if value is not False:
            raise InvalidParameterError(
                f"option 'relative' in {name!r} must be False on the array path; "
                "relative=True is trec_eval's set_relative_P: evaluate the run "
                "against its qrels with skirm.trec.evaluate_run"
            )
        return {}
    if key == "beta":
        if value != 1:
            raise InvalidParameterError(
                f"option 'beta' in {name!r}: skirm's F measure on arrays is F1, "
                f"so beta must be 1, got {value!r} (a run against its qrels, "
                "skirm.trec.evaluate_run, computes it as trec_eval's set_F)"
            )
        return {}
    return {key: value}  # p, T, min_rel, max_rel: skirm's own names


def parse_options(text, name) -> dict:
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
