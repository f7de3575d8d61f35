"""Which measures each relevance format (trec_eval ``-R``) serves."""

from __future__ import annotations

from skirm._errors import INPUT, InvalidParameterError
from skirm._params import OneOf, Param
from skirm._trec_names import MEASURES
from skirm.io._prefs import Prefs, QrelsJG

__all__ = [
    "REL_FORMAT",
    "check_qrels_type",
    "check_rel_format",
]

#: The format of the relevance file, as trec_eval names them (trec_eval
#: exits 2 on an illegal one).
REL_FORMAT = Param(
    "rel_format",
    OneOf("qrels", "qrels_jg", "prefs", "qrels_prefs"),
    option="-R",
    exit_status=INPUT,
)

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
    rel_format = REL_FORMAT(rel_format)
    wrong = []
    for name, kind, what, _ in outputs:
        needs = "qrels" if kind != "trec" else MEASURES[what].rel_format
        if kind == "trec" and what in _ANY_FORMAT:
            continue
        if needs != _FAMILY[rel_format]:
            wrong.append(f"{name} (needs rel_format={needs!r})")
    if wrong:
        hint = {
            "qrels_jg": "; the judgment-group measures are map_avgjg, P_avgjg "
            "and Rprec_mult_avgjg (nickname qrels_jg)",
            "prefs": "; the preference measures are prefs_* (nicknames "
            "all_prefs and prefs)",
        }.get(_FAMILY[rel_format], "")
        text = "with {} these measures cannot be computed: {}" + hint
        raise InvalidParameterError(
            text.format(f"rel_format={rel_format!r}", ", ".join(wrong)),
            command_line=text.format(
                f"-R {rel_format}",
                ", ".join(
                    w.replace("rel_format=", "-R ").replace("'", "") for w in wrong
                ),
            ),
        )
    return rel_format


def check_qrels_type(qrels, rel_format):
    """Judgment groups or preferences given with the wrong ``rel_format``."""
    expected = {QrelsJG: ("qrels_jg",), Prefs: ("prefs", "qrels_prefs")}
    for kind, formats in expected.items():
        if isinstance(qrels, kind) and rel_format not in formats:
            raise InvalidParameterError(
                f"`qrels` is a {kind.__name__}: pass rel_format="
                f"{' or '.join(map(repr, formats))} to evaluate it, got "
                f"rel_format={rel_format!r}"
            )
