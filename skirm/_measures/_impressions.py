"""The measure table, part 4: the measures of impression logs.

Ads, feed and recommender teams hold one row per impression: a click (or
grade), a model score, a request or user id. Their measures are on arrays,
as the others of :mod:`._arrays`, with three families: per-group AUC and its
relatives (:mod:`skirm.metrics._auc`), calibration and entropy
(:mod:`skirm.metrics._calibration`) and propensity-scored estimates
(:mod:`skirm.metrics._propensity`). Where the tools that compute them
disagree, the disagreement is an option (``weights``, ``one_class``,
``base_rate``, ``estimator``, ``average``) whose default follows the tool the
row names as its reference.
"""

from __future__ import annotations

from skirm._measures._rows import ARRAYS, Measure
from skirm._measures._vocabulary import (
    BINARY,
    DIN,
    IPS,
    PYXCLIB,
    TF_RANKING,
    TORCHMETRICS,
    TORCHREC,
)

_PROBABILITY = "probability"

# --------------------------------------------------------------------------
# Per-group AUC and its relatives
# --------------------------------------------------------------------------

GAUC = Measure(
    "the share of (clicked, not clicked) pairs of the group ranked in that "
    "order, ties counting 1/2 (its ROC AUC); averaged over the groups with "
    "both classes, weighted by impressions (Zhou et al. 2018)",
    engine=ARRAYS,
    reference=DIN,
    kind="binary",
    options={**BINARY, "weights": "impressions", "one_class": "skip"},
    skirm=("gauc", "group_auc"),
)
FALLOUT = Measure(
    "non-relevant rows in the top k / non-relevant rows (lower is better)",
    engine=ARRAYS,
    reference=TORCHMETRICS,
    kind="binary",
    takes_k=True,
    options={**BINARY, "one_class": 1.0},
    skirm=("fallout", "fall_out"),
    better="lower",
)
OPA = Measure(
    "the share of the pairs with different labels ranked with the higher "
    "label first, ties counting 1/2; weighted by those pairs",
    engine=ARRAYS,
    reference=TF_RANKING,
    kind="graded",
    options={"weights": "pairs", "one_class": "skip"},
    skirm=("opa", "ordered_pair_accuracy"),
)
ARP = Measure(
    "sum of label * rank / sum of labels: the mean rank of the relevance "
    "(lower is better); weighted by the sum of labels",
    engine=ARRAYS,
    reference=TF_RANKING,
    kind="graded",
    bounded=False,
    options={"weights": "clicks", "one_class": "skip"},
    skirm=("arp",),
    better="lower",
)

# --------------------------------------------------------------------------
# Calibration and entropy (the scores are probabilities)
# --------------------------------------------------------------------------

NE = Measure(
    "the log loss of the predicted click probabilities over the entropy of "
    "the base rate (He et al. 2014; lower is better); weighted by "
    "impressions, over the base rate of all rows: the NE of the whole log",
    engine=ARRAYS,
    reference=TORCHREC,
    kind="binary",
    bounded=False,
    options={
        **BINARY,
        "base_rate": "overall",
        "weights": "impressions",
        "one_class": "skip",
    },
    skirm=("ne", "normalized_entropy"),
    better="lower",
    scores=_PROBABILITY,
)
PCOC = Measure(
    "predicted clicks / observed clicks (sum of the probabilities over the "
    "clicks; best at 1); weighted by clicks: the ratio of the whole log",
    engine=ARRAYS,
    reference=TORCHREC,
    kind="binary",
    bounded=False,
    options={**BINARY, "weights": "clicks", "one_class": "skip"},
    skirm=("pcoc", "calibration"),
    better=None,
    scores=_PROBABILITY,
)
ECE = Measure(
    "expected calibration error of the top k rows: sum over equal-width "
    "probability bins of |predicted - observed clicks| / rows (lower is "
    "better); weighted by the rows shown",
    engine=ARRAYS,
    reference=TORCHMETRICS,
    kind="binary",
    takes_k=True,
    options={**BINARY, "n_bins": 15, "weights": "impressions"},
    skirm=("ece",),
    better="lower",
    scores=_PROBABILITY,
)

# --------------------------------------------------------------------------
# Propensity-scored measures (each row observed with a known propensity)
# --------------------------------------------------------------------------

PSP = Measure(
    "sum over the top k of rel / propensity, over the same sum for the best "
    "ranking (Jain et al. 2016); the sums added over queries before dividing",
    engine=ARRAYS,
    reference=PYXCLIB,
    kind="binary",
    takes_k=True,
    options={**BINARY, "average": "micro"},
    skirm=("psp", "ps_precision"),
)
PSNDCG = Measure(
    "DCG@k of rel / propensity over that of the best ranking, each over the "
    "binary ideal DCG@k (Jain et al. 2016); the ratios added over queries "
    "before dividing",
    engine=ARRAYS,
    reference=PYXCLIB,
    kind="binary",
    takes_k=True,
    options={**BINARY, "average": "micro"},
    skirm=("psndcg", "ps_ndcg"),
)
IPS_PRECISION = Measure(
    "sum over the top k of rel / propensity, divided by k: an unbiased "
    "estimate of precision@k had every row been observed",
    engine=ARRAYS,
    reference=IPS,
    kind="binary",
    takes_k=True,
    bounded=False,
    options=BINARY,
    skirm=("ips_precision", "ips_p"),
)
IPS_RECALL = Measure(
    "sum over the top k of rel / propensity, over the sum over every row "
    "(self-normalised)",
    engine=ARRAYS,
    reference=IPS,
    kind="binary",
    takes_k=True,
    options=BINARY,
    skirm=("ips_recall", "ips_r"),
)
IPS_DCG = Measure(
    "sum over ranks i <= k of (rel_i / propensity_i) / log2(i + 1): an "
    "unbiased estimate of the DCG had every row been observed",
    engine=ARRAYS,
    reference=IPS,
    kind="binary",
    takes_k=True,
    bounded=False,
    options={**BINARY, "estimator": "ips"},
    skirm=("ips_dcg",),
)
IPS_RBP = Measure(
    "(1 - p) * sum over ranks i of (rel_i / propensity_i) * p^(i - 1)",
    engine=ARRAYS,
    reference=IPS,
    kind="binary",
    takes_k=True,
    bounded=False,
    options={**BINARY, "p": 0.8, "estimator": "ips"},
    skirm=("ips_rbp",),
)
