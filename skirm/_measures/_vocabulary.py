"""The vocabulary the measure table is written in: the references whose
definitions the measures follow, trec_eval's default parameters and its
nicknames, the options several measures share."""

from __future__ import annotations

from skirm._measures._rows import PREFS, QRELS_JG, Reference

# --------------------------------------------------------------------------
# References: whose definition a measure follows
# --------------------------------------------------------------------------

SKIRM = Reference(
    "skirm",
    "the exact mean over the orderings of tied rows (ties='average')",
    "the mean over queries",
)
TREC_EVAL = Reference(
    "trec_eval",
    "score descending, then docno descending",
    "the mean over the evaluated queries; sums for the counts, a geometric "
    "mean for gm_map and gm_bpref",
)
CWL_EVAL = Reference(
    "cwl_eval",
    "as given (ties='first'; no closed form over tied orderings)",
    "the mean over queries",
)
NDEVAL = Reference(
    "ndeval",
    "score descending, then docno descending (ndeval -traditional)",
    "the mean over the judged queries of the run (-c: every judged query)",
)
COMPAT = Reference(
    "compat (Clarke et al. 2021)",
    "as given (ties='first'; no closed form over tied orderings)",
    "the mean over queries",
)
GDEVAL = Reference("gdeval (ERR)", SKIRM.ties, SKIRM.summary)
BEIR = Reference("BEIR (capped recall)", SKIRM.ties, SKIRM.summary)

# --------------------------------------------------------------------------
# trec_eval's parameters and nicknames
# --------------------------------------------------------------------------

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

OFFICIAL, SET, ALL_TREC, ALL_PREFS = "official", "set", "all_trec", "all_prefs"
#: Every nickname of trec_eval: ``prefs`` and ``qrels_jg`` are named after
#: their relevance formats.
NICKNAMES = (OFFICIAL, SET, ALL_TREC, ALL_PREFS, PREFS, QRELS_JG)

ALL_NICKNAMES = (OFFICIAL, SET, ALL_TREC, ALL_PREFS, PREFS, QRELS_JG)  # runid, num_q
HEAD_NICKNAMES = (OFFICIAL, SET, ALL_TREC)  # num_ret, num_rel, num_rel_ret
BINARY = {"relevance_threshold": None}
CWL = {"min_rel": 0.0, "max_rel": None, "depth": 1000}
CWL_NAMES = ("min_rel", "max_rel")
