"""Seeded TREC run and qrels files with mixed real-world docno shapes.

Each query retrieves ``n_docs`` documents whose ids mix four shapes, in
about equal parts, inside every query:

* TREC disks: ``FT911-1234``, ``LA010189-0001``, ``WSJ870324-0001``;
* ClueWeb: ``clueweb09-en0000-00-00000``;
* MS MARCO v2.1 segments: ``msmarco_v2.1_doc_00_880019750#4_1633802806``;
* plain integers: ``880019750``.

Scores have four decimals (so some documents of a query tie and the docno
breaks the tie). The qrels judge a fraction ``judged`` (15%) of the retrieved
documents plus 50 documents per query that the run missed, graded 0-3 with a
few -1 ("judged non-relevant"). Every qrels query appears in the run, as trec_eval
10.0 requires, and the run is grouped by query as TREC runs are.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CHUNK_QUERIES = 100  # queries formatted per write


def _docnos(rng, n):
    """``n`` docnos: the four shapes, in random order."""
    shape = rng.integers(0, 4, size=n)
    a = rng.integers(0, 10**9, size=n)
    b = rng.integers(0, 10**4, size=n)
    out = []
    for s, x, y in zip(shape.tolist(), a.tolist(), b.tolist(), strict=True):
        if s == 0:
            prefix = ("FT9", "LA0", "WSJ8")[x % 3]
            out.append(f"{prefix}{x % 100000:05d}-{y:04d}")
        elif s == 1:
            out.append(f"clueweb09-en{y:04d}-{x % 100:02d}-{x % 100000:05d}")
        elif s == 2:
            out.append(f"msmarco_v2.1_doc_{y % 60:02d}_{x}#{y % 40}_{x + y}")
        else:
            out.append(str(x))
    return out


def write_trec_files(folder, n_queries, n_docs, *, judged=0.15, seed=0, name="mixed"):
    """Write ``{name}.run`` and ``{name}.qrels`` into ``folder``; return paths.

    Docnos are unique within a query (a counter suffix is never needed:
    collisions are dropped by drawing from 10**9 values and de-duplicating,
    and more are drawn when a query of millions of documents falls short).
    """
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    run_path, qrels_path = folder / f"{name}.run", folder / f"{name}.qrels"
    with open(run_path, "w") as run_fh, open(qrels_path, "w") as qrels_fh:
        for q0 in range(0, n_queries, CHUNK_QUERIES):
            run_lines, qrels_lines = [], []
            for q in range(q0, min(q0 + CHUNK_QUERIES, n_queries)):
                qid = str(301 + q)
                docs = list(dict.fromkeys(_docnos(rng, n_docs + 60)))
                while len(docs) < n_docs + 50:  # a huge query: draw more
                    docs = list(dict.fromkeys(docs + _docnos(rng, n_docs // 100 + 60)))
                retrieved, missed = docs[:n_docs], docs[n_docs : n_docs + 50]
                scores = np.sort(np.round(rng.gamma(2.0, 2.0, n_docs), 4))[::-1]
                run_lines += [
                    f"{qid} Q0 {d} {r} {s:.4f} bench\n"
                    for r, (d, s) in enumerate(
                        zip(retrieved, scores.tolist(), strict=True), start=1
                    )
                ]
                pool = [d for d in retrieved if rng.random() < judged] + missed
                labels = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=len(pool))
                qrels_lines += [
                    f"{qid} 0 {d} {label}\n"
                    for d, label in zip(pool, labels.tolist(), strict=True)
                ]
            run_fh.write("".join(run_lines))
            qrels_fh.write("".join(qrels_lines))
    return qrels_path, run_path
