"""
==========================================
Is the better ranker significantly better?
==========================================

Three learning-to-rank models are tuned on one set of queries and then
compared on another, query by query: a paired test for every pair, a
multiple-comparison correction, intervals, and the LaTeX table a paper needs.
The queries are LETOR 4.0 MQ2008's (tuned on the validation part of fold 1,
compared on its test part) where its files are at hand, and synthetic queries
of the same shape elsewhere: the first output and the figure's title say
which the page was built on.

The models are scored on the same queries, each query by a model that was
trained without it (:func:`~skirm.stats.cross_val_evaluate` draws the query
folds once for all three), so the per-query values are paired.
"""

# %%
# The data
# --------
# MQ2008 (fold 1) is read from the shared data folder next to the project
# (``../shared/data/mq2008``). Without it the example runs on synthetic
# queries of the same shape.
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV

from skirm.datasets import load_svmlight_ranking, make_ranking
from skirm.metrics import make_ranking_scorer
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import PairwiseRanker, QueryRanker
from skirm.stats import compare, cross_val_evaluate


def find_mq2008():
    """The MQ2008 folder of the shared data, searched from this file and the
    working directory upwards; None when absent."""
    starts = [Path.cwd()]
    if "__file__" in globals():
        starts.insert(0, Path(__file__).resolve().parent)
    for start in starts:
        for folder in [start, *start.parents]:
            candidate = folder / "shared" / "data" / "mq2008"
            if (candidate / "test.txt").exists():
                return candidate
    return None


folder = find_mq2008()
if folder is not None:
    vali = load_svmlight_ranking(folder / "vali.txt")
    test = load_svmlight_ranking(folder / "test.txt")
    X_tune, y_tune, g_tune = vali.data.toarray(), vali.target, vali.groups
    X, y, groups = test.data.toarray(), test.target, test.groups
    source = "MQ2008"
else:
    X_tune, y_tune, g_tune = make_ranking(n_groups=150, n_features=46, random_state=0)
    X, y, groups = make_ranking(n_groups=150, n_features=46, random_state=1)
    source = "synthetic queries (MQ2008 not found)"
print(
    f"Data: {source}; tuning on {np.unique(g_tune).size} queries, comparing on "
    f"{np.unique(groups).size} queries ({len(y)} documents)"
)

# %%
# Tuning three rankers
# --------------------
# A pointwise linear model, a pairwise one (RankSVM's transform with a
# logistic regression) and gradient-boosted trees, each with a small grid
# searched by NDCG@10 over whole queries. Metadata routing carries the
# query ids to the splitter, the scorer and the rankers.
sklearn.set_config(enable_metadata_routing=True)

candidates = {
    "Ridge": (QueryRanker(Ridge()), {"estimator__alpha": [0.1, 10.0]}),
    "RankSVM-LR": (
        PairwiseRanker(LogisticRegression(fit_intercept=False), random_state=0),
        {"estimator__C": [0.01, 1.0]},
    ),
    "GBRT": (
        QueryRanker(HistGradientBoostingRegressor(max_iter=40, random_state=0)),
        {"estimator__max_depth": [2, 4]},
    ),
}
tuned = {}
for name, (model, grid) in candidates.items():
    search = GridSearchCV(
        model,
        grid,
        cv=QueryGroupKFold(3, shuffle=True, random_state=0),
        scoring=make_ranking_scorer("ndcg@10"),
        error_score="raise",
    ).fit(X_tune, y_tune, groups=g_tune)
    tuned[name] = search.best_estimator_
    print(f"{name:>10}: {search.best_params_}, CV NDCG@10 {search.best_score_:.4f}")

# %%
# Per-query values on the same folds
# ----------------------------------
# Each test query is scored by the model trained on the other four folds;
# the folds are drawn once and shared by the three models.
results = cross_val_evaluate(
    tuned,
    X,
    y,
    groups=groups,
    cv=QueryGroupKFold(5, shuffle=True, random_state=0),
    metrics=["ndcg@10", "map", "mrr"],
)
# In a notebook, and on this page, a result ending a cell is shown as a table:
# the means, the spread of the per-query values and the first queries.
results["GBRT"]

# %%
# The comparison
# --------------
# Every pair with the paired t test and Holm's correction per metric; then
# the same with Fisher's randomization test, seeded so that the table can be
# reproduced.
comparison = compare(results, test="t")
print(comparison)

randomized = compare(results, test="randomization", random_state=0)
print()
print(randomized.to_latex(label="tab:mq2008"))

# %%
# In a notebook
# -------------
# Jupyter, like this page, shows a comparison that ends a cell as HTML: the
# means with the best per metric in bold and the letters of the systems each
# one beats significantly, every difference with its interval and p-values,
# and the test, correction and alpha used.
comparison

# %%
# How sure are we?
# ----------------
# Each system's mean with its 95% interval: on about 150 queries the intervals
# are wide compared with the differences, which is why the tests are needed.
frame = comparison.to_frame()
fig, ax = plt.subplots(figsize=(7, 3.5))
for i, system in enumerate(comparison.systems):
    rows = frame[frame.system == system]
    positions = np.arange(len(comparison.metrics)) + (i - 1) * 0.2
    ax.errorbar(
        positions,
        rows["mean"],
        yerr=[rows["mean"] - rows["ci_low"], rows["ci_high"] - rows["mean"]],
        fmt="o",
        capsize=3,
        label=system,
    )
ax.set_xticks(np.arange(len(comparison.metrics)), comparison.metrics)
ax.set_ylabel("mean over queries (95% CI)")
ax.set_title(f"Three tuned rankers on {source.split(' (')[0]}, out-of-fold predictions")
ax.legend()
fig.tight_layout()
plt.show()
