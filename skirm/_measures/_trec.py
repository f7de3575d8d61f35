"""The measure table, part 2: trec_eval's own measures, on a run against its
qrels (kernels: :mod:`skirm.trec`), the preference measures among them."""

from __future__ import annotations

from skirm._measures._rows import PREFS, QRELS_JG, TREC, IrName, Measure, Trec
from skirm._measures._vocabulary import (
    ALL_NICKNAMES,
    ALL_PREFS,
    ALL_TREC,
    HEAD_NICKNAMES,
    IR_PYTREC_EVAL,
    OFFICIAL,
    R_MULTIPLES,
    RECALL_LEVELS,
    SET,
    TREC_EVAL,
)

# --------------------------------------------------------------------------
# trec_eval's own measures, on a run against its qrels
# --------------------------------------------------------------------------


def _trec(definition, *spellings, kind="value", ir_measures=()):
    """A measure only trec_eval's computations give (on a run and its qrels)."""
    return Measure(
        definition,
        engine=TREC,
        reference=TREC_EVAL,
        kind=kind,
        bounded=kind == "value",
        trec=spellings,
        ir_measures=ir_measures,
    )


def _count(definition, name, order, kernel, nicknames, ir_name, with_rel=None):
    return _trec(
        definition,
        Trec(
            name,
            order,
            kernel=kernel,
            summary="sum",
            integer=True,
            nicknames=nicknames,
        ),
        kind="count",
        ir_measures=(
            IrName(
                ir_name,
                ("rel",),
                cutoff="",
                with_rel=with_rel,
                provider=IR_PYTREC_EVAL,
            ),
        ),
    )


RUNID = Measure(
    "the run's id (its sixth column)",
    engine=None,
    reference=TREC_EVAL,
    kind="text",
    bounded=False,
    trec=(Trec("runid", 0, summary="none", per_query=False, nicknames=ALL_NICKNAMES),),
)
NUM_Q = _trec(
    "1 per evaluated query (summed: the number of queries)",
    Trec(
        "num_q",
        1,
        kernel="queries",
        summary="count",
        per_query=False,
        integer=True,
        nicknames=ALL_NICKNAMES,
    ),
    kind="count",
    ir_measures=(IrName("NumQ", cutoff="", provider=IR_PYTREC_EVAL),),
)
NUM_RET = _count(
    "documents retrieved", "num_ret", 2, "retrieved", HEAD_NICKNAMES, "NumRet",
    # ir_measures' NumRet(rel=t): the relevant documents retrieved, at level t.
    with_rel="num_rel_ret",
)  # fmt: skip
NUM_REL = _count(
    "relevant documents (R)", "num_rel", 3, "relevant", HEAD_NICKNAMES, "NumRel"
)
NUM_REL_RET = _count(
    "relevant documents retrieved", "num_rel_ret", 4, "relevant_retrieved",
    HEAD_NICKNAMES, "NumRelRet",
)  # fmt: skip
NUM_NONREL_JUDGED_RET = _trec(
    "judged non-relevant documents retrieved",
    Trec(
        "num_nonrel_judged_ret",
        33,
        kernel="nonrelevant_judged_retrieved",
        summary="sum",
        integer=True,
        nicknames=(ALL_TREC,),
    ),
    kind="count",
)
BPREF = _trec(
    "1/R sum over relevant retrieved documents of 1 - (judged non-relevant "
    "above it) / min(R, N)",
    Trec("bpref", 8, kernel="bpref", nicknames=(OFFICIAL, ALL_TREC)),
    Trec(
        "gm_bpref", 15, kernel="bpref", summary="gm", per_query=False,
        nicknames=(ALL_TREC,),
    ),
    ir_measures=(IrName("Bpref", ("rel",), cutoff="", provider=IR_PYTREC_EVAL),
        IrName("BPref", ("rel",), cutoff="", provider=IR_PYTREC_EVAL),
    ),
)  # fmt: skip
IPREC = _trec(
    "interpolated precision at recall levels",
    Trec(
        "iprec_at_recall", 10, "float_cutoffs", RECALL_LEVELS, kernel="iprec",
        nicknames=(OFFICIAL, ALL_TREC),
    ),
    ir_measures=(IrName(
            "IPrec",
            ("rel", "judged_only", "recall"),
            cutoff="@level",
            provider=IR_PYTREC_EVAL,
        ),),
)  # fmt: skip
RELSTRING = _trec(
    "the relevance values of the top N documents, as characters",
    Trec(
        "relstring", 12, "floats", (10.0,), kernel="relstring", summary="none",
        string=True, nicknames=(ALL_TREC,),
    ),
    kind="text",
)  # fmt: skip
INFAP = _trec(
    "inferred average precision (Yilmaz & Aslam 2006)",
    Trec("infAP", 14, kernel="infap", nicknames=(ALL_TREC,)),
    ir_measures=(IrName("infAP", ("rel",), cutoff="", provider=IR_PYTREC_EVAL),),
)
RPREC_MULT = _trec(
    "precision at x * R documents",
    Trec(
        "Rprec_mult", 16, "float_cutoffs", R_MULTIPLES, kernel="rprec_mult",
        nicknames=(ALL_TREC,),
    ),
    Trec(
        "Rprec_mult_avgjg", 50, "float_cutoffs", R_MULTIPLES,
        rel_format=QRELS_JG, nicknames=(QRELS_JG,),
    ),
)  # fmt: skip
UTILITY = _trec(
    "p1 relret + p2 nonrelret + p3 relnotret + p4 nonrelnotret (-N)",
    Trec(
        "utility", 17, "floats", (1.0, -1.0, 0.0, 0.0), kernel="utility",
        nicknames=(SET, ALL_TREC), n_params="4 coefficients",
    ),
)  # fmt: skip
PT11_AVG = _trec(
    "the mean interpolated precision at 11 recall levels",
    Trec(
        "11pt_avg",
        18,
        "floats",
        RECALL_LEVELS,
        kernel="pt11_avg",
        nicknames=(ALL_TREC,),
    ),
)
BIN_G = _trec(
    "binary G: 1/R sum over relevant documents of 1 / log2(2 + non-relevant above)",
    Trec("binG", 19, kernel="bin_g", nicknames=(ALL_TREC,)),
)
G = _trec(
    "trec_eval's G (gain over the ideal's cost)",
    Trec("G", 20, kernel="g", nicknames=(ALL_TREC,)),
)
NDCG_REL = _trec(
    "ndcg averaged over the ranks of the relevant documents",
    Trec("ndcg_rel", 22, kernel="ndcg_rel", nicknames=(ALL_TREC,)),
)
RNDCG = _trec(
    "ndcg averaged over the change points of the ideal gain",
    Trec("Rndcg", 23, kernel="rndcg", nicknames=(ALL_TREC,)),
)
SET_RELATIVE_P = _trec(
    "relevant retrieved / min(retrieved, R)",
    Trec(
        "set_relative_P", 29, kernel="set_relative_precision", nicknames=(SET, ALL_TREC)
    ),
    ir_measures=(
        IrName("SetRelP", ("rel", "judged_only"), cutoff="", provider=IR_PYTREC_EVAL),
    ),
)
SET_MAP = _trec(
    "relevant retrieved squared / (retrieved * R)",
    Trec("set_map", 31, kernel="set_map", nicknames=(SET, ALL_TREC)),
    ir_measures=(
        IrName("SetAP", ("rel", "judged_only"), cutoff="", provider=IR_PYTREC_EVAL),
    ),
)
YAAP = _trec(
    "log((1 + S) / (1 + R - S)), S the sum of precisions at the relevant documents",
    Trec("yaap", 51, kernel="yaap", since="10.0"),
)
TREC_RBP = _trec(
    "rank-biased precision, p = 0.9, gains level / max level",
    Trec("rbp", 52, kernel="rbp", nicknames=(ALL_TREC,), since="10.0"),
)
RBP_RESID = _trec(
    "the residual of rbp: p^num_ret plus the weight of the unjudged documents",
    Trec("rbp_resid", 53, kernel="rbp_resid", nicknames=(ALL_TREC,), since="10.0"),
)
UNJ = _trec(
    "the fraction of the top k ranks holding an unjudged document",
    Trec(
        "unj",
        54,
        "cutoffs",
        (5, 10, 20),
        kernel="unjudged",
        nicknames=(ALL_TREC,),
        since="10.0",
    ),
)
NDCG_P = _trec(
    "ndcg with gains given per level",
    Trec(
        "ndcg_p", 56, "pairs",
        unsupported="trec_eval has its source (m_ndcg_p.c) but does not "
        "compile it: trec_eval 10.0 rejects -m ndcg_p too; use ndcg with "
        "gains, e.g. ndcg.1=3,2=9",
    ),
)  # fmt: skip


def _preference(definition, name, order, kernel, *, count=False, official=False):
    return _trec(
        definition,
        Trec(
            name,
            order,
            kernel=kernel,
            summary="sum" if count else "mean",
            integer=count,
            rel_format=PREFS,
            nicknames=(ALL_PREFS, PREFS) if official else (ALL_PREFS,),
        ),
        kind="count" if count else "value",
    )


_FUL, _RET, _IMP = "fulfilled", "both retrieved", "one retrieved, one implied"
PREFERENCES = (
    _preference("possible preferences", "prefs_num_prefs_poss", 34, "possible",
                count=True, official=True),
    _preference("fulfilled preferences", "prefs_num_prefs_ful", 35, "fulfilled",
                count=True, official=True),
    _preference(f"{_FUL} preferences, {_RET}", "prefs_num_prefs_ful_ret", 36,
                "fulfilled_retrieved", count=True, official=True),
    _preference(f"{_FUL} / possible preferences", "prefs_simp", 37, "simple",
                official=True),
    _preference(f"{_FUL} / possible, per pair", "prefs_pair", 38, "pair",
                official=True),
    _preference(f"{_FUL} / possible, per judgment group", "prefs_avgjg", 39,
                "by_group", official=True),
    _preference(f"{_FUL} / possible, per judgment group, R non-relevant",
                "prefs_avgjg_Rnonrel", 40, "by_group_rnonrel"),
    _preference(f"{_FUL} / possible, {_RET}", "prefs_simp_ret", 41,
                "simple_retrieved"),
    _preference(f"{_FUL} / possible per pair, {_RET}", "prefs_pair_ret", 42,
                "pair_retrieved"),
    _preference(f"{_FUL} / possible per judgment group, {_RET}", "prefs_avgjg_ret",
                43, "by_group_retrieved"),
    _preference(f"{_FUL} / possible per judgment group, R non-relevant, {_RET}",
                "prefs_avgjg_Rnonrel_ret", 44, "by_group_rnonrel_retrieved"),
    _preference(f"{_FUL} / possible, {_IMP}", "prefs_simp_imp", 45,
                "simple_implied"),
    _preference(f"{_FUL} / possible per pair, {_IMP}", "prefs_pair_imp", 46,
                "pair_implied"),
    _preference(f"{_FUL} / possible per judgment group, {_IMP}", "prefs_avgjg_imp",
                47, "by_group_implied"),
)  # fmt: skip
