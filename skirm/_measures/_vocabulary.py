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
    order="input",
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

# The measures of impression logs (ads, feeds, recommenders): whose
# definition each follows, and how that tool summarises the groups.
DIN = Reference(
    "DIN (Zhou et al. 2018)",
    SKIRM.ties,
    "the mean over groups weighted by impressions, one-class groups left out",
)
TORCHMETRICS = Reference(
    "torchmetrics",
    SKIRM.ties,
    "the mean over queries (empty_target_action for the undefined ones)",
)
TF_RANKING = Reference(
    "TF-Ranking",
    "tied scores: a tied pair counts as misordered (OPA), ties shuffled (ARP)",
    "the mean over lists weighted by their pairs (OPA) or labels (ARP)",
)
TORCHREC = Reference(
    "TorchRec (He et al. 2014)",
    "none: the scores' values are read, not their order",
    "the ratio of sums over every impression (NE, calibration)",
)
PYXCLIB = Reference(
    "pyxclib (Jain et al. 2016)",
    SKIRM.ties,
    "the sum over queries over the sum of the best achievable values",
)
IPS = Reference(
    "Yang et al. 2018 (IPS)",
    SKIRM.ties,
    "the mean over queries",
)

# --------------------------------------------------------------------------
# ir_measures' providers: the tool its default pipeline computes a name with
# (``IrName.provider``), the order that tool gives tied documents as
# ir_measures 0.4.3 hands it the run, and the queries it reports. Every
# provider but accuracy reports 0 for a qrels query the run lacks.
# --------------------------------------------------------------------------

_QRELS_MEAN = "the mean over the qrels' queries (0 for a query the run lacks)"
IR_PYTREC_EVAL = Reference(
    "pytrec_eval",
    "score descending, then docno descending (trec_eval sorts the run dict; "
    "scores as C floats: closer than a float's precision, they tie)",
    _QRELS_MEAN + "; sums for the counts",
    order="trec_eval",
    score_type="float32",
)
IR_CWL_EVAL = Reference(
    "cwl_eval",
    "score descending, ties as the run gave them (a stable sort by score, "
    "then cwl_eval keeps that order)",
    _QRELS_MEAN,
    order="input",
)
IR_COMPAT = Reference(
    "ir_measures compat",
    "score descending, then docno ascending (sorted by docno, then stably by score)",
    _QRELS_MEAN,
    order="docno_ascending",
)
IR_PYNDEVAL = Reference(
    "pyndeval",
    "score descending, then docno ascending (pyndeval ranks the run before "
    "ndeval's C sees it)",
    _QRELS_MEAN,
    order="docno_ascending",
)
IR_JUDGED = Reference(
    "ir_measures judged",
    "score descending, then docno ascending",
    _QRELS_MEAN,
    order="docno_ascending",
)
IR_MSMARCO = Reference(
    "ir_measures msmarco",
    "score descending, then docno ascending",
    _QRELS_MEAN,
    order="docno_ascending",
    judgments="any",  # its qrels: the documents with a row >= rel
)
IR_GDEVAL = Reference(
    "gdeval",
    "score descending, then docno descending (gdeval.pl's sort)",
    _QRELS_MEAN,
    order="trec_eval",
    judgments="positive",  # gdeval.pl keeps the lines with a positive label
)
IR_ACCURACY = Reference(
    "ir_measures accuracy",
    "score descending, ties as the run gave them (a stable sort by score)",
    "the mean over the queries with a relevant document above the cutoff "
    "(no 0 for the others)",
    order="input",
)

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
