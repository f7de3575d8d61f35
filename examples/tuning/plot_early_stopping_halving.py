"""
=====================================================
Early stopping and successive halving for LambdaMART
=====================================================

Tune LightGBM's LambdaMART the way practitioners do: with early stopping on
a validation set inside every cross-validation fold, then with successive
halving, where weak candidates are dropped after training on a few *whole*
queries. The queries are LETOR 4.0 MQ2008's where its files are at hand, and
synthetic ones elsewhere: the first output and the figures' titles say which
the page was built on.

Two things go wrong when this is wired by hand. The validation set for early
stopping must be split off each *training fold* (never the test fold) and
must keep its queries whole; and scikit-learn's halving searches subsample
*rows* by default, which cuts queries apart. :class:`~skirm.ranker.QueryRanker`
does the first (``validation_fraction=``, ``early_stopping_rounds=``), and
:class:`~skirm.model_selection.QueryHalvingGridSearchCV` spends whole
queries instead of rows.

The example needs LightGBM (``pip install "skirm[examples]"``).
"""

# %%
# Data
# ----
# The validation part of LETOR 4.0 MQ2008 (fold 1), from the shared data
# folder beside the project; synthetic queries stand in when it is absent.
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from lightgbm import LGBMRanker
from sklearn.model_selection import GridSearchCV

from skirm.datasets import load_svmlight_ranking, make_ranking
from skirm.metrics import make_ranking_scorer
from skirm.model_selection import QueryGroupKFold, QueryHalvingGridSearchCV
from skirm.ranker import QueryRanker

try:
    examples = Path(__file__).resolve().parent
except NameError:  # the documentation build runs examples from their folder
    examples = Path.cwd()
path = examples.parents[2] / "shared" / "data" / "mq2008"
if (path / "vali.txt").exists():
    X, y, groups = load_svmlight_ranking(path / "vali.txt", return_X_y=True)
    X = X.toarray()
    source = "MQ2008"
else:
    X, y, groups = make_ranking(n_groups=150, n_features=20, random_state=0)
    source = "synthetic queries (MQ2008 not found)"
print(f"Data: {source}; {len(y)} rows, {np.unique(groups).size} queries")

# %%
# Early stopping inside GridSearchCV
# ----------------------------------
# In each fit, :class:`~skirm.ranker.QueryRanker` draws 30% of the training
# queries (seeded by ``random_state``) as a validation set, passes it to
# LightGBM as ``eval_X``/``eval_y`` with ``eval_group`` sizes, and stops
# boosting when NDCG@10 on it has not improved for 20 rounds. The test fold
# is never seen. One thread per fit keeps the 2-core budget.
sklearn.set_config(enable_metadata_routing=True)

ranker = QueryRanker(
    LGBMRanker(n_estimators=150, learning_rate=0.1, n_jobs=1, verbose=-1),
    validation_fraction=0.3,
    early_stopping_rounds=20,
    eval_metric="ndcg@10",
    random_state=0,
)
grid = {"estimator__num_leaves": [7, 31], "estimator__min_child_samples": [20, 50]}
cv = QueryGroupKFold(4, shuffle=True, random_state=0)
search = GridSearchCV(
    ranker,
    grid,
    cv=cv,
    scoring=make_ranking_scorer(["ndcg@10", "map"]),
    refit="ndcg@10",
    error_score="raise",
)
search.fit(X, y, groups=groups)

# The validation score is LightGBM's own NDCG@10 (exponential gain, a query
# without relevant rows scores 1), higher than skirm's default NDCG@10 of the
# test folds; the user guide's table gives the options that make them equal.
best = search.best_estimator_
print("best parameters:", search.best_params_)
print(f"best CV NDCG@10: {search.best_score_:.4f}")
print(
    f"the refit stopped at round {best.best_iteration_ + 1} of 150, "
    f"validation {best.eval_metric_} = {best.best_score_:.4f}"
)

# %%
# Successive halving over whole queries
# -------------------------------------
# Eight candidates start on a few queries per fold; each iteration keeps the
# better half and doubles the number of queries (``max_queries`` of the
# ranker). Every fit sees whole queries, and every test fold is scored
# whole.
halving = QueryHalvingGridSearchCV(
    ranker,
    {
        "estimator__num_leaves": [7, 15, 31, 63],
        "estimator__learning_rate": [0.05, 0.2],
    },
    factor=2,
    cv=cv,
    scoring=make_ranking_scorer("ndcg@10"),
    error_score="raise",
)
halving.fit(X, y, groups=groups)
print("queries per fit, by iteration:", halving.n_resources_)
print("candidates, by iteration:     ", halving.n_candidates_)
print("halving's best parameters:", halving.best_params_)

# %%
# The fold scores
# ---------------
# Left: every fold of every grid candidate (dots) and their mean (bar).
# Middle: the refitted model's validation NDCG@10, round by round, as
# LightGBM computed it (``evals_result_``); the line marks the round it
# predicts with. Right: the halving iterations; each dot is a candidate's
# mean over the folds, and only the better ones go on with more queries.
(_, left), (_, middle), (_, right) = (plt.subplots(figsize=(6, 4)) for _ in range(3))
results = search.cv_results_
n_candidates = len(results["params"])
for c in range(n_candidates):
    folds = [results[f"split{i}_test_ndcg@10"][c] for i in range(cv.n_splits)]
    left.bar(c, np.mean(folds), color="lightsteelblue")
    left.plot([c] * len(folds), folds, "o", color="navy", alpha=0.7)
left.set_xticks(range(n_candidates))
left.set_xticklabels(
    [
        f"leaves={p['estimator__num_leaves']}\nmin={p['estimator__min_child_samples']}"
        for p in results["params"]
    ],
    fontsize=8,
)
left.set_ylim(min(results["mean_test_ndcg@10"]) - 0.05, 1.0)
left.set_ylabel("NDCG@10 per fold")
data = source.split(" (")[0]
left.set_title(f"GridSearchCV with early stopping ({data})")

history = best.evals_result_[best.eval_metric_]
middle.plot(np.arange(1, history.size + 1), history, color="navy")
middle.axvline(best.best_iteration_ + 1, color="crimson", linestyle="--")
middle.set_xlabel("boosting round")
middle.set_ylabel(f"validation {best.eval_metric_}")
middle.set_title(f"Early stopping of the refit ({data})")

iterations = np.asarray(halving.cv_results_["iter"])
means = np.asarray(halving.cv_results_["mean_test_score"])
for it, n_queries in enumerate(halving.n_resources_):
    chosen = iterations == it
    right.plot([n_queries] * chosen.sum(), means[chosen], "o", alpha=0.7)
right.set_xscale("log", base=2)
right.set_xlabel("whole queries per fit (max_queries)")
right.set_ylabel("mean NDCG@10 over folds")
right.set_title(f"Successive halving over queries ({data})")
for ax in (left, middle, right):
    ax.figure.tight_layout()
plt.show()

# sphinx_gallery_thumbnail_number = 2
