"""
==========================================
Evaluating a ranker per query with skirm
==========================================

Fit a scikit-learn regressor as a pointwise ranker on synthetic
learning-to-rank data and evaluate its ranking per query on held-out queries.
"""

# %%
# Data: queries with graded labels, split so that every query is whole on
# one side.
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GroupShuffleSplit

from skirm.datasets import make_ranking
from skirm.metrics import evaluate

X, y, groups = make_ranking(n_groups=200, random_state=0)
train, test = next(
    GroupShuffleSplit(test_size=0.25, random_state=0).split(X, y, groups)
)

# %%
# A regressor trained on the labels gives one score per row; skirm ranks the
# rows of each query by that score and averages the metrics over queries.
model = HistGradientBoostingRegressor(random_state=0).fit(X[train], y[train])
result = evaluate(
    y[test],
    model.predict(X[test]),
    groups=groups[test],
    metrics=["ndcg@10", "map", "mrr@10", "precision@5"],
)
for name, value in result.means.items():
    print(f"{name:>12}: {value:.4f}")
