"""
=============================================
Evaluating recommenders: accuracy and beyond
=============================================

A recommender outputs, for each user, a ranked list of item ids; the ground
truth is the set of items the user went on to like. This example compares
three recommenders on simulated interactions: a most-popular baseline, a
random one and a "personalised" one that knows part of each user's taste.
Accuracy (NDCG@10, recall@10, MAP@10) comes from :func:`skirm.metrics.evaluate`
on the lists directly; catalog coverage, the Gini index of exposure,
novelty and intra-list diversity from :mod:`skirm.recsys`; rank-biased
overlap says how alike two recommenders' lists are.
"""

# %%
# Simulated users and items
# -------------------------
# Items have a latent feature vector and a popularity that follows a power
# law; a user likes the items closest to their own taste vector, more so
# when popular. The last 10 liked items of each user are held out as the
# ground truth; the earlier ones give the popularity counts.

import matplotlib.pyplot as plt
import numpy as np

from skirm.metrics import evaluate, from_lists
from skirm.recsys import (
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    novelty,
    rank_biased_overlap,
)

rng = np.random.default_rng(0)
n_users, n_items, n_features = 500, 400, 8
items = np.arange(n_items)
features = rng.normal(size=(n_items, n_features))
popularity_prior = rng.zipf(1.5, size=n_items).clip(1, 200).astype(float)
tastes = rng.normal(size=(n_users, n_features))
affinity = tastes @ features.T / np.sqrt(n_features) + 0.5 * np.log(popularity_prior)
liked = np.argsort(-(affinity + rng.gumbel(size=affinity.shape)), axis=1)[:, :30]
history, held_out = liked[:, :20], liked[:, 20:]
counts = np.bincount(history.ravel(), minlength=n_items) + 1  # interactions
relevant = [set(row.tolist()) for row in held_out]

# %%
# Three recommenders, ten items each
# ----------------------------------
# Each one ranks the items a user has not interacted with yet.
seen = np.zeros((n_users, n_items), dtype=bool)
np.put_along_axis(seen, history, True, axis=1)


def top10(scores):
    scores = np.where(seen, -np.inf, scores)
    return np.argsort(-scores, axis=1, kind="stable")[:, :10]


noisy_taste = tastes + rng.normal(scale=1.0, size=tastes.shape)
recommendations = {
    "most popular": top10(np.broadcast_to(counts, (n_users, n_items)).astype(float)),
    "random": top10(rng.random((n_users, n_items))),
    "personalised": top10(
        noisy_taste @ features.T / np.sqrt(n_features) + 0.5 * np.log(counts)
    ),
}

# %%
# One table: accuracy and beyond accuracy
# ---------------------------------------
# ``from_lists`` matches the lists with the ground truth once; relevant items
# that a list misses still count in recall's denominator and the ideal DCG.
popularity = (items, counts)
rows = {}
for name, lists in recommendations.items():
    accuracy = evaluate(
        from_lists(lists, relevant), None, metrics=["ndcg@10", "recall@10", "map@10"]
    )
    rows[name] = {
        **accuracy.means,
        "coverage": catalog_coverage(lists, catalog=items),
        "gini": gini_index(lists, catalog=items),
        "novelty": novelty(lists, item_popularity=popularity, n_users=n_users),
        "diversity": intra_list_diversity(lists, item_features=(items, features)),
    }
columns = list(next(iter(rows.values())))
print(f"{'':>14}" + "".join(f"{c:>11}" for c in columns))
for name, values in rows.items():
    print(f"{name:>14}" + "".join(f"{values[c]:>11.3f}" for c in columns))

# %%
# The trade-off at a glance: accuracy against novelty (bubble size: catalog
# coverage). The popular baseline is accurate but covers a sliver of the
# catalog; random lists cover it all and miss the users' tastes.
fig, ax = plt.subplots(figsize=(5, 3.5))
for name, values in rows.items():
    ax.scatter(values["novelty"], values["ndcg@10"], s=40 + 400 * values["coverage"])
    ax.annotate(
        name,
        (values["novelty"], values["ndcg@10"]),
        xytext=(6, 6),
        textcoords="offset points",
    )
ax.set_xlabel("novelty (bits)")
ax.set_ylabel("NDCG@10")
ax.set_title("Accuracy, novelty and coverage")
fig.tight_layout()

# %%
# How alike are the lists?
# ------------------------
# Rank-biased overlap (extrapolated, p = 0.9) between the personalised and
# the popular lists, averaged over users: 0 means disjoint lists, 1 the same.
rbo = [
    rank_biased_overlap(a, b, p=0.9)
    for a, b in zip(
        recommendations["personalised"], recommendations["most popular"], strict=True
    )
]
print(f"mean RBO(personalised, most popular) = {np.mean(rbo):.3f}")

plt.show()
