"""
=================================================
From a model's predictions to an evaluated run
=================================================

Information-retrieval campaigns exchange *runs*: ranked lists of documents
per query, one line per document, evaluated against relevance judgements
(*qrels*) by ``trec_eval``. This example trains two rankers, writes their
predictions as TREC runs with :func:`skirm.io.write_run`, evaluates the runs
with :func:`skirm.trec.evaluate_run` (trec_eval's exact semantics) and the
``skirm eval`` command line, and compares the two models query by query.
"""

# %%
# Data with query and document ids
# --------------------------------
# Synthetic learning-to-rank data; every row gets a document id so that
# predictions can be written as a run. Half of the queries train the
# models, the other half are the "topics" we evaluate on.
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge

from skirm.datasets import make_ranking
from skirm.io import read_qrels, write_run
from skirm.trec import evaluate_run

X, y, groups = make_ranking(n_groups=120, noise=1.0, random_state=0)
query_ids = np.array([f"q{g:03d}" for g in groups])
doc_ids = np.array([f"doc{i:05d}" for i in range(len(y))])
train = groups < 60
test = ~train

# %%
# The qrels file
# --------------
# The judgements of the test queries, in trec_eval's four-column format
# ``qid iter docno rel``.
tmp = tempfile.TemporaryDirectory(prefix="skirm-trec-")
workdir = Path(tmp.name)
qrels_path = workdir / "qrels.txt"
lines = [
    f"{q} 0 {d} {label}\n"
    for q, d, label in zip(query_ids[test], doc_ids[test], y[test], strict=True)
]
qrels_path.write_text("".join(lines))
qrels = read_qrels(qrels_path)
print(qrels)

# %%
# Two models, two runs
# --------------------
# Each model scores the rows of the test queries; :func:`~skirm.io.write_run`
# ranks them per query (score descending, ties by document id descending, as
# trec_eval does) and writes the six-column run format. We keep the top 20
# documents of each query, as a search engine would return.
models = {
    "ridge": Ridge(alpha=1.0),
    "boosting": HistGradientBoostingRegressor(max_iter=100, random_state=0),
}
run_paths = {}
for name, model in models.items():
    model.fit(X[train], y[train])
    run_paths[name] = workdir / f"{name}.run"
    write_run(
        run_paths[name],
        query_ids[test],
        doc_ids[test],
        model.predict(X[test]),
        run_id=name,
        max_docs=20,
    )
print(run_paths["ridge"].read_text().splitlines()[:3])

# %%
# Evaluating the runs
# -------------------
# :func:`~skirm.trec.evaluate_run` takes trec_eval's measure names. Recall
# is computed against *all* relevant documents of the qrels, including the
# ones a run did not return in its top 20.
measures = ["map", "ndcg_cut.10", "P.10", "recall.20", "recip_rank"]
results = {
    name: evaluate_run(qrels, path, measures) for name, path in run_paths.items()
}
for name, result in results.items():
    summary = ", ".join(f"{m} {v:.4f}" for m, v in result.means.items())
    print(f"{name:>8}: {summary}")

# %%
# The same numbers come from the command line, a drop-in for ``trec_eval``
# (here called through the running Python, as ``python -m skirm``):
command = [sys.executable, "-m", "skirm", "eval", "-m", "map", "-m", "ndcg_cut.10"]
completed = subprocess.run(
    [*command, str(qrels_path), str(run_paths["ridge"]), str(run_paths["boosting"])],
    capture_output=True,
    text=True,
    check=True,
)
print(completed.stdout)

# %%
# Query by query
# --------------
# Means hide how the models differ. :class:`~skirm.plot.PerQueryDisplay`
# sorts the per-query differences of NDCG@10 between the two runs (the same
# queries, aligned by id) and counts the wins and losses;
# :class:`~skirm.plot.PrecisionRecallDisplay` draws each run's 11-point
# interpolated precision-recall curve from trec_eval's ``iprec_at_recall``.
from skirm.plot import PerQueryDisplay, PrecisionRecallDisplay

axes = [plt.subplots(figsize=(6, 4))[1] for _ in range(2)]
PerQueryDisplay.from_evaluations(
    results["boosting"],
    results["ridge"],
    metric="ndcg_cut_10",
    name="boosting",
    baseline_name="ridge",
    ax=axes[0],
)
for name, path in run_paths.items():
    PrecisionRecallDisplay.from_run(qrels, path, name=name, ax=axes[1])
for ax in axes:
    ax.figure.tight_layout()
plt.show()

# %%
# ``result.to_frame()`` gives the same per-query table as a pandas
# DataFrame, e.g. to find the queries where the models disagree most.
per_query = results["boosting"].to_frame()[["ndcg_cut_10"]]
per_query = per_query.rename(columns={"ndcg_cut_10": "boosting"})
per_query["ridge"] = results["ridge"].per_query["ndcg_cut_10"]
per_query["gap"] = per_query["boosting"] - per_query["ridge"]
print(per_query.sort_values("gap").head().round(4))
tmp.cleanup()

# sphinx_gallery_thumbnail_number = 2
