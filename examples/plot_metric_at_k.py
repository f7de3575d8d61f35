"""
=============================================
Metrics at every cutoff: NDCG@k, P@k, R@k
=============================================

A single number such as NDCG@10 hides how a ranker behaves at the top of
the list and further down. This example computes NDCG@k, precision@k and
recall@k for every cutoff k = 1..20 for two models, from one ranking of
the rows per model, and plots the curves.
"""

# %%
# Data and two models
# -------------------
# Synthetic queries with graded labels, split so that every query is whole
# on one side. A linear model and gradient-boosted trees are trained as
# pointwise rankers: they predict the label of each row, and the rows of a
# query are ranked by that prediction.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge

from skirm.datasets import make_ranking
from skirm.metrics import evaluate
from skirm.model_selection import train_test_split_groups

X, y, groups = make_ranking(n_groups=300, noise=1.0, random_state=0)
X_train, X_test, y_train, y_test, g_train, g_test = train_test_split_groups(
    X, y, groups, groups=groups, test_size=0.3, random_state=0
)
models = {
    "ridge": Ridge(alpha=1.0),
    "gradient boosting": HistGradientBoostingRegressor(max_iter=100, random_state=0),
}
scores = {
    name: model.fit(X_train, y_train).predict(X_test) for name, model in models.items()
}

# %%
# Every metric at every cutoff, in one call per model
# ---------------------------------------------------
# :func:`skirm.metrics.evaluate` ranks the rows once and reduces that
# ranking for all 60 metrics. Queries of the test set have between 5 and 50
# rows, so precision@k for large k is limited by short queries (its
# denominator is k), while recall@k grows towards 1.
cutoffs = np.arange(1, 21)
families = {"ndcg": "NDCG@k", "precision": "precision@k", "recall": "recall@k"}
names = [f"{family}@{k}" for family in families for k in cutoffs]
curves = {}
for name, y_score in scores.items():
    result = evaluate(y_test, y_score, groups=g_test, metrics=names)
    curves[name] = {
        family: np.array([result[f"{family}@{k}"] for k in cutoffs])
        for family in families
    }
    print(
        f"{name:>17}: NDCG@10 = {result['ndcg@10']:.4f}, "
        f"P@5 = {result['precision@5']:.4f}, R@20 = {result['recall@20']:.4f}"
    )

# %%
# The curves
# ----------
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), sharex=True)
for ax, (family, title) in zip(axes, families.items(), strict=True):
    for name, curve in curves.items():
        ax.plot(cutoffs, curve[family], marker="o", markersize=3, label=name)
    ax.set_title(title)
    ax.set_xlabel("k")
    ax.set_xticks([1, 5, 10, 15, 20])
    ax.grid(alpha=0.3)
axes[0].set_ylabel("mean over queries")
axes[0].legend()
fig.tight_layout()
plt.show()

# %%
# Reading the curves
# ------------------
# * NDCG@k is normalised per query and cutoff, so both models start high
#   and the gap between them shows where the better model gains.
# * precision@k falls with k because each query has only a few relevant
#   rows: past that number, every extra position can only add non-relevant
#   rows.
# * recall@k rises with k and reaches 1 for a query once all its relevant
#   rows are in the top k.
#
# Queries without any relevant row score 0 for every metric here (the
# default ``no_relevant=0.0``); see the conventions page of the user guide
# for the alternatives.
