"""ir_measures' registered names, each spelt as tested and benchmarked.

One list for the tests that compare skirm with ir_measures
(``tests/trec/test_ir_measures_*.py``) and for
``benchmarks/bench_ir_measures.py``.
"""

#: The spelling tested for each registered name: the name itself, with the
#: cutoff or the options ir_measures requires (its C/W/L measures have no
#: default ``max_rel`` nor, some, ``T``; pyndeval needs a cutoff).
SPELLINGS = {
    "AP": "AP",
    "AP_IA": "AP_IA",
    "Accuracy": "Accuracy@10",
    "BPM": "BPM(T=1.0,max_rel=3)@10",
    "BPref": "BPref",
    "Bpref": "Bpref",
    "Compat": "Compat",
    "ERR": "ERR@10",
    "ERR_IA": "ERR_IA@10",
    "INSQ": "INSQ(T=1.0,max_rel=3)",
    "INST": "INST(T=1.0,max_rel=3)",
    "IPrec": "IPrec@0.5",
    "Judged": "Judged@10",
    "MAP": "MAP",
    "MAP_IA": "MAP_IA",
    "MRR": "MRR",
    "NDCG": "NDCG@10",
    "NERR10": "NERR10(p=0.9,max_rel=3)",
    "NERR11": "NERR11(T=1.0,max_rel=3)",
    "NERR8": "NERR8(max_rel=3)@10",
    "NERR9": "NERR9(max_rel=3)@10",
    "NRBP": "NRBP",
    "NumQ": "NumQ",
    "NumRel": "NumRel",
    "NumRelRet": "NumRelRet",
    "NumRet": "NumRet",
    "P": "P@10",
    "P_IA": "P_IA@10",
    "Precision": "Precision@10",
    "R": "R@10",
    "RBP": "RBP(rel=1)",
    "RPrec": "RPrec",
    "RR": "RR",
    "Recall": "Recall@10",
    "Rprec": "Rprec",
    "SDCG": "SDCG(max_rel=3)@10",
    "SetAP": "SetAP",
    "SetF": "SetF",
    "SetP": "SetP",
    "SetR": "SetR",
    "SetRelP": "SetRelP",
    "StRecall": "StRecall@10",
    "Success": "Success@10",
    "alpha_DCG": "alpha_DCG@10",
    "alpha_nDCG": "alpha_nDCG@10",
    "infAP": "infAP",
    "nDCG": "nDCG@10",
    "nERR_IA": "nERR_IA@10",
    "nNRBP": "nNRBP",
    "\u03b1_DCG": "\u03b1_DCG@10",
    "\u03b1_nDCG": "\u03b1_nDCG@10",
}
DIVERSITY = {
    "AP_IA", "ERR_IA", "MAP_IA", "NRBP", "P_IA", "StRecall", "alpha_DCG",
    "alpha_nDCG", "nERR_IA", "nNRBP", "\u03b1_DCG", "\u03b1_nDCG",
}  # fmt: skip
