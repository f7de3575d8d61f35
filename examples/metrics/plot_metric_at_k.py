"""
=============================================
Metrics at every cutoff: NDCG@k, P@k, R@k
=============================================

A single number such as NDCG@10 hides how a ranker behaves at the top of
the list and further down. This example computes NDCG@k, precision@k and
recall@k for every cutoff k = 1..20 for two models, from one ranking of
the rows per model, and draws them with skirm's displays, then looks at the
per-query wins and losses and at the precision-recall curve.
"""

# %%
# Data and two models
# -------------------
# Synthetic queries with graded labels, split so that every query is whole
# on one side. A linear model and gradient-boosted trees are trained as
# pointwise rankers: they predict the label of each row, and the rows of a
# query are ranked by that prediction.

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
# Every metric at every cutoff, from one ranking per model
# --------------------------------------------------------
# :class:`~skirm.plot.MetricAtKDisplay` computes a metric at all the
# cutoffs from one ranking of the rows (through
# :func:`skirm.metrics.evaluate`, which batches the cutoffs of one metric in
# one pass) and draws the curve; passing ``ax=`` puts several models on one
# axes. ``confidence=0.95`` adds a Student-t band around each mean. Queries
# of the test set have between 5 and 50 rows, so precision@k for large k is
# limited by short queries (its denominator is k), while recall@k grows
# towards 1.
import matplotlib.pyplot as plt

from skirm.plot import MetricAtKDisplay, PerQueryDisplay, PrecisionRecallDisplay

cutoffs = range(1, 21)
axes = [plt.subplots(figsize=(5.5, 3.8))[1] for _ in range(3)]
for ax, family in zip(axes, ["ndcg", "precision", "recall"], strict=True):
    for name, y_score in scores.items():
        MetricAtKDisplay.from_predictions(
            y_test,
            y_score,
            groups=g_test,
            metric=family,
            k=cutoffs,
            confidence=0.95,
            name=name,
            ax=ax,
        )
    ax.figure.tight_layout()

for name, y_score in scores.items():
    result = evaluate(
        y_test,
        y_score,
        groups=g_test,
        metrics=["ndcg@10", "precision@5", "recall@20"],
    )
    print(
        f"{name:>17}: NDCG@10 = {result['ndcg@10']:.4f}, "
        f"P@5 = {result['precision@5']:.4f}, R@20 = {result['recall@20']:.4f}"
    )

# %%
# Which queries does the better model win?
# ----------------------------------------
# A mean hides how the gain spreads over queries.
# :class:`~skirm.plot.PerQueryDisplay` sorts the per-query differences of
# NDCG@10 and counts wins, ties and losses; ``top_n`` writes the query ids of
# the largest wins and losses on their bars.
display = PerQueryDisplay.from_predictions(
    y_test,
    scores["gradient boosting"],
    scores["ridge"],
    groups=g_test,
    metric="ndcg@10",
    name="gradient boosting",
    baseline_name="ridge",
    top_n=2,
)
display.figure_.set_size_inches(9, 3.8)
display.figure_.tight_layout()
print(
    f"gradient boosting against ridge: {display.wins} wins, {display.ties} ties, "
    f"{display.losses} losses"
)

# %%
# Precision against recall
# ------------------------
# :class:`~skirm.plot.PrecisionRecallDisplay` draws trec_eval's 11-point
# interpolated precision-recall curve, averaged over queries.
ax = None
for name, y_score in scores.items():
    ax = PrecisionRecallDisplay.from_predictions(
        y_test, y_score, groups=g_test, name=name, ax=ax
    ).ax_
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
