"""Builders of the test data several modules share, seeded.

Fixtures that hand these out live in ``conftest.py``; modules whose data
differ only by a parameter call the builder with theirs, so that every test
keeps exactly the data it had.
"""

import re
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from skirm.datasets import make_ranking

#: The folder of the tests, the project's root, and the data files the tests
#: ship with (trec_eval's conformance files, ndeval's examples).
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
TREC_EVAL_DATA = DATA / "trec_eval"

#: Charsets of generated ids: one byte per character, two, three, four.
ALPHABETS = {
    "ascii": "abcxyz019-_.",
    "latin": "aéüßøç",
    "cjk": "文書検索語",
    "emoji": "a🙂🚀z",
}


def random_ids(rng, n, alphabet, lo=0, hi=40):
    """``n`` ids of ``lo`` to ``hi`` characters of ``alphabet`` drawn by
    ``rng`` (a list of str)."""
    letters = np.array(list(alphabet))
    sizes = rng.integers(lo, hi + 1, n)
    return ["".join(rng.choice(letters, size)) for size in sizes]


#: A LETOR 4.0 line: label, query id, features, then the document id.
_LETOR_LINE = re.compile(r"^(\d+) qid:(\S+) (.*?)#docid = (\S+)")


def shuffled_ranking(n_groups, group_size=(4, 25), *, seed=0, shuffle_seed=None, **kw):
    """:func:`skirm.datasets.make_ranking` with its rows shuffled (queries
    interleaved, as rankers and splitters must accept them):
    ``(X, y, qid)``. ``shuffle_seed`` defaults to ``seed``."""
    X, y, qid = make_ranking(
        n_groups=n_groups, group_size=group_size, random_state=seed, **kw
    )
    perm = np.random.default_rng(seed if shuffle_seed is None else shuffle_seed)
    perm = perm.permutation(y.shape[0])
    return X[perm], y[perm], qid[perm]


def mq2008_vali(shared_data, n_queries, *, shuffle_seed=None):
    """The first ``n_queries`` queries of MQ2008's validation fold as dense
    ``(X, y, qid)``, integer labels; rows shuffled when ``shuffle_seed`` is
    given."""
    X, y, qid = load_svmlight_file(shared_data / "mq2008" / "vali.txt", query_id=True)
    keep = qid < np.unique(qid)[n_queries]
    X, y, qid = X[keep].toarray(), y[keep].astype(np.int64), qid[keep]
    if shuffle_seed is None:
        return X, y, qid
    perm = np.random.default_rng(shuffle_seed).permutation(y.shape[0])
    return X[perm], y[perm], qid[perm]


def mq2008_documents(path):
    """A LETOR file with its document ids: ``(labels, qids, docids,
    features)`` as arrays, ids as strings."""
    labels, qids, docids, features = [], [], [], []
    for line in path.read_text().splitlines():
        m = _LETOR_LINE.match(line)
        labels.append(int(m[1]))
        qids.append(m[2])
        docids.append(m[4])
        features.append([float(t.split(":")[1]) for t in m[3].split()])
    return np.array(labels), np.array(qids), np.array(docids), np.array(features)


def trec_dicts(y_true, y_score, groups):
    """pytrec_eval's qrels and run dicts of flat rows: every row a document
    ``d<row>`` of its query."""
    qrels, run = {}, {}
    for i, (label, score, qid) in enumerate(
        zip(y_true.tolist(), y_score.tolist(), groups.tolist(), strict=True)
    ):
        doc = f"d{i}"
        qrels.setdefault(str(qid), {})[doc] = int(label)
        run.setdefault(str(qid), {})[doc] = float(score)
    return qrels, run
