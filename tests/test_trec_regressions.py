"""Named regression cases of the TREC path, each a small file pair.

Every case was once a silent wrong number or a crash; the expected values
are trec_eval's (10.0, checked with the binary) and pytrec_eval's.
"""

import io

import numpy as np
import pytest

from skirm.io import read_qrels, read_run
from skirm.io._tokens import Tokens
from skirm.trec import evaluate_run


def _evaluate(qrels_text, run_text, metrics, **kwargs):
    qrels = read_qrels(io.StringIO(qrels_text))
    run = read_run(io.StringIO(run_text))
    return evaluate_run(qrels, run, metrics, **kwargs).means


# --------------------------------------------------------------------------
# Docnos of different widths in the qrels and the run (issue 9)
# --------------------------------------------------------------------------


def test_longer_run_docno_still_matches_its_judgement():
    # The run's longest docno (20 bytes) made its column hash on three
    # words and the qrels' on two: no judgement matched, every value 0.
    means = _evaluate(
        "q1 0 ABCDEFGHIJ 1\nq1 0 D2 0\n",
        "q1 Q0 ABCDEFGHIJ 1 2.0 r\nq1 Q0 ABCDEFGHIJKLMNOPQRST 2 1.0 r\n",
        ["map", "num_rel_ret"],
    )
    assert means == {"num_rel_ret": 1.0, "map": 1.0}


def test_nine_byte_run_docno_with_eight_byte_qrels():
    means = _evaluate(
        "301 0 FT9-4225 1\n301 0 FT9-4226 0\n",
        "301 Q0 FT9-42252 1 2.0 r\n301 Q0 FT9-4225 2 1.0 r\n",
        ["map", "num_rel_ret", "P_5"],
    )
    assert means == {"num_rel_ret": 1.0, "map": 0.5, "P_5": 0.2}


def test_longer_qrels_docno_still_matches():
    means = _evaluate(
        "q1 0 a 1\nq1 0 clueweb09-en0000-00-00000 0\n",
        "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n",
        ["map", "num_rel_ret"],
    )
    assert means == {"num_rel_ret": 1.0, "map": 1.0}


@pytest.mark.parametrize("width", [1, 7, 8, 9, 15, 16, 17, 24, 25, 40])
def test_token_hash_depends_on_the_token_alone(width):
    token = "x" * width
    for other in ("", "y", "z" * 8, "w" * 9, "v" * 41):
        alone = Tokens.from_strings(np.array([token]))
        mixed = Tokens.from_strings(np.array([other, token]))
        assert alone.hash()[0] == mixed.hash()[1], (token, other)
