"""Query ids as people hold them: the cost of string and object ids.

``evaluate(ndcg@10, map, mrr)`` on the same rows (``_data.make_flat``:
about 100 rows per query, each query's rows together, float labels and
scores) with the query ids held as

- int64, sorted (the reference);
- fixed-width strings in label order (``"q0000042"``) and out of label order
  (``"q42"``, ``"q420"``: the rows follow the integers, not the strings), as
  a narrow (U8/U6) and as a wide (U22) array;
- the same strings in object arrays, in a pandas ``str`` column (stored by
  pyarrow) and ``object`` column, a pyarrow string array and a polars
  ``String`` Series (each when its library is installed).

The shapes run in turn, round after round (interleaved, so a change in the
machine's speed touches every shape alike), each round after a warm-up;
reported: the median and the fastest time per shape and their ratio to int64
ids, with one thread and two. The per-query values of every shape are
checked equal to the int64 ones.

Run: ``python benchmarks/bench_ids.py [--rows 1000000] [--rounds 7]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import make_flat

from skirm.metrics import evaluate

THREE = ("ndcg@10", "map", "mrr")


def shapes(groups):
    """``{name: ids}``: the query ids of ``groups`` (sorted int64) held in
    each shape."""
    width = len(str(int(groups.max())))
    narrow = np.char.add("q", groups.astype(f"U{width}"))  # out of label order
    ordered = np.char.add("q", np.char.zfill(groups.astype(str), width))
    out = {
        "int64": groups,
        f"str {ordered.dtype}, label order": ordered,
        f"str {narrow.dtype}, not label order": narrow,
        "str <U22, not label order": narrow.astype("U22"),
        "object, label order": ordered.astype(object),
        "object, not label order": narrow.astype(object),
    }
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        out["pandas str column, not label order"] = pd.Series(
            narrow.tolist(), dtype=pd.StringDtype("pyarrow")
        )
        out["pandas object column, not label order"] = pd.Series(
            narrow.tolist(), dtype=object
        )
    try:
        import pyarrow as pa
    except ImportError:
        pass
    else:
        out["pyarrow string array, not label order"] = pa.array(narrow.tolist())
    try:
        import polars as pl
    except ImportError:
        pass
    else:
        out["polars String Series, not label order"] = pl.Series(
            narrow.tolist(), dtype=pl.String
        )
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)

    y_true, y_score, groups = make_flat(args.rows, seed=0)
    ids = shapes(groups)
    print(f"# Query ids, {args.rows:,} rows, {np.unique(groups).shape[0]:,} queries")
    print()
    print(
        "| ids | 1 thread: median (fastest) | ratio to int64 | 2 threads: median "
        "(fastest) | ratio to int64 |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    times = {(name, n_jobs): [] for name in ids for n_jobs in (1, 2)}
    expected = evaluate(y_true, y_score, groups=groups, metrics=THREE)
    for labels in ids.values():  # warm-up, and the values checked query by query
        result = evaluate(y_true, y_score, groups=labels, metrics=THREE)
        as_int = np.char.lstrip(np.asarray(result.group_ids, dtype=str), "q")
        at = np.searchsorted(expected.group_ids, as_int.astype(np.int64))
        for metric in THREE:
            np.testing.assert_array_equal(
                result.per_query[metric], expected.per_query[metric][at]
            )
    for _ in range(args.rounds):
        for (name, n_jobs), seen in times.items():
            t0 = time.perf_counter()
            evaluate(y_true, y_score, groups=ids[name], metrics=THREE, n_jobs=n_jobs)
            seen.append(time.perf_counter() - t0)
    for name in ids:
        cells = [name]
        for n_jobs in (1, 2):
            median = statistics.median(times[name, n_jobs])
            base = statistics.median(times["int64", n_jobs])
            best = min(times[name, n_jobs])
            cells += [
                f"{median * 1e3:.1f} ms ({best * 1e3:.1f})",
                f"{median / base:.2f}x",
            ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
