"""
===================================================
Evaluating with an LLM judge and a few human labels
===================================================

A language model judges every document of 400 queries; humans judge the
documents of 40 of them, drawn at random. The judge is cheap and biased (it
rates half the documents half a grade too high and the rest with noise), the
humans are right and few. Prediction-powered inference combines both: the
judge's mean corrected by its mean error on the gold queries, with an
interval valid whatever the judge's errors (see :ref:`llm_judges`).

The data are simulated, so the truth (every document judged by humans) is
known and printed beside the estimates.
"""

# %%
# Three systems, a judge, forty gold queries
# ------------------------------------------
import matplotlib.pyplot as plt
import numpy as np

from skirm.metrics import evaluate
from skirm.plot import PPIWidthDisplay
from skirm.stats import (
    ppi_compare,
    ppi_evaluate,
    ppi_sample_size,
    select_gold_queries,
)

rng = np.random.default_rng(0)
n_queries, n_docs = 400, 20
groups = np.repeat(np.arange(n_queries), n_docs)
truth = rng.choice(4, size=groups.size, p=[0.55, 0.25, 0.12, 0.08]).astype(float)
biased = rng.random(groups.size) < 0.5
judge = np.where(
    biased,
    np.minimum(truth + 0.5, 3),
    np.clip(truth + rng.normal(0, 0.8, groups.size), 0, 3),
)
scores = {
    name: truth + rng.normal(0, noise, groups.size)
    for name, noise in [("bm25", 2.0), ("dense", 1.3), ("rerank", 1.0)]
}

gold_queries = select_gold_queries(np.arange(n_queries), 40, random_state=0)
gold = np.where(np.isin(groups, gold_queries), truth, np.nan)

# %%
# The corrected means
# -------------------
# One :func:`~skirm.stats.ppi_evaluate` per system: every query under the
# judge's labels, the gold queries under the humans', and the estimates
# side by side.
results = {
    name: ppi_evaluate(judge, x, gold=gold, groups=groups, metrics="ndcg@10")
    for name, x in scores.items()
}
print(results["bm25"])
for name, x in scores.items():
    true = evaluate(truth, x, groups=groups, metrics=["ndcg@10"])["ndcg@10"]
    low, high = results[name].confidence_interval["ndcg@10"]
    print(f"{name}: truth {true:.4f}, corrected [{low:.4f}, {high:.4f}]")

# %%
# The systems compared
# --------------------
# Each pair's difference is estimated from the per-query differences, tested
# and corrected (Holm) as :func:`~skirm.stats.compare` does; Kendall's tau
# says whether the judge alone orders the systems as the corrected means do.
comparison = ppi_compare(results)
print(comparison)

# %%
# How many gold queries?
# ----------------------
# With this result as a pilot: the gold queries a 95% interval of half-width
# 0.02 needs, with the judge and without it, in 9 studies of 10.
budget = ppi_sample_size(
    results["rerank"], half_width=0.02, assurance=0.9, n_simulations=500
)
print(budget)

# %%
# The half-width against the number of gold queries, with the judge and
# with the gold queries alone (the points: this study's own).
display = PPIWidthDisplay.from_result(results["rerank"], target=0.02)
display.ax_.set_title("rerank, ndcg@10")
plt.show()
