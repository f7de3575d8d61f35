"""
=========================================================
Position-biased clicks: naive metrics and IPS estimates
=========================================================

A search or feed log records clicks, and a click needs the user to see the
row first: rows shown low are seen less, so a metric computed from clicks
favours whatever the logging ranker put on top. This example generates
such a log, where the generator knows the true relevance of every row, and
compares two new rankers three ways: by their true DCG@5 (every relevant
row known), by the naive DCG@5 of the logged clicks, and by the
inverse-propensity estimate :func:`~skirm.metrics.ips_dcg_score`, which
weights each click by one over the chance its row was seen
(:func:`~skirm.metrics.position_propensity`). The naive metric prefers the
ranker that copies the logging ranker; the IPS estimate recovers the truth.
It closes with GAUC and normalized entropy on the same impressions.
"""

# %%
# A log with position-biased clicks
# ---------------------------------
# 2,000 requests of 10 candidates; a row is relevant with probability 0.3.
# The logging ranker's scores are weakly informative; a row it shows at
# position ``i`` is examined with probability ``1 / i`` (the position-based
# model, ``eta=1``), and clicked when examined and relevant.
import matplotlib.pyplot as plt
import numpy as np

from skirm.metrics import evaluate, position_propensity

rng = np.random.default_rng(0)
n_requests, n_rows = 2_000, 10
groups = np.repeat(np.arange(n_requests), n_rows)
relevance = (rng.random(groups.size) < 0.3).astype(float)
logging_score = relevance * 0.5 + rng.normal(0.0, 1.0, groups.size)
shown = np.empty(groups.size)
for_each = logging_score.reshape(n_requests, n_rows)
shown[:] = (np.argsort(np.argsort(-for_each, axis=1), axis=1) + 1).ravel()
propensity = position_propensity(shown, eta=1.0)
clicks = relevance * (rng.random(groups.size) < propensity)
print(f"relevant rows: {int(relevance.sum())}, clicked: {int(clicks.sum())}")

# %%
# Two new rankers
# ---------------
# ``copycat`` mostly repeats the logging ranker (its top rows are the ones
# that could be clicked); ``better`` knows the relevance better, but puts
# rows on top that the log showed low, where clicks were rare.
copycat = logging_score + rng.normal(0.0, 0.3, groups.size)
better = relevance * 1.5 + rng.normal(0.0, 1.0, groups.size)
rankers = {"copycat": copycat, "better": better}

rows = []
for name, score in rankers.items():
    truth = evaluate(relevance, score, groups=groups, metrics=["dcg@5"])["dcg@5"]
    naive = evaluate(clicks, score, groups=groups, metrics=["dcg@5"])["dcg@5"]
    ips = evaluate(
        clicks, score, groups=groups, metrics=["ips_dcg@5"], propensity=propensity
    )["ips_dcg@5"]
    rows.append((name, truth, naive, ips))
    print(f"{name:>8}: true {truth:.3f}, naive {naive:.3f}, IPS {ips:.3f}")

# %%
# The naive DCG@5 of the clicks ranks ``copycat`` first; the true DCG@5 and
# its IPS estimate rank ``better`` first, and the estimate sits near the
# truth the generator knows.
fig, ax = plt.subplots(figsize=(6, 3.5))
width = 0.25
x = np.arange(len(rows))
for j, (label, color) in enumerate(
    [("true", "0.3"), ("naive (clicks)", "tab:red"), ("IPS estimate", "tab:blue")]
):
    values = [r[j + 1] for r in rows]
    ax.bar(x + (j - 1) * width, values, width, label=label, color=color)
ax.set_xticks(x, [r[0] for r in rows])
ax.set_ylabel("DCG@5")
ax.legend()
ax.set_title("Position-biased clicks: naive DCG and its IPS estimate")
fig.tight_layout()

# %%
# The estimate is unbiased, not exact: over repeated logs it averages to the
# truth. Twenty more logs of the same requests:
estimates = []
for _ in range(20):
    clicks_again = relevance * (rng.random(groups.size) < propensity)
    again = evaluate(
        clicks_again,
        better,
        groups=groups,
        metrics=["ips_dcg@5"],
        propensity=propensity,
    )
    estimates.append(again["ips_dcg@5"])
truth = rows[1][1]
error = np.std(estimates, ddof=1) / np.sqrt(20)
mean = np.mean(estimates)
print(f"better: true {truth:.3f}, IPS over 20 logs {mean:.3f} +- {error:.3f}")

# %%
# GAUC and normalized entropy on the same impressions
# ---------------------------------------------------
# A click model's predicted probabilities (the chance a row is examined
# times a logistic of ``better``'s score) are scored per request: GAUC
# weighted by impressions, one-class requests left out; NE over the click
# rate of the whole log (below 1: better than predicting that rate).
p_click = propensity / (1.0 + np.exp(-(2.0 * better - 2.5)))
result = evaluate(clicks, p_click, groups=groups, metrics=["gauc", "ne", "pcoc"])
print(result)
