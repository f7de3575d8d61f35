"""``-Z`` (z-scores) against NIST trec_eval 10.0 on generated files.

The generated qrels/run pairs of every dimension (``tests/_trec_fuzz.py``)
with a z-scores file drawn for them: a mean and a standard deviation per
(query, measure), some queries and some (query, measure) entries left out
(the value is then trec_eval's missing z-score), some deviations zero (the
z-score is 0 where the value equals the mean, else missing), extra queries
and measures the evaluation does not ask for. Every query's entries end
with a measure name, and the file with a query id, that sort after every
name asked for: trec_eval's binary searches read one entry past their table
for a name sorting after all of them (a documented difference), which these
files never ask. ``skirm eval -Z`` must print trec_eval's ``-q`` bytes, or
fail where it fails, with default flags, ``-c`` and ``-J``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _trec_eval_side import compare_each, fuzz_seeds
from _trec_fuzz import DIMENSIONS, make_case, parse_reference

pytestmark = pytest.mark.oracle

MEASURES = ["-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10", "-m", "recip_rank"]
MEASURES += ["-m", "num_ret", "-m", "bpref"]
NAMES = ["map", "P_5", "P_10", "ndcg_cut_10", "recip_rank", "num_ret", "bpref"]
FLAGS = {"default": [], "c": ["-c"], "J": ["-J"]}


def _zscores(rng, query_ids):
    lines = []
    for qid in [*query_ids, "extra_q"]:
        if rng.random() < 0.15:
            continue  # the query's values all missing z-scores
        for name in [*NAMES, "infAP", "~last"]:
            if name != "~last" and rng.random() < 0.1:
                continue  # this value's z-score missing
            if rng.random() < 0.15:
                mean, dev = float(rng.choice([0.0, 1.0])), 0.0
            else:
                mean, dev = rng.normal(0.3, 0.5), abs(rng.normal(0.2, 0.1)) + 1e-3
            lines.append(f"{qid} {name} {mean:.6f} {dev:.6f}")
    lines.append("\U0010ffff ~last 0 1")  # a query id after every other
    order = rng.permutation(len(lines)) if rng.random() < 0.5 else range(len(lines))
    return "".join(lines[i] + "\n" for i in order).encode()


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_zscores_as_trec_eval(dimension, trec_eval_binary, tmp_path):
    failures, n_lines = [], 0
    for seed in fuzz_seeds():
        case = make_case(dimension, seed)
        try:
            qrels, run, _, _ = parse_reference(case.qrels, case.run)
        except ValueError:  # a malformed line on purpose
            qrels, run = {}, {}
        rng = np.random.default_rng([DIMENSIONS.index(dimension), seed, 3])
        paths = {k: tmp_path / f"{case.name}.{k}" for k in ("qrels", "run", "z")}
        paths["qrels"].write_bytes(case.qrels)
        paths["run"].write_bytes(case.run)
        paths["z"].write_bytes(_zscores(rng, sorted(set(qrels) | set(run))))
        argv = [*MEASURES, "-Z", str(paths["z"])]
        files = [paths["qrels"], paths["run"]]
        found, lines = compare_each(trec_eval_binary, case, FLAGS, argv, files)
        failures += found
        n_lines += lines
    assert not failures, "\n".join(failures[:10])
    assert n_lines > 0 or dimension == "duplicates"  # (its CI cases all stop)
