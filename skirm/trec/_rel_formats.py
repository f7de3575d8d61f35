"""Which measures each relevance format (trec_eval ``-R``) serves."""

from __future__ import annotations

from skirm._errors import InvalidParameterError
from skirm._measures._options import REL_FORMAT
from skirm._measures._rows import PREFS, QRELS, QRELS_JG, REL_FORMATS
from skirm._measures._table import NUM_Q, RUNID
from skirm.io._prefs import Prefs, QrelsJG

__all__ = ["check_qrels_type", "check_rel_format"]

#: Measures that need no relevance information.
_ANY_FORMAT = (RUNID, NUM_Q)


def check_rel_format(rel_format, outputs):
    """Validate ``rel_format`` against the parsed measures; returns it."""
    rel_format = REL_FORMAT(rel_format)
    wrong = []
    for output in outputs:
        spelling = output.spelling
        if spelling is not None and output.measure in _ANY_FORMAT:
            continue
        needs = spelling.rel_format if spelling is not None else QRELS
        if needs != REL_FORMATS[rel_format]:
            wrong.append(f"{output.name} (needs rel_format={needs!r})")
    if wrong:
        hint = {
            QRELS_JG: "; the judgment-group measures are map_avgjg, P_avgjg "
            "and Rprec_mult_avgjg (nickname qrels_jg)",
            PREFS: "; the preference measures are prefs_* (nicknames "
            "all_prefs and prefs)",
        }.get(REL_FORMATS[rel_format], "")
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
    expected = {
        QrelsJG: (QRELS_JG,),
        Prefs: tuple(f for f, serves in REL_FORMATS.items() if serves == PREFS),
    }
    for kind, formats in expected.items():
        if isinstance(qrels, kind) and rel_format not in formats:
            raise InvalidParameterError(
                f"`qrels` is a {kind.__name__}: pass rel_format="
                f"{' or '.join(map(repr, formats))} to evaluate it, got "
                f"rel_format={rel_format!r}"
            )
