"""The measure table, part 1: the measures on arrays.

Their kernels are :mod:`skirm.metrics`' (bound to these rows by the metric
registry); they are also computed on a run against its qrels, with
trec_eval's tie order, by the spellings trec_eval gives them.
"""

from __future__ import annotations

from skirm._measures._rows import ARRAYS, QRELS_JG, IrName, Measure, Trec
from skirm._measures._vocabulary import (
    ALL_TREC,
    BEIR,
    BINARY,
    COMPAT,
    CUTS,
    CWL,
    CWL_EVAL,
    CWL_NAMES,
    IR_ACCURACY,
    IR_COMPAT,
    IR_CWL_EVAL,
    IR_GDEVAL,
    IR_JUDGED,
    IR_MSMARCO,
    IR_PYTREC_EVAL,
    OFFICIAL,
    SET,
    SKIRM,
    TREC_EVAL,
)

# --------------------------------------------------------------------------
# Measures on arrays
# --------------------------------------------------------------------------

NDCG = Measure(
    "DCG@k / ideal DCG@k (the query's labels sorted descending, cut at k)",
    engine=ARRAYS,
    reference=SKIRM,
    kind="graded",
    takes_k=True,
    options={"gain": "linear"},
    skirm=("ndcg",),
    trec=(
        Trec("ndcg", 21, "pairs", kernel="ndcg", nicknames=(ALL_TREC,), arrays=True),
        Trec(
            "ndcg_cut",
            24,
            "cutoffs",
            CUTS,
            kernel="ndcg_cut",
            nicknames=(ALL_TREC,),
            arrays=True,
        ),
    ),
    ir_measures=(
        IrName("nDCG", ("dcg", "judged_only", "gains"), provider=IR_PYTREC_EVAL),
        IrName("NDCG", ("dcg", "judged_only", "gains"), provider=IR_PYTREC_EVAL),
    ),
)
DCG = Measure(
    "sum over ranks i <= k of gain(rel_i) / log_b(i + 1)",
    engine=ARRAYS,
    reference=SKIRM,
    kind="graded",
    takes_k=True,
    bounded=False,
    options={"gain": "linear", "log_base": 2.0},
    skirm=("dcg",),
)
CG = Measure(
    "sum over ranks i <= k of gain(rel_i)",
    engine=ARRAYS,
    reference=SKIRM,
    kind="graded",
    takes_k=True,
    bounded=False,
    options={"gain": "linear"},
    skirm=("cg",),
)
PRECISION = Measure(
    "relevant rows in the top k / k (k even for queries shorter than k)",
    engine=ARRAYS,
    reference=TREC_EVAL,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("precision", "p"),
    trec=(
        Trec("P", 11, "cutoffs", CUTS, nicknames=(OFFICIAL, ALL_TREC), arrays=True),
        Trec(
            "set_P", 28, kernel="set_precision", nicknames=(SET, ALL_TREC), arrays=True
        ),
        Trec(
            "P_avgjg", 49, "cutoffs", CUTS, rel_format=QRELS_JG, nicknames=(QRELS_JG,)
        ),
    ),
    ir_measures=(
        IrName("P", ("rel", "judged_only"), provider=IR_PYTREC_EVAL),
        IrName(
            "SetP",
            ("rel", "judged_only", "relative"),
            cutoff="",
            provider=IR_PYTREC_EVAL,
        ),
        IrName("Precision", ("rel", "judged_only"), provider=IR_PYTREC_EVAL),
    ),
)
RECALL = Measure(
    "relevant rows in the top k / R",
    engine=ARRAYS,
    reference=TREC_EVAL,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("recall", "r"),
    trec=(
        Trec("recall", 13, "cutoffs", CUTS, nicknames=(ALL_TREC,), arrays=True),
        Trec(
            "set_recall",
            30,
            kernel="set_recall",
            nicknames=(SET, ALL_TREC),
            arrays=True,
        ),
    ),
    ir_measures=(
        IrName("R", ("rel", "judged_only"), provider=IR_PYTREC_EVAL),
        IrName("SetR", ("rel",), cutoff="", provider=IR_PYTREC_EVAL),
        IrName("Recall", ("rel", "judged_only"), provider=IR_PYTREC_EVAL),
    ),
)
CAPPED_RECALL = Measure(
    "relevant rows in the top k / min(k, R) (BEIR)",
    engine=ARRAYS,
    reference=BEIR,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("r_cap",),
    trec=(Trec("relative_P", 26, "cutoffs", CUTS, nicknames=(ALL_TREC,)),),
)
F1 = Measure(
    "harmonic mean of precision@k and recall@k: 2 hits / (k + R)",
    engine=ARRAYS,
    reference=SKIRM,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("f1",),
    trec=(
        Trec(
            "set_F",
            32,
            "floats",
            (1.0,),
            kernel="set_f",
            nicknames=(SET, ALL_TREC),
            arrays=True,
            n_params="one parameter (beta squared)",
        ),
    ),
    ir_measures=(
        IrName(
            "SetF", ("rel", "beta", "judged_only"), cutoff="", provider=IR_PYTREC_EVAL
        ),
    ),
)
HIT_RATE = Measure(
    "1 if any relevant row is in the top k, else 0",
    engine=ARRAYS,
    reference=TREC_EVAL,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("hit_rate", "success"),
    trec=(
        Trec("success", 27, "cutoffs", (1, 5, 10), nicknames=(ALL_TREC,), arrays=True),
    ),
    ir_measures=(IrName("Success", ("rel", "judged_only"), provider=IR_PYTREC_EVAL),),
)
R_PRECISION = Measure(
    "relevant rows in the top R / R",
    engine=ARRAYS,
    reference=TREC_EVAL,
    kind="binary",
    options=BINARY,
    skirm=("r_precision", "rprec"),
    trec=(Trec("Rprec", 7, nicknames=(OFFICIAL, ALL_TREC), arrays=True),),
    ir_measures=(
        IrName("Rprec", ("rel", "judged_only"), cutoff="", provider=IR_PYTREC_EVAL),
        IrName("RPrec", ("rel", "judged_only"), cutoff="", provider=IR_PYTREC_EVAL),
    ),
)
MRR = Measure(
    "1 / rank of the first relevant row (0 if none in the top k)",
    engine=ARRAYS,
    reference=TREC_EVAL,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("mrr",),
    trec=(Trec("recip_rank", 9, nicknames=(OFFICIAL, ALL_TREC), arrays=True),),
    ir_measures=(
        IrName(
            "RR",
            ("rel", "judged_only"),
            provider=IR_PYTREC_EVAL,
            cutoff_provider=IR_MSMARCO,
        ),
        IrName(
            "MRR",
            ("rel", "judged_only"),
            provider=IR_PYTREC_EVAL,
            cutoff_provider=IR_MSMARCO,
        ),
    ),
)
MAP = Measure(
    "sum over ranks i <= k of precision@i * rel_i, divided by R",
    engine=ARRAYS,
    reference=TREC_EVAL,
    kind="binary",
    takes_k=True,
    options={**BINARY, "denominator": "R"},
    skirm=("map",),
    trec=(
        Trec("map", 5, nicknames=(OFFICIAL, ALL_TREC), arrays=True),
        Trec(
            "gm_map", 6, summary="gm", per_query=False, nicknames=(OFFICIAL, ALL_TREC)
        ),
        Trec("map_cut", 25, "cutoffs", CUTS, nicknames=(ALL_TREC,), arrays=True),
        Trec("map_avgjg", 48, rel_format=QRELS_JG, nicknames=(QRELS_JG,)),
    ),
    ir_measures=(
        IrName("AP", ("rel", "judged_only"), provider=IR_PYTREC_EVAL),
        IrName("MAP", ("rel", "judged_only"), provider=IR_PYTREC_EVAL),
    ),
)
ERR = Measure(
    "sum over ranks i <= k of R_i / i * prod_{j<i} (1 - R_j), "
    "R = (2^g - 1) / 2^g_max (Chapelle et al. 2009)",
    engine=ARRAYS,
    reference=SKIRM,
    kind="graded",
    takes_k=True,
    options={"max_grade": None},
    skirm=("err",),
    # gdeval's: grades up to 4
    ir_measures=(
        IrName(
            "ERR",
            fixed=(("max_grade", 4.0),),
            exact_case=True,
            provider=IR_GDEVAL,
        ),
    ),
)
RBP = Measure(
    "(1 - p) * sum over ranks i of rel_i * p^(i - 1) (Moffat & Zobel 2008)",
    engine=ARRAYS,
    reference=SKIRM,
    kind="binary",
    takes_k=True,
    options={**BINARY, "p": 0.8},
    skirm=("rbp",),
    ir_measures=(IrName("RBP", ("rel", "p"), provider=IR_CWL_EVAL),),
)
JUDGED = Measure(
    "judged rows in the top k / min(k, rows of the query)",
    engine=ARRAYS,
    reference=SKIRM,
    kind="judgement",
    takes_k=True,
    skirm=("judged",),
    # skirm's own trec_eval-style measure (since=None)
    trec=(Trec("judged", 55, "cutoffs", (5, 10, 20), kernel="judged", since=None),),
    ir_measures=(IrName("Judged", provider=IR_JUDGED),),
)
ACCURACY = Measure(
    "1 - (non-relevant above relevant pairs) / (R_k N_k) in the top k: "
    "the AUC of the shown rows",
    engine=ARRAYS,
    reference=SKIRM,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("accuracy",),
    ir_measures=(IrName("Accuracy", ("rel",), provider=IR_ACCURACY),),
)
COMPATIBILITY = Measure(
    "rank-biased overlap of the ranking with the ideal ranking of the "
    "relevant rows, over the ideal's own (Clarke et al. 2021)",
    engine=ARRAYS,
    reference=COMPAT,
    kind="graded",
    options={"p": 0.95, "normalize": True},
    skirm=("compat",),
    ir_measures=(IrName("Compat", ("p", "normalize"), cutoff="", provider=IR_COMPAT),),
)
_CWL_RATE = "C/W/L expected utility per item; "
INST = Measure(
    _CWL_RATE
    + "C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - (g_1 + ... + g_i)",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    options={"T": 1.0, **CWL},
    skirm=("inst",),
    ir_measures=(IrName("INST", ("T", *CWL_NAMES), cutoff="", provider=IR_CWL_EVAL),),
)
INSQ = Measure(
    _CWL_RATE + "C_i = ((i + 2T - 1) / (i + 2T))^2",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    options={"T": 1.0, **CWL},
    skirm=("insq",),
    ir_measures=(IrName("INSQ", ("T", *CWL_NAMES), cutoff="", provider=IR_CWL_EVAL),),
)
BPM = Measure(
    _CWL_RATE + "C_i = 1 while g_1 + ... + g_i < T and i < k, else 0",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    takes_k=True,
    options={"T": 1.0, **CWL},
    skirm=("bpm",),
    ir_measures=(IrName("BPM", ("T", *CWL_NAMES), provider=IR_CWL_EVAL),),
)
NERR8 = Measure(
    _CWL_RATE + "C_i = 1 - g_i for i < k, else 0",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    takes_k=True,
    options=CWL,
    skirm=("nerr8",),
    ir_measures=(IrName("NERR8", CWL_NAMES, provider=IR_CWL_EVAL),),
)
NERR9 = Measure(
    _CWL_RATE + "C_i = i / (i + 1) * (1 - g_i) for i < k, else 0",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    takes_k=True,
    options=CWL,
    skirm=("nerr9",),
    ir_measures=(IrName("NERR9", CWL_NAMES, provider=IR_CWL_EVAL),),
)
NERR10 = Measure(
    _CWL_RATE + "C_i = p (1 - g_i)",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    options={"p": 0.9, **CWL},
    skirm=("nerr10",),
    ir_measures=(IrName("NERR10", ("p", *CWL_NAMES), cutoff="", provider=IR_CWL_EVAL),),
)
NERR11 = Measure(
    _CWL_RATE + "C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    options={"T": 1.0, **CWL},
    skirm=("nerr11",),
    ir_measures=(IrName("NERR11", ("T", *CWL_NAMES), cutoff="", provider=IR_CWL_EVAL),),
)
SDCG = Measure(
    _CWL_RATE + "C_i = log2(i + 1) / log2(i + 2) for i < k, else 0",
    engine=ARRAYS,
    reference=CWL_EVAL,
    kind="graded",
    takes_k=True,
    options=CWL,
    skirm=("sdcg",),
    ir_measures=(IrName("SDCG", ("dcg", *CWL_NAMES), provider=IR_CWL_EVAL),),
)
