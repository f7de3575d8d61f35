"""
==================================================
Early stopping on the metric you report: MAP@10
==================================================

A LambdaMART model is usually stopped on the library's own NDCG, then
reported with another metric. Here LightGBM's boosting stops on skirm's
MAP@10 and on ERR@20 instead (``QueryRanker(eval_metric=...)``), the
validation histories are drawn side by side, and a validation set seen in
batches (as a neural ranker's training loop sees it) is evaluated with a
:class:`~skirm.metrics.MetricAccumulator`.

The example needs LightGBM (``pip install "skirm[examples]"``).
"""

# %%
# Data and the two stopping metrics
# ---------------------------------
import matplotlib.pyplot as plt
import numpy as np
from lightgbm import LGBMRanker

from skirm.datasets import make_ranking
from skirm.metrics import MetricAccumulator, evaluate
from skirm.ranker import QueryRanker

X, y, groups = make_ranking(n_groups=300, group_size=(5, 30), random_state=0)

fitted = {}
for metric in ("ndcg@10", "map@10", "err@20"):
    fitted[metric] = QueryRanker(
        LGBMRanker(n_estimators=150, learning_rate=0.1, num_leaves=15, verbose=-1),
        validation_fraction=0.25,
        early_stopping_rounds=15,
        eval_metric=metric,  # "ndcg@10": LightGBM's own; the others: skirm's
        random_state=0,
    ).fit(X, y, groups=groups)

for metric, model in fitted.items():
    print(
        f"{metric:>8}: stopped at round {model.best_iteration_ + 1}, "
        f"validation {model.eval_metric_} = {model.best_score_:.4f}"
    )

# %%
# The validation histories
# ------------------------
# Each history is the library's record of the stopping metric, one value per
# round; the dot marks the round the model predicts with. The three
# metrics peak at different rounds.
fig, ax = plt.subplots(figsize=(6, 3.5))
for metric, model in fitted.items():
    history = model.evals_result_[model.eval_metric_]
    (line,) = ax.plot(np.arange(1, history.size + 1), history, label=metric)
    ax.plot(model.best_iteration_ + 1, model.best_score_, "o", color=line.get_color())
ax.set_xlabel("boosting round")
ax.set_ylabel("validation value")
ax.legend()
fig.tight_layout()

# %%
# Validation batches
# ------------------
# A training loop that scores the validation queries in batches adds each
# batch to an accumulator; ``compute()`` is ``evaluate`` on all the rows, even
# where a batch boundary cuts a query in two.
model = fitted["map@10"]
scores = model.predict(X)
accumulator = MetricAccumulator(["ndcg@10", "map@10", "err@20"])
for rows in np.array_split(np.arange(y.size), 7):
    accumulator.update(y[rows], scores[rows], groups[rows])
print(accumulator.compute())
print(evaluate(y, scores, groups=groups, metrics=["ndcg@10", "map@10", "err@20"]))
