"""Seeded synthetic ranking data for the benchmarks, as flat numpy arrays.

The layout follows a typical learning-to-rank evaluation set:

* about 100 rows per query (sizes drawn uniformly from 20 to 180), rows of a
  query contiguous, query ids are ``int64`` and increasing;
* graded labels 0-4 with probabilities 0.70 / 0.15 / 0.08 / 0.05 / 0.02, so
  about 2% of the queries have no relevant row;
* scores ``softplus(0.7 * label + N(0, 1))``: float64, strictly positive,
  correlated with the labels and without ties; ``round_scores=d`` rounds them
  to ``d`` decimals, which creates many ties (about 50 distinct values per
  query with ``d=1``).
"""

from __future__ import annotations

import resource
from pathlib import Path

import numpy as np

LABEL_PROBABILITIES = (0.70, 0.15, 0.08, 0.05, 0.02)


def make_flat(n_rows, rows_per_group=100, *, round_scores=None, seed=0):
    """Return ``(y_true, y_score, groups)`` with about ``n_rows`` rows.

    ``y_true`` is float64 (labels 0-4), ``y_score`` float64, ``groups`` int64.
    The row count is exactly ``n_rows``: the last query absorbs the rounding.
    """
    rng = np.random.default_rng(seed)
    n_groups = max(1, round(n_rows / rows_per_group))
    low, high = max(1, rows_per_group // 5), rows_per_group * 9 // 5
    sizes = rng.integers(low, high + 1, size=n_groups)
    # Rescale the sizes so that they add up to n_rows exactly.
    ends = np.round(np.cumsum(sizes) * (n_rows / sizes.sum())).astype(np.int64)
    sizes = np.diff(ends, prepend=0)
    if (sizes < 1).any():
        raise ValueError(f"n_rows={n_rows} is too small for {n_groups} queries")
    groups = np.repeat(np.arange(n_groups, dtype=np.int64), sizes)
    y_true = rng.choice(5, size=n_rows, p=LABEL_PROBABILITIES).astype(np.float64)
    y_score = np.logaddexp(0.0, 0.7 * y_true + rng.standard_normal(n_rows))
    if round_scores is not None:
        y_score = np.round(y_score, round_scores)
    return y_true, y_score, groups


def load_mq2008(shared_data=None):
    """MQ2008 test fold as ``(y_true, y_score, groups)``, or None if absent.

    The score is feature 1 of the LETOR file plus 0.5 * feature 40 (a
    reasonable ranker with some ties); the groups are the LETOR query ids.
    """
    if shared_data is None:
        shared_data = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
    path = Path(shared_data) / "mq2008" / "test.txt"
    if not path.exists():
        return None
    from sklearn.datasets import load_svmlight_file

    X, y, qid = load_svmlight_file(str(path), query_id=True)
    X = X.toarray()
    y_score = X[:, 0] + 0.5 * X[:, 39]
    return y.astype(np.float64), y_score, qid.astype(np.int64)


def cache_bytecode():
    """Compile skirm's modules to bytecode where Python looks for it.

    Benchmarks that time fresh processes call this first: an installed copy
    of skirm has its bytecode, and a process that compiled the modules from
    source (``PYTHONDONTWRITEBYTECODE`` set, or a new checkout) would time
    the compiler.
    """
    import compileall

    import skirm

    compileall.compile_dir(Path(skirm.__file__).parent, quiet=1)


def peak_mib():
    """This process's peak resident memory in MiB: ``VmHWM``, the high-water
    mark of its own memory. ``ru_maxrss`` would also keep that of the
    process that started it (Linux records the parent's at ``exec``), which
    in a benchmark that keeps every case's results grows case by case."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: What a benchmark's child process (``python -c``) runs first: this folder
#: on its path (last, so that it shadows nothing) and :func:`peak_mib`.
CHILD_PRELUDE = (
    "import sys\n"
    f"sys.path.append({str(Path(__file__).resolve().parent)!r})\n"
    "from _data import peak_mib\n"
)
