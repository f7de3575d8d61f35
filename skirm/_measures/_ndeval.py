"""The measure table, part 3: the diversity measures, from subtopic
judgments (ndeval's)."""

from __future__ import annotations

from skirm._measures._rows import DIVERSITY, IrName, Measure
from skirm._measures._vocabulary import IR_PYNDEVAL, NDEVAL

# --------------------------------------------------------------------------
# Diversity: subtopic judgments (ndeval)
# --------------------------------------------------------------------------


def _diversity(definition, skirm, ir_names, ndeval, function, *, cut, options=()):
    return Measure(
        definition,
        engine=DIVERSITY,
        reference=NDEVAL,
        kind="diversity",
        takes_k=cut,
        options=dict.fromkeys(options, 0.5),
        skirm=(skirm,),
        ir_measures=tuple(IrName(n, options, provider=IR_PYNDEVAL) for n in ir_names),
        ndeval=(ndeval,),
        function=function,
    )


ERR_IA = _diversity(
    "ERR-IA@k over ndeval's 'ideal ideal' list",
    "err_ia",
    ("ERR_IA",),
    "ERR-IA",
    "err_ia_score",
    cut=True,
)
NERR_IA = _diversity(
    "ERR-IA@k over the greedy ideal's",
    "nerr_ia",
    ("nERR_IA",),
    "nERR-IA",
    "nerr_ia_score",
    cut=True,
)
ALPHA_DCG = _diversity(
    "alpha-DCG@k over ndeval's 'ideal ideal' list",
    "alpha_dcg",
    ("alpha_DCG", "\u03b1_DCG"),
    "alpha-DCG",
    "alpha_dcg_score",
    cut=True,
    options=("alpha",),
)
ALPHA_NDCG = _diversity(
    "alpha-DCG@k over the greedy ideal's",
    "alpha_ndcg",
    ("alpha_nDCG", "\u03b1_nDCG"),
    "alpha-nDCG",
    "alpha_ndcg_score",
    cut=True,
    options=("alpha",),
)
NRBP = _diversity(
    "novelty- and rank-biased precision",
    "nrbp",
    ("NRBP",),
    "NRBP",
    "nrbp_score",
    cut=False,
    options=("alpha", "beta"),
)
NNRBP = _diversity(
    "NRBP over the greedy ideal's",
    "nnrbp",
    ("nNRBP",),
    "nNRBP",
    "nnrbp_score",
    cut=False,
    options=("alpha", "beta"),
)
MAP_IA = _diversity(
    "average precision per subtopic, averaged",
    "map_ia",
    ("AP_IA", "MAP_IA"),
    "MAP-IA",
    "map_ia_score",
    cut=False,
)
P_IA = _diversity(
    "precision at k per subtopic, averaged",
    "precision_ia",
    ("P_IA",),
    "P-IA",
    "precision_ia_score",
    cut=True,
)
STREC = _diversity("the share of subtopics covered in the top k",
                   "subtopic_recall", ("StRecall",), "strec",
                   "subtopic_recall_score", cut=True)  # fmt: skip
