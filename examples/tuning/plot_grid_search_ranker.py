"""
=======================================
Tuning a ranker with GridSearchCV
=======================================

Tune a learning-to-rank model with scikit-learn's
:class:`~sklearn.model_selection.GridSearchCV`, scored per query with several
ranking metrics at once. One ``groups=`` argument carries the query id of each
row to the three places that need it: the splitter (whole queries per fold),
the scorer (metrics per query) and the model (rows grouped by query).

The model is :class:`~skirm.ranker.PairwiseRanker`, a learning-to-rank model
in pure scikit-learn (the RankSVM pairwise transform with a logistic
regression). The same code tunes ``QueryRanker(lightgbm.LGBMRanker())``,
``QueryRanker(xgboost.XGBRanker())`` or a
:class:`~skirm.ranker.QueryRanker` around any regressor.
"""

# %%
# Data
# ----
# Synthetic queries with graded labels (0 to 4) and a few queries without any
# relevant row, as in real judgement pools. ``groups`` holds the query id of
# each row.

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate

from skirm.datasets import make_ranking
from skirm.metrics import make_ranking_scorer
from skirm.model_selection import QueryGroupKFold
from skirm.ranker import PairwiseRanker, QueryRanker

X, y, groups = make_ranking(n_groups=150, n_features=10, random_state=0)
print(f"{len(y)} rows, {np.unique(groups).size} queries, labels {np.unique(y)}")

# %%
# The search
# ----------
# With metadata routing enabled, ``fit(X, y, groups=groups)`` sends each
# fold's query ids to :class:`~skirm.model_selection.QueryGroupKFold`, to the
# scorer and to the ranker, all of which request ``groups`` by default.
# :func:`~skirm.metrics.make_ranking_scorer` with a list of metrics ranks the
# rows once per fold and returns every metric; ``refit`` picks the one that
# chooses the best model.
sklearn.set_config(enable_metadata_routing=True)

metrics = ["ndcg@10", "map", "mrr@10"]
search = GridSearchCV(
    PairwiseRanker(LogisticRegression(fit_intercept=False), random_state=0),
    {
        "estimator__C": [0.001, 0.01, 1.0],
        "max_pairs_per_group": [10, 100],
    },
    cv=QueryGroupKFold(5, shuffle=True, random_state=0),
    scoring=make_ranking_scorer(metrics),
    refit="ndcg@10",
    error_score="raise",  # while setting up: show errors instead of NaN scores
)
search.fit(X, y, groups=groups)

print("best parameters:", search.best_params_)
print(f"best CV NDCG@10: {search.best_score_:.4f}")
best = search.best_index_
for name in metrics:
    mean = search.cv_results_[f"mean_test_{name}"][best]
    std = search.cv_results_[f"std_test_{name}"][best]
    print(f"{name:>8}: {mean:.4f} +/- {std:.4f}")

# %%
# Every candidate, every metric
# -----------------------------
# The metrics mostly agree on the ordering of the candidates; where they do
# not, ``refit`` decides.
labels = [
    f"C={p['estimator__C']}\npairs={p['max_pairs_per_group']}"
    for p in search.cv_results_["params"]
]
positions = np.arange(len(labels))
fig, ax = plt.subplots(figsize=(9, 4))
for i, name in enumerate(metrics):
    ax.errorbar(
        positions + (i - 1) * 0.15,
        search.cv_results_[f"mean_test_{name}"],
        yerr=search.cv_results_[f"std_test_{name}"],
        fmt="o",
        capsize=3,
        label=name,
    )
ax.axvline(best, color="grey", linestyle=":", label="refit choice")
ax.set_xticks(positions, labels)
ax.set_ylabel("5-fold CV score (mean +/- std)")
ax.set_title("GridSearchCV over a PairwiseRanker, scored per query")
# The legend goes beside the axes, where it hides no candidate.
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
fig.tight_layout()

# %%
# A pointwise baseline
# --------------------
# :class:`~skirm.ranker.QueryRanker` turns any regressor into a ranker that
# fits in the same tools (with LightGBM or XGBoost rankers it also passes the
# query groups they need). Here a gradient-boosting regressor on the labels,
# cross-validated on the same folds.
pointwise = cross_validate(
    QueryRanker(HistGradientBoostingRegressor(max_iter=20, random_state=0)),
    X,
    y,
    cv=QueryGroupKFold(5, shuffle=True, random_state=0),
    scoring=make_ranking_scorer(metrics),
    params={"groups": groups},
)
for name in metrics:
    print(
        f"QueryRanker(HistGradientBoostingRegressor) {name:>8}: "
        f"{pointwise[f'test_{name}'].mean():.4f}"
    )

# %%
# Without metadata routing
# ------------------------
# With routing disabled, scikit-learn gives the scorer nothing but
# ``sample_weight``. The query ids then travel inside ``X``: a pandas index
# level named ``qid``, which skirm's splitter, scorer and rankers read and
# the models never see. Refitting the best candidate this way gives the same
# fold scores.
sklearn.set_config(enable_metadata_routing=False)
try:
    import pandas  # noqa: F401
except ImportError:
    print("pandas is not installed: skipping the routing-off variant")
else:
    data = make_ranking(n_groups=150, n_features=10, random_state=0, as_frame=True)
    search_off = GridSearchCV(
        search.estimator,
        {key: [value] for key, value in search.best_params_.items()},
        cv=QueryGroupKFold(5, shuffle=True, random_state=0),
        scoring=make_ranking_scorer(metrics),
        refit="ndcg@10",
        error_score="raise",
    ).fit(data.data, data.target)
    same = all(
        search_off.cv_results_[f"split{i}_test_{name}"][0]
        == search.cv_results_[f"split{i}_test_{name}"][best]
        for i in range(5)
        for name in metrics
    )
    print(
        "query ids given in the DataFrame's index instead of groups= "
        f"(for scikit-learn without metadata routing): same fold scores: {same}"
    )

plt.show()
