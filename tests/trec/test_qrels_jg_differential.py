"""``-R qrels_jg`` against NIST trec_eval 10.0 on generated files.

The generated qrels/run pairs of every dimension (``tests/_trec_fuzz.py``)
with their qrels turned into judgment groups (each judgement in one of up
to three groups, some judged again in another group with another label):
``skirm eval -R qrels_jg -q -m qrels_jg`` must print trec_eval's bytes,
or fail where it fails, with default flags, ``-M 5``, ``-c``, ``-l 2`` and
``-J``. The run files are the same as the qrels-path differential test's:
about a third have their lines shuffled, so that a query's rows are not
together, and the ``ties`` dimensions rank tied scores by docno.

``SKIRM_FUZZ_CASES`` runs a longer campaign, as in
``test_trec_differential.py``.
"""

from __future__ import annotations

import pytest
from _trec_eval_side import compare_each, fuzz_seeds
from _trec_fuzz import DIMENSIONS, make_case

pytestmark = pytest.mark.oracle

FLAGS = {
    "default": [],
    "M5": ["-M", "5"],
    "c": ["-c"],
    "l2": ["-l", "2"],
    "J": ["-J"],
}


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_judgment_groups_as_trec_eval(dimension, trec_eval_binary, tmp_path):
    failures, n_lines = [], 0
    for seed in fuzz_seeds():
        case = make_case(dimension, seed, groups=True)
        qrels, run = tmp_path / f"{case.name}.qrels", tmp_path / f"{case.name}.run"
        qrels.write_bytes(case.qrels)
        run.write_bytes(case.run)
        argv = ["-R", "qrels_jg", "-m", "qrels_jg"]
        found, lines = compare_each(trec_eval_binary, case, FLAGS, argv, [qrels, run])
        failures += found
        n_lines += lines
    assert not failures, "\n".join(failures[:10])
    if dimension not in ("qrels_only",):
        assert n_lines > 0
