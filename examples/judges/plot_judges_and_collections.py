"""
==========================================================
Two judges, five collections: what the conclusions rest on
==========================================================

Two questions an evaluation meets before its numbers are trusted, on
synthetic queries: do cheaper labels (a second judge, an LLM) tell the
systems apart as the reference labels do, and does a gain seen on a
benchmark of several collections hold on each of them?
"""

# %%
# Labels from two judges
# ----------------------
# A reference judge grades 40 queries of 10 documents on a 0-2 scale; a
# second judge copies each grade, or, for 30% of the rows, picks one at
# random. :func:`~skirm.stats.label_agreement` measures how far they agree,
# per query and over all rows, with a bootstrap interval over queries.
import matplotlib.pyplot as plt
import numpy as np

from skirm.metrics import evaluate
from skirm.plot import ComparisonDisplay, MetaAnalysisDisplay
from skirm.stats import label_agreement, meta_analysis, system_agreement

rng = np.random.default_rng(0)
groups = np.repeat(np.arange(40), 10)
reference = rng.choice(3, size=groups.size, p=[0.7, 0.2, 0.1])
second = np.where(
    rng.random(reference.size) < 0.3, rng.integers(0, 3, reference.size), reference
)

agreement = label_agreement(
    np.column_stack([reference, second]), groups=groups, method="cohen", random_state=0
)
print(agreement)

# %%
# Do the two label sets rank the systems alike?
# ---------------------------------------------
# Four systems score the same rows, each noisier than the last. Each is
# evaluated against both label sets; :func:`~skirm.stats.system_agreement`
# compares the two orderings of the systems and counts the pairs found
# significantly different under one label set only.
scores = {
    f"system {i}": reference + rng.normal(0, 0.5 + 0.4 * i, reference.size)
    for i in range(4)
}
under_reference = {
    name: evaluate(reference, s, groups=groups, metrics=["ndcg@10"])
    for name, s in scores.items()
}
under_second = {
    name: evaluate(second, s, groups=groups, metrics=["ndcg@10"])
    for name, s in scores.items()
}
print(system_agreement(under_reference, under_second, metric="ndcg@10", random_state=0))

# %%
# The same comparison drawn under each label set: each system's mean and
# interval against the first system, the significant differences filled.
axes = [plt.subplots(figsize=(6, 3.8))[1] for _ in range(2)]
for ax, (title, results) in zip(
    axes,
    [("reference labels", under_reference), ("second judge", under_second)],
    strict=True,
):
    ComparisonDisplay.from_evaluations(
        results, metric="ndcg@10", baseline="system 0", ax=ax
    )
    ax.set_title(title)
    ax.figure.tight_layout()

# %%
# A gain across five collections
# ------------------------------
# A new system against a baseline on five collections of different sizes,
# with a true gain that differs from one collection to the next.
# :func:`~skirm.stats.meta_analysis` pools the per-collection differences
# with random effects and says how much the collections disagree.
collections = {}
for name, n, gain in [
    ("arguana", 40, 0.04),
    ("scifact", 60, 0.01),
    ("nfcorpus", 80, 0.03),
    ("fiqa", 50, -0.01),
    ("trec-covid", 30, 0.06),
]:
    qid = np.repeat(np.arange(n), 10)
    y = rng.choice(3, size=qid.size, p=[0.7, 0.2, 0.1])
    baseline = y + rng.normal(0, 2.0, y.size)
    new = y + rng.normal(0, 2.0 - 10 * gain, y.size)
    collections[name] = (
        evaluate(y, new, groups=qid, metrics=["ndcg@10"]),
        evaluate(y, baseline, groups=qid, metrics=["ndcg@10"]),
    )
pooled = meta_analysis(collections, metric="ndcg@10", random_state=0)
print(pooled)

# %%
# The forest plot: each collection's difference and interval, its marker
# sized by its weight, the pooled difference as a diamond with the
# prediction interval (the difference to expect on a new collection)
# through it.
MetaAnalysisDisplay.from_meta_analysis(pooled)
plt.show()

# sphinx_gallery_thumbnail_number = 3
