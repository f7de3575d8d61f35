"""
=====================================
Why tie handling matters
=====================================

When several rows of a query have the same score, their order is a
convention, and a bad convention can make a useless model look perfect.
This example shows a constant model scoring a perfect NDCG when ties keep
the input order of data sorted by label, and its honest, chance-level
value under ``ties="average"``, skirm's default. It then shows the same
effect, smaller, for a real model that predicts only a few distinct values.
"""

# %%
# Data sorted by label
# --------------------
# Many exported learning-to-rank files list the documents of each query by
# decreasing relevance (the order of the judgement pool). We sort synthetic
# data the same way: by query, then by label, descending.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.dummy import DummyRegressor
from sklearn.tree import DecisionTreeRegressor

from skirm.datasets import make_ranking
from skirm.metrics import evaluate, ndcg_score

X, y, groups = make_ranking(n_groups=200, random_state=0)
order = np.lexsort((-y, groups))
X, y, groups = X[order], y[order], groups[order]
# Keep the queries that have a relevant row (a query without one scores 0
# whatever the ranking; see ``no_relevant`` in the user guide).
has_relevant = np.bincount(groups, weights=y > 0)[groups] > 0
X, y, groups = X[has_relevant], y[has_relevant], groups[has_relevant]
print(f"{np.unique(groups).size} queries, {len(y)} rows")

# %%
# A constant model
# ----------------
# :class:`~sklearn.dummy.DummyRegressor` predicts the mean label for every
# row: every row of every query is tied. Breaking the ties by input order
# (``ties="first"``) ranks the rows exactly as the file lists them, which is
# the ideal order here.
constant = DummyRegressor().fit(X, y).predict(X)
policies = ["first", "average", "optimistic", "pessimistic"]
constant_ndcg = {
    ties: ndcg_score(y, constant, groups=groups, k=10, ties=ties) for ties in policies
}
for ties, value in constant_ndcg.items():
    print(f"constant model, {f'ties={ties!r}':<20} NDCG@10 = {value:.4f}")

# %%
# ``ties="average"`` gives the exact expected NDCG over all orderings of the
# tied rows: the value of a random ranking. The same number comes out
# whatever the input order, which we check by shuffling the rows:
rng = np.random.default_rng(0)
shuffled = rng.permutation(len(y))
print(
    "after shuffling the rows, ties='average':",
    round(
        ndcg_score(y[shuffled], constant[shuffled], groups=groups[shuffled], k=10), 4
    ),
    "; ties='first':",
    round(
        ndcg_score(
            y[shuffled], constant[shuffled], groups=groups[shuffled], k=10, ties="first"
        ),
        4,
    ),
)

# %%
# A model with few distinct scores
# --------------------------------
# A shallow regression tree predicts one value per leaf, so many rows of a
# query share a score. The tie convention then moves the metric of a real
# model too. Trained on half of the queries, evaluated on the other half:
train = groups < 100
tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X[train], y[train])
tree_scores = tree.predict(X[~train])
print("distinct predictions:", np.unique(tree_scores).size)
tree_result = {
    ties: evaluate(
        y[~train], tree_scores, groups=groups[~train], metrics=["ndcg@10"], ties=ties
    )
    for ties in policies
}
tree_ndcg = {ties: result["ndcg@10"] for ties, result in tree_result.items()}
for ties, value in tree_ndcg.items():
    print(f"depth-2 tree, {f'ties={ties!r}':<20} NDCG@10 = {value:.4f}")

# %%
# The picture
# -----------
axes = [plt.subplots(figsize=(5.5, 3.8))[1] for _ in range(2)]
for ax, values, title in [
    (axes[0], constant_ndcg, "constant model"),
    (axes[1], tree_ndcg, "depth-2 tree (held-out queries)"),
]:
    bars = ax.bar(list(values), list(values.values()), color=["C3", "C0", "C2", "C1"])
    ax.bar_label(bars, fmt="%.3f")
    ax.set_title(title)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("NDCG@10")
    ax.figure.tight_layout()
plt.show()

# %%
# Take-aways
# ----------
# * ``ties="first"`` (input order) lets the order of the file leak into the
#   metric; on label-sorted data a model that knows nothing scores 1.
# * ``ties="average"`` depends on the scores only, and gives tied rows
#   their expected value. It is skirm's default, and what scikit-learn's
#   :func:`sklearn.metrics.ndcg_score` does.
# * ``"optimistic"`` and ``"pessimistic"`` bound what any tie-breaking rule
#   could report; a wide gap means the model's scores are too coarse to
#   rank.
