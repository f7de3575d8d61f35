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

import contextlib
import io
import math
import os
import subprocess

import pytest
from _trec_fuzz import DIMENSIONS, make_case

from skirm._cli import main

pytestmark = pytest.mark.oracle

FLAGS = {
    "default": [],
    "M5": ["-M", "5"],
    "c": ["-c"],
    "l2": ["-l", "2"],
    "J": ["-J"],
}

CI_SEEDS = range(2)


def _seeds():
    total = int(os.environ.get("SKIRM_FUZZ_CASES", "0") or 0)
    if total <= 0:
        return CI_SEEDS
    first = int(os.environ.get("SKIRM_FUZZ_FIRST_SEED", "1000"))
    return range(first, first + max(1, math.ceil(total / len(DIMENSIONS))))


def _trec_eval(binary, flags, qrels, run):
    argv = [binary, "-q", "-R", "qrels_jg", "-m", "qrels_jg", *flags, qrels, run]
    done = subprocess.run(argv, capture_output=True, check=False)
    return done.returncode, done.stdout


def _skirm(flags, qrels, run):
    out, err = io.StringIO(), io.StringIO()
    argv = ["eval", "--format", "trec", "-q", "-R", "qrels_jg", "-m", "qrels_jg"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([*argv, *flags, qrels, run])
    return status, out.getvalue().encode("utf-8"), err.getvalue()


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_judgment_groups_as_trec_eval(dimension, trec_eval_binary, tmp_path):
    failures, n_lines = [], 0
    for seed in _seeds():
        case = make_case(dimension, seed, groups=True)
        qrels, run = tmp_path / f"{case.name}.qrels", tmp_path / f"{case.name}.run"
        qrels.write_bytes(case.qrels)
        run.write_bytes(case.run)
        for name, flags in FLAGS.items():
            status, expected = _trec_eval(trec_eval_binary, flags, str(qrels), str(run))
            got_status, got, err = _skirm(flags, str(qrels), str(run))
            if status != 0:
                ok = got_status == status
            else:
                ok = got_status == 0 and got == expected
                n_lines += expected.count(b"\n")
            if not ok:
                failures.append(
                    f"{case.name} [{name}]: exit {status}/{got_status} {err}"
                )
    assert not failures, "\n".join(failures[:10])
    if dimension not in ("qrels_only",):
        assert n_lines > 0
