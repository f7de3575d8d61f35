"""Missing topics: what becomes of the qrels topics a run does not rank.

trec_eval 10.0 stops on a judged query missing from the run, unless ``-c``
asks to score it on a placeholder ranking of one unjudged document (some of
whose outputs it then clears); trec_eval 9.0.x leaves such queries out, and
``-c`` counts them as 0 in the summary only. :func:`missing_rule` says which,
and the rest of this module builds the placeholder rows and the errors.
"""

from __future__ import annotations

import numpy as np

from skirm._errors import MissingQueriesError, NoCommonQueryError
from skirm._measures._table import NUM_RET, RBP_RESID, RELSTRING, UNJ, UTILITY
from skirm.io._records import Run
from skirm.io._tokens import Tokens

#: trec_eval 10.0's placeholder ranking for a qrels topic the run lacks (-c).
PLACEHOLDER_DOCNO = "ceci_nest_pas_un_docno"
#: Measures whose outputs trec_eval 10.0 clears for such a topic (``unj``
#: at every cutoff, the others at their default parameters only).
PLACEHOLDER_CLEARED = (NUM_RET, UTILITY, RBP_RESID, RELSTRING, UNJ)


def missing_rule(all_queries, compat):
    """What becomes of the qrels topics missing from the run: ``"raise"``
    (trec_eval 10.0), ``"score"`` (10.0 ``-c``: placeholder rankings) or
    ``"leave out"`` (9.0.x, with or without ``-c``)."""
    if compat == "9.0":
        return "leave out"
    return "score" if all_queries else "raise"


def no_common_error(run_query_ids, topic_ids):
    """The error for a run none of whose queries is in the qrels."""
    if topic_ids.shape[0] == 0:
        return NoCommonQueryError("the qrels hold no judgment: nothing to evaluate")
    return NoCommonQueryError(
        "no query of the run appears in the qrels: nothing to evaluate "
        f"(run queries e.g. {run_query_ids[:3].tolist()}, qrels queries e.g. "
        f"{topic_ids[:3].tolist()})"
    )


def missing_queries_error(absent):
    """The error trec_eval 10.0 stops with, for the ``absent`` topics."""
    what = (
        f"{absent.shape[0]} qrels queries are missing from the run (e.g. "
        f"{absent[:3].tolist()}); trec_eval 10.0 stops on them."
    )
    return MissingQueriesError(
        f"{what} Pass all_queries=True (trec_eval -c) to score them as empty "
        "rankings, or compat='9.0' to leave them out as trec_eval 9.0.x did",
        command_line=f"{what} Pass -c to score them as empty rankings, or "
        "--compat 9.0 to leave them out as trec_eval 9.0.x did",
    )


def check_all_judged(judged_query_ids, run_query_ids, options):
    """trec_eval 10.0 stops on a judged query missing from the run (no -c)."""
    if missing_rule(options.all_queries, options.compat) != "raise":
        return
    judged = np.unique(judged_query_ids)
    absent = np.setdiff1d(judged, run_query_ids)
    if 0 < absent.shape[0] < judged.shape[0]:  # none in common: reported later
        raise missing_queries_error(absent)


def placeholder_block(topics):
    """trec_eval 10.0 ``-c``: each qrels topic missing from the run is
    evaluated on a ranking of one document, :data:`PLACEHOLDER_DOCNO`
    (unjudged unless the qrels judge that docno), scored 1."""
    n = topics.shape[0]
    return Run._from_tokens(
        Tokens.from_strings(topics),
        Tokens.from_strings(np.full(n, PLACEHOLDER_DOCNO)),
        np.ones(n),
        None,
        "<placeholder>",
        run_id=None,
    )


#: Judgements per placeholder block: the missing topics of large qrels are
#: scored in several blocks so that memory stays bounded.
PLACEHOLDER_JUDGEMENTS = 1 << 18


def placeholder_blocks(index, topics):
    """:func:`placeholder_block` of ``topics`` (sorted), in consecutive
    groups of about :data:`PLACEHOLDER_JUDGEMENTS` judgements each (a topic
    is never split)."""
    codes = index.topics(topics)
    sizes = index.topic_start[codes + 1] - index.topic_start[codes]
    total = np.cumsum(sizes)
    bounds = np.arange(PLACEHOLDER_JUDGEMENTS, int(total[-1]), PLACEHOLDER_JUDGEMENTS)
    cuts = np.searchsorted(total, bounds, side="right")  # repeated: empty parts
    return [placeholder_block(part) for part in np.split(topics, cuts) if part.size]


def clear_placeholders(outputs, values, placeholder):
    """Clear the outputs of the placeholder topics (mask ``placeholder``)
    in ``values`` as trec_eval 10.0 does, by their printed name:
    ``num_ret``, ``utility``, ``rbp_resid`` and ``relstring`` exactly,
    ``unj*`` at every cutoff; ``utility.1,-1,0,0`` or ``relstring.20`` keep
    the placeholder's one unjudged document."""
    for output in outputs:
        spelling = output.spelling
        if (
            spelling is None
            or output.name not in values
            or output.measure not in PLACEHOLDER_CLEARED
        ):
            continue
        if output.measure is not UNJ and output.name != spelling.name:
            continue  # asked for with parameters (or under another name)
        empty = "" if spelling.string else 0.0
        values[output.name] = np.where(placeholder, empty, values[output.name])
