"""Differential tests of the TREC path against two reference implementations.

Generated qrels/run file pairs (``tests/_trec_fuzz.py``, one dimension of
real files varied at a time) are evaluated by

* NIST trec_eval 10.0, built from the source kept beside the shared tools:
  its ``-q`` output must equal ``skirm eval --format trec -q`` byte for
  byte (every measure of ``-m all_trec`` that skirm implements), and both
  must fail on the same inputs;
* pytrec_eval (trec_eval 9.0.x) through ``evaluate_run(..., compat="9.0")``,
  per query to 1e-9;
* the array API: ``skirm.metrics.evaluate`` on the joined rows equals
  ``evaluate_run`` for the measures both have;

with default flags, ``-l 2``, ``-J``, ``-M 5``, ``-c`` and ``-c -J``.

A fixed set of seeds runs every time. A longer campaign is one environment
variable away::

    SKIRM_FUZZ_CASES=10000 python -m pytest tests/trec/test_trec_differential.py

(the cases are spread over the dimensions, from seed 1000 up or from
``SKIRM_FUZZ_FIRST_SEED``; ``SKIRM_FUZZ_DUMP=DIR`` writes the files of every
failing case to DIR).
Each failure ever found is kept in ``REGRESSIONS`` below, so it runs always.
"""

from __future__ import annotations

import io
import math
import os
from pathlib import Path

import numpy as np
import pytest
from _trec_eval_side import first_difference, fuzz_seeds, skirm, trec_eval
from _trec_fuzz import DIMENSIONS, make_case, parse_reference

from skirm.io import Qrels, Run, read_qrels, read_run
from skirm.metrics import evaluate
from skirm.trec import evaluate_run, trec_measure_names

pytestmark = pytest.mark.oracle


FLAGS = {
    "default": [],
    "l2": ["-l", "2"],
    "J": ["-J"],
    "M5": ["-M", "5"],
    "c": ["-c"],
    "cJ": ["-c", "-J"],  # placeholder rankings that -J empties
}
PYTREC_FLAGS = ("default", "l2", "J")

#: Seeds of every dimension that run each time (fast: well under a minute).
CI_SEEDS = range(2)

#: Cases that once failed: (dimension, seed, what went wrong). Always run.
REGRESSIONS = [
    ("docno_widths", 0, "docnos of other widths in the run matched nothing"),
    ("graded", 1003, "set_map as P * recall: last bit, 4th decimal (0.3062)"),
    ("charset", 1000, "rbp_resid from p ** i, not repeated products (0.3730)"),
    ("many_queries", 1011, "means summed pairwise, not in query order (P_20)"),
    ("many_queries", 1015, "the same for iprec_at_recall_0.00 under -J"),
]


def _cases(dimension):
    seeds = list(fuzz_seeds(CI_SEEDS))
    seeds += [s for d, s, _ in REGRESSIONS if d == dimension and s not in seeds]
    return [make_case(dimension, seed) for seed in seeds]


def _dump(case):
    folder = os.environ.get("SKIRM_FUZZ_DUMP")
    if folder:
        path = Path(folder) / case.name
        path.mkdir(parents=True, exist_ok=True)
        (path / "qrels").write_bytes(case.qrels)
        (path / "run").write_bytes(case.run)


def _write(case, folder):
    qrels, run = folder / f"{case.name}.qrels", folder / f"{case.name}.run"
    qrels.write_bytes(case.qrels)
    run.write_bytes(case.run)
    return str(qrels), str(run)


def _trec_eval(binary, flags, qrels, run, measures=("-m", "all_trec")):
    return trec_eval(binary, [*measures, *flags, qrels, run])


def _skirm(flags, qrels, run, measures=("-m", "all_trec")):
    return skirm([*measures, *flags, qrels, run])


def _supported_lines(stdout):
    """trec_eval's lines of the measures skirm implements."""
    names = set(trec_measure_names())
    keep = []
    for line in stdout.split(b"\n"):
        if not line:
            continue
        name = line.split(b"\t")[0].rstrip().decode()
        base = name if name in names else name.rpartition("_")[0]
        if base in names:
            keep.append(line)
    return b"\n".join(keep) + b"\n"


# --------------------------------------------------------------------------
# trec_eval 10.0, byte for byte
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_same_output_as_trec_eval(dimension, trec_eval_binary, tmp_path):
    failures, n_lines = [], 0
    for case in _cases(dimension):
        qrels, run = _write(case, tmp_path)
        for flag_name, flags in FLAGS.items():
            status, expected = _trec_eval(trec_eval_binary, flags, qrels, run)
            got_status, got, err = _skirm(flags, qrels, run)
            if status != 0:  # trec_eval stops: skirm too, with its exit status
                ok = got_status == status
                what = f"trec_eval failed (exit {status}), skirm exit {got_status}"
            else:
                expected = _supported_lines(expected)
                ok = got_status == 0 and got == expected
                what = err or first_difference(expected, got)
                n_lines += expected.count(b"\n")
            if not ok:
                _dump(case)
                failures.append(f"{case.name} [{flag_name}]: {what}")
    assert not failures, "\n".join(failures[:10])
    assert n_lines > 100  # most runs succeed and print many lines


#: Every nickname of trec_eval's for qrels files, and measure lists as users
#: write them. (Regression: ``-m set`` lacked the runid line that trec_eval
#: prints for every nickname that lists it; only all_trec was compared.)
MEASURE_LISTS = {
    "official": ["-m", "official"],
    "set": ["-m", "set"],
    "official+set": ["-m", "official", "-m", "set"],
    "map+ndcg_cut.10": ["-m", "map", "-m", "ndcg_cut.10"],
    "P.5,10+recall.100": ["-m", "P.5,10", "-m", "recall.100"],
    "runid+num_q": ["-m", "runid", "-m", "num_q"],
    "set_F.0.5+utility": ["-m", "set_F.0.5", "-m", "utility.2,-1,0,0"],
    "ndcg.1=3,2=9": ["-m", "ndcg.1=3,2=9", "-m", "rbp.0.8"],
}


@pytest.mark.parametrize("measures", MEASURE_LISTS)
def test_measure_lists_and_nicknames_as_trec_eval(measures, trec_eval_binary, tmp_path):
    failures = []
    words = MEASURE_LISTS[measures]
    for dimension in ("graded", "ties", "docno_widths"):
        qrels, run = _write(make_case(dimension, 0), tmp_path)
        for flags in ([], ["-c"], ["-J"]):
            # _trec_eval and _skirm pass -q: add -n (no summary) or nothing.
            for extra in ([], ["-n"]):
                status, expected = _trec_eval(
                    trec_eval_binary, flags + extra, qrels, run, words
                )
                got_status, got, err = _skirm(flags + extra, qrels, run, words)
                if status != 0:
                    ok = got_status == status
                else:
                    ok = got_status == 0 and got == expected
                if not ok:
                    failures.append(
                        f"{dimension} {flags + extra}: "
                        f"{err or first_difference(expected, got)}"
                    )
    assert not failures, "\n".join(failures[:10])


# --------------------------------------------------------------------------
# pytrec_eval (trec_eval 9.0.x), per query to 1e-9
# --------------------------------------------------------------------------


def _pytrec_eval(qrels, run, flag_name):
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels,
        pytrec_eval.supported_measures,
        relevance_level=2 if flag_name == "l2" else 1,
        judged_docs_only_flag=flag_name == "J",
    )
    return evaluator.evaluate(run)


def _compare_pytrec(case, flag_name):
    """Differences between pytrec_eval and skirm's 9.0 mode on one case."""
    qd, rd, dup_run, dup_qrels = parse_reference(case.qrels, case.run)
    if dup_run or dup_qrels:
        return [], 0  # dicts cannot hold duplicate lines
    expected = _pytrec_eval(qd, rd, flag_name)
    result = evaluate_run(
        read_qrels(io.BytesIO(case.qrels)),
        read_run(io.BytesIO(case.run)),
        "all_trec",
        relevance_level=2 if flag_name == "l2" else 1,
        judged_only=flag_name == "J",
        compat="9.0",
    )
    problems, compared = [], 0
    qids = result.group_ids.tolist()
    if qids != sorted(expected, key=lambda q: q.encode()):
        return [f"queries: skirm {qids[:5]}, pytrec_eval {sorted(expected)[:5]}"], 0
    for i, qid in enumerate(qids):
        for name, value in expected[qid].items():
            if name not in result.per_query or name.startswith("relstring"):
                continue  # runid; relstring is a string (pytrec_eval: a number)
            ours = result.per_query[name][i]
            if name.startswith("gm_"):  # pytrec_eval returns the log per query
                ours = math.log(max(ours, 1e-5))
            same = (np.isnan(value) and np.isnan(ours)) or abs(ours - value) <= 1e-9
            if not same:
                problems.append(f"{qid} {name}: skirm {ours!r}, pytrec_eval {value!r}")
            compared += 1
    return problems, compared


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_same_values_as_pytrec_eval(dimension):
    failures, n_values = [], 0
    for case in _cases(dimension):
        for flag_name in PYTREC_FLAGS:
            problems, compared = _compare_pytrec(case, flag_name)
            n_values += compared
            if problems:
                _dump(case)
                failures.append(f"{case.name} [{flag_name}]: {problems[:3]}")
    assert not failures, "\n".join(failures[:10])
    if dimension != "duplicates":
        assert n_values >= 93  # every measure of at least one query


# --------------------------------------------------------------------------
# Two doors into one engine: evaluate() on the joined rows = evaluate_run()
# --------------------------------------------------------------------------

#: trec_eval name -> skirm metric name; binary ones take the relevance level.
SHARED = {
    "map": "map",
    "P_5": "precision@5",
    "P_10": "precision@10",
    "recall_10": "recall@10",
    "Rprec": "rprec",
    "recip_rank": "mrr",
    "success_5": "hit_rate@5",
    "map_cut_10": "map@10",
    "relative_P_5": "r_cap@5",
    "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10",
}
GRADED = {"ndcg", "ndcg_cut_10"}


def _joined_rows(qrels, run):
    """The run rows of the queries with a judged retrieved document, with
    their labels (unjudged and negative: 0), docno descending (so that the
    stable tie order is trec_eval's), and the qrels cut to those rows."""
    judged = dict(
        zip(
            zip(qrels.query_ids.tolist(), qrels.doc_ids.tolist(), strict=False),
            qrels.labels.tolist(),
            strict=False,
        )
    )
    pairs = list(zip(run.query_ids.tolist(), run.doc_ids.tolist(), strict=False))
    keep_q = {q for q, d in pairs if (q, d) in judged}
    rows = [i for i, (q, d) in enumerate(pairs) if q in keep_q]
    rows.sort(key=lambda i: pairs[i][1].encode(), reverse=True)
    q = run.query_ids[rows]
    d = run.doc_ids[rows]
    labels = np.array([max(judged.get(pairs[i], 0), 0) for i in rows], dtype=float)
    cut = [
        (a, b) for a, b in zip(q.tolist(), d.tolist(), strict=False) if (a, b) in judged
    ]
    cut_qrels = Qrels(
        [a for a, _ in cut], [b for _, b in cut], [judged[p] for p in cut]
    )
    return q, labels, run.scores[rows], cut_qrels, Run(q, d, run.scores[rows])


@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_array_api_equals_evaluate_run(dimension):
    failures = []
    for case in _cases(dimension):
        _qd, _rd, dup_run, dup_qrels = parse_reference(case.qrels, case.run)
        if dup_run or dup_qrels:
            continue
        qrels = read_qrels(io.BytesIO(case.qrels))
        run = read_run(io.BytesIO(case.run))
        groups, y_true, y_score, cut_qrels, cut_run = _joined_rows(qrels, run)
        if not len(cut_qrels):
            continue  # no judged document retrieved: nothing in common
        for level in (1, 2):
            trec = evaluate_run(cut_qrels, cut_run, list(SHARED), relevance_level=level)
            binary = [SHARED[n] for n in SHARED if n not in GRADED]
            graded = [SHARED[n] for n in GRADED]
            arrays = evaluate(
                y_true,
                y_score,
                groups=groups,
                metrics=binary,
                ties="first",
                relevance_threshold=level,
            )
            arrays_g = evaluate(
                y_true, y_score, groups=groups, metrics=graded, ties="first"
            )
            assert trec.group_ids.tolist() == arrays.group_ids.tolist()
            for name, skirm_name in SHARED.items():
                source = arrays_g if name in GRADED else arrays
                a, b = trec.per_query[name], source.per_query[skirm_name]
                if not np.allclose(a, b, rtol=0, atol=1e-12):
                    failures.append(f"{case.name} l={level} {name}: {a} vs {b}")
    assert not failures, "\n".join(failures[:10])


def test_generator_covers_its_dimensions():
    """The generated files do hold what their dimension promises."""

    def both(dimension, seed=0):
        case = make_case(dimension, seed)
        return case.qrels + case.run

    assert b"\r\n" in both("crlf")
    assert b"\t" in both("whitespace")
    assert b"\n#" in make_case("comments", 0).run
    assert not make_case("no_final_newline", 0).run.endswith(b"\n")
    assert b"e" in make_case("score_exponent", 0).run.split(b"Q0", 1)[1]
    assert any(len(w) > 16 for w in both("docno_widths").split())
    assert any(len(w) <= 8 for w in both("docno_widths").split())
    assert both("utf8").decode("utf-8") != both("utf8").decode("latin-1")
    assert b".0" in make_case("decimal_labels", 0).qrels
    assert make_case("qrels_only", 0).notes["qrels_only_queries"]
    lines = make_case("many_queries", 0).run.decode().splitlines()
    assert len({line.split()[0] for line in lines}) >= 100
