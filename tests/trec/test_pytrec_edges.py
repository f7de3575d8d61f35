"""The edges of the pytrec_eval drop-in and of the TREC doors' inputs
(issue 51): names pytrec_eval does not know, labels that are not integers
of 64 bits, and ids that differ by trailing NUL characters.

The tests read the public functions only (``RelevanceEvaluator``,
``evaluate_run``, ``skirm.io.as_qrels``) and compare them with pytrec_eval
where it answers.
"""

from __future__ import annotations

import numpy as np
import pytest

import skirm
from skirm import trec
from skirm.metrics import UnknownMeasureError

pytrec_eval = pytest.importorskip("pytrec_eval")
pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

_RUN = {"1": {"a": 2.0, "b": 1.0, "c": 0.5}, "2": {"d": 1.0}}


# --------------------------------------------------------------------------
# 8. Names and labels
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, hint",
    [
        ("ndcg_cut10", "ndcg_cut.10"),
        ("map_cut10", "map_cut.10"),
        ("P10", "P.10"),
        ("recall5", "recall.5"),
    ],
)
def test_regression_a_cutoff_without_its_separator_is_an_unknown_name(name, hint):
    # 'ndcg_cut10' was read as ndcg with the parameters 'cut10': "malformed
    # parameters in 'ndcg.cut10'", a name the user never typed. pytrec_eval
    # says "unsupported measure ndcg_cut10".
    with pytest.raises(ValueError, match=f"unsupported measure {name}"):
        pytrec_eval.RelevanceEvaluator({"1": {"a": 1}}, {name})
    with pytest.raises(
        UnknownMeasureError,
        match=rf"^unknown measure '{name}' \(did you mean '{hint}'\?\)",
    ):
        trec.RelevanceEvaluator({"1": {"a": 1}}, {name})


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["P_5", "ndcg_cut_10", "P_5,10", "set_F_0.5"])
def test_parameters_after_an_underscore_are_still_read(name):
    qrels = {"1": {"a": 1, "b": 2}, "2": {"d": 0}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {name}).evaluate(_RUN)
    got = trec.RelevanceEvaluator(qrels, {name}).evaluate(_RUN)
    assert got.keys() == want.keys()
    for query, values in want.items():
        assert got[query] == pytest.approx(values), query


@pytest.mark.parametrize(
    "label, match",
    [
        ("x", r"numbers, got 'x' for query '1', document 'b'"),
        (None, r"numbers, got None for query '1', document 'b'"),
        (1.5, r"integers, got 1.5 for query '1', document 'b'"),
        (float("nan"), r"not be NaN, got NaN for query '1', document 'b'"),
    ],
)
def test_a_label_that_is_not_an_integer_is_named_with_its_query(label, match):
    # numpy's "could not convert string to float" or an internal `labels`
    # message named neither the argument nor the query
    qrels = {"1": {"a": 1, "b": label}, "2": {"d": 1}}
    with pytest.raises(skirm.InvalidInputError, match=f"^`query_relevance`: .*{match}"):
        trec.RelevanceEvaluator(qrels, {"P_5"})
    with pytest.raises(skirm.InvalidInputError, match=f"^`qrels`: .*{match}"):
        trec.evaluate_run(qrels, _RUN, ["P_5"])
    with pytest.raises(skirm.InvalidInputError, match=f"^`qrels`: .*{match}"):
        trec.calc_aggregate(["P@5"], qrels, _RUN)


# --------------------------------------------------------------------------
# 11. Labels past 64 bits; ids that differ by trailing NULs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("label", [10**20, 2**63, -(2**63) - 1])
def test_regression_a_label_past_int64_is_refused(label):
    # The dicts path wrapped 10**20 to a negative int64 (num_rel 0) with a
    # numpy warning only. pytrec_eval refuses it too (OverflowError, as a
    # SystemError); it crashes, hangs or gives 0 for labels from 2**31 on,
    # so skirm's refusal starts where 64-bit integers end.
    qrels = {"1": {"a": label, "b": 1}}
    match = (
        r"relevance values must fit in 64-bit integers \(trec_eval reads C "
        rf"longs\), got {label} for query '1', document 'a'"
    )
    with pytest.raises(skirm.InvalidInputError, match=f"^`query_relevance`: {match}"):
        trec.RelevanceEvaluator(qrels, {"num_rel", "P_5"})
    for shape in (qrels, [("1", "a", label), ("1", "b", 1)]):
        with pytest.raises(skirm.InvalidInputError, match=f"^`qrels`: {match}"):
            trec.evaluate_run(shape, _RUN, ["num_rel"])
    frame = pd.DataFrame(
        {"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [label, 1]}
    )
    if label > 0:  # pandas holds 2**63 as uint64 and 10**20 as objects
        with pytest.raises(skirm.InvalidInputError, match=f"^`qrels`: {match}"):
            trec.evaluate_run(frame, _RUN, ["num_rel"])
    if label == 10**20:
        with pytest.raises((OverflowError, SystemError)):
            pytrec_eval.RelevanceEvaluator(qrels, {"num_rel"})


@pytest.mark.parametrize("label", [2**53 + 1, 2**62 + 1, 2**63 - 1, -(2**63)])
def test_regression_large_labels_within_64_bits_read_the_same_on_every_path(label):
    # the dicts path read labels through doubles: 2**63 - 1 became 2**63,
    # cast back to int64 with a numpy warning (2**53 + 1 became 2**53)
    qrels = {"1": {"a": label, "b": 1, "c": 0}, "2": {"d": 1}}
    measures = ["num_rel", "P_5", "map", "ndcg", "recip_rank"]
    dicts = trec.evaluate_run(qrels, _RUN, measures)
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    listed = trec.evaluate_run(rows, _RUN, measures)
    evaluator = trec.RelevanceEvaluator(qrels, set(measures)).evaluate(_RUN)
    for m in measures:
        assert np.array_equal(dicts.per_query[m], listed.per_query[m]), m
        assert [evaluator[q][m] for q in ("1", "2")] == listed.per_query[m].tolist()


def _nul_shapes():
    """Qrels and a run whose query ids and docnos differ from others only by
    trailing NULs, in each container."""
    qrels_rows = [("a", "d1", 1), ("a\x00", "d2", 1), ("b", "d3\x00", 1)]
    run_rows = [("a", "d1", 1.0), ("a\x00", "d2", 0.5), ("b", "d3", 2.0)]
    qrels_dict, run_dict = {}, {}
    for q, d, g in qrels_rows:
        qrels_dict.setdefault(q, {})[d] = g
    for q, d, s in run_rows:
        run_dict.setdefault(q, {})[d] = s
    qf = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    rf = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    return {
        "tuples": (qrels_rows, run_rows),
        "dicts": (qrels_dict, run_dict),
        "pandas": (qf, rf),
        "arrow": (pa.Table.from_pandas(qf), pa.Table.from_pandas(rf)),
    }


@pytest.mark.parametrize("shape", list(_nul_shapes()))
def test_regression_ids_differing_by_trailing_nuls_are_one_id(shape):
    # The dicts path kept 'a' and 'a\x00' apart (two queries, printed as
    # 'a' twice; RelevanceEvaluator returned one of them under 'a'), where
    # every other container makes them one, as numpy's str arrays do.
    qrels, run = _nul_shapes()[shape]
    measures = ["num_q", "num_rel", "num_rel_ret", "P_5", "map"]
    want = trec.evaluate_run(*_nul_shapes()["tuples"], measures)
    assert want.group_ids.tolist() == ["a", "b"]
    assert want.per_query["num_rel"].tolist() == [2.0, 1.0]
    got = trec.evaluate_run(qrels, run, measures)
    assert got.group_ids.tolist() == ["a", "b"]
    for m in measures:
        np.testing.assert_array_equal(got.per_query[m], want.per_query[m])
    values = trec.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    assert sorted(values) == ["a", "b"]
    for m in measures:
        assert [values[q][m] for q in ("a", "b")] == got.per_query[m].tolist()


# --------------------------------------------------------------------------
# 16. pytrec_eval's module functions
# --------------------------------------------------------------------------


def test_supported_measures_and_nicknames_are_pytrec_eval_s():
    assert trec.supported_measures == pytrec_eval.supported_measures
    assert trec.supported_measures is trec.RelevanceEvaluator.supported_measures
    for nick, names in trec.supported_nicknames.items():
        assert names == pytrec_eval.supported_nicknames[nick], nick


def _qrels_lines(rng, n_queries=6):
    lines = []
    for q in rng.permutation(n_queries):  # queries in no order
        for d in rng.permutation(15)[: int(rng.integers(1, 15))]:
            lines.append(f"q{q} 0 d{d} {int(rng.integers(-1, 4))}\n")
    return lines


def _run_lines(rng, n_queries=6):
    lines = []
    for q in range(n_queries):
        for rank, d in enumerate(rng.permutation(20)[: int(rng.integers(1, 20))]):
            score = float(
                rng.choice([rng.normal(), 1.5, 0.0, -2.25, 1e-300, 12.25000004])
            )
            lines.append(f"q{q} Q0 d{d} {rank} {score!r} run\n")
    return lines


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(5))
def test_parse_qrel_and_parse_run_equal_pytrec_eval(seed, tmp_path):
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = _qrels_lines(rng), _run_lines(rng)
    want_qrels = pytrec_eval.parse_qrel(qrels_lines)
    want_run = pytrec_eval.parse_run(run_lines)
    (tmp_path / "qrels").write_text("".join(qrels_lines))
    (tmp_path / "run").write_text("".join(run_lines))
    stripped = [line.rstrip("\n") for line in qrels_lines]
    with open(tmp_path / "qrels") as f_qrel, open(tmp_path / "run") as f_run:
        shapes = [
            (qrels_lines, run_lines),
            (stripped, [line.rstrip("\n") for line in run_lines]),
            (iter(qrels_lines), iter(run_lines)),
            (f_qrel, f_run),
        ]
        for f_qrel_given, f_run_given in shapes:
            got_qrels = trec.parse_qrel(f_qrel_given)
            got_run = trec.parse_run(f_run_given)
            # the same dicts, the same order, the same types
            assert list(got_qrels.items()) == list(want_qrels.items())
            assert list(got_run.items()) == list(want_run.items())
            assert {type(v) for docs in got_qrels.values() for v in docs.values()} == {
                int
            }
            assert type(got_qrels) is type(want_qrels)
    measures = {"map", "ndcg_cut.10", "P.5", "recip_rank", "num_rel_ret"}
    want = pytrec_eval.RelevanceEvaluator(want_qrels, measures).evaluate(want_run)
    got = trec.RelevanceEvaluator(got_qrels, measures).evaluate(got_run)
    assert got.keys() == want.keys()
    for q in want:
        assert got[q] == pytest.approx(want[q], abs=1e-12)


def test_parse_refuses_what_pytrec_eval_asserts_on():
    # pytrec_eval raises AssertionError on a document twice in a query
    with pytest.raises(AssertionError):
        pytrec_eval.parse_qrel(["q1 0 d1 1", "q1 0 d1 0"])
    with pytest.raises(
        trec.DuplicateDocnoError,
        match=r"^`f_qrel`: duplicate docno 'd1' for query 'q1'; expected each",
    ):
        trec.parse_qrel(["q2 0 d1 1", "q1 0 d1 1", "q1 0 d2 0", "q1 0 d1 0"])
    with pytest.raises(
        trec.DuplicateDocnoError, match=r"^`f_run`: duplicate docno 'd1' for query 'q1'"
    ):
        trec.parse_run(["q1 Q0 d1 1 2.0 r", "q1 Q0 d1 2 1.0 r"])
    with pytest.raises(skirm.io.TrecFormatError, match=r"^f_qrel:2: too few fields"):
        trec.parse_qrel(["q1 0 d1 1", "q1 0 d2"])
    with pytest.raises(skirm.io.TrecFormatError, match=r"^f_run:1: "):
        trec.parse_run(["q1 Q0 d1 1 high r"])
    with pytest.raises(skirm.InvalidParameterError, match=r"^`f_run` must be an"):
        trec.parse_run(42)
    with pytest.raises(skirm.InvalidInputError, match=r"^`f_qrel` must hold lines"):
        trec.parse_qrel([b"q1 0 d1 1"])
    assert trec.parse_qrel([]) == pytrec_eval.parse_qrel([])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
def test_compute_aggregated_measure_equals_pytrec_eval(seed):
    rng = np.random.default_rng(seed)
    qrels = pytrec_eval.parse_qrel(_qrels_lines(rng, 12))
    run = pytrec_eval.parse_run(_run_lines(rng, 12))
    results = pytrec_eval.RelevanceEvaluator(
        qrels, pytrec_eval.supported_measures
    ).evaluate(run)
    names = sorted(next(iter(results.values())))
    for name in names:
        values = [q[name] for q in results.values()]
        want = pytrec_eval.compute_aggregated_measure(name, values)
        assert trec.compute_aggregated_measure(name, values) == want, name


def test_compute_aggregated_measure_refuses_what_it_cannot_summarise():
    with pytest.raises(UnknownMeasureError, match=r"^unknown measure 'mapp'"):
        trec.compute_aggregated_measure("mapp", [0.5])
    with pytest.raises(skirm.InvalidInputError, match=r"^`values` must hold"):
        trec.compute_aggregated_measure("map", [])
    with pytest.raises(skirm.InvalidInputError, match=r"^`values` must be per-query"):
        trec.compute_aggregated_measure("map", [0.5, "x"])
    with pytest.raises(skirm.InvalidParameterError, match=r"^`measure` must be"):
        trec.compute_aggregated_measure(None, [0.5])


#: Every character ``str.split()`` splits at but LF (pytrec_eval reads a line
#: by ``line.split()``), and control bytes it does not split at.
_PY_SPACES = [chr(c) for c in range(0x3001) if chr(c).isspace() and c != 10]
_KEPT = ["\x01", "\x08", "\x0e", "\x1b", "\x7f"]


@pytest.mark.oracle
@pytest.mark.parametrize("char", _PY_SPACES + _KEPT, ids=lambda c: f"U+{ord(c):04X}")
def test_parse_splits_lines_where_pytrec_eval_splits(char, tmp_path):
    """Regression: the lines were split at trec_eval's separators (C's
    isspace()), where pytrec_eval's ``line.split()`` also splits at the
    control bytes 28-31 and Unicode's spaces: ``'q1 0 d1\\x1c 1'`` gave the
    docno ``'d1\\x1c'`` against pytrec_eval's ``'d1'`` (seen failing)."""
    space = char.isspace()
    qrels = [f"q1 0 d1{char} 1", f"q1{char if space else ' '}0 d2 0"]
    run = [f"q1 Q0 d1{char} 1 2.5 r", f"q1 Q0 d2 2{char if space else ' '}1.5 r"]
    if not space:  # inside an id: part of it
        qrels.append(f"q1 0 d{char}3 2")
        run.append(f"q1 Q0 d{char}3 3 0.5 r")
    want_qrels, want_run = pytrec_eval.parse_qrel(qrels), pytrec_eval.parse_run(run)
    assert dict(trec.parse_qrel(qrels)) == dict(want_qrels)
    assert dict(trec.parse_run(run)) == dict(want_run)
    if char == "\r":  # a file's line ends there (pytrec_eval: too few fields)
        return
    path = tmp_path / "qrels"
    path.write_text("\n".join(qrels) + "\n", encoding="utf-8", newline="")
    with open(path, encoding="utf-8", newline="") as f:
        want = pytrec_eval.parse_qrel(f)
    with open(path, encoding="utf-8", newline="") as f:
        assert dict(trec.parse_qrel(f)) == dict(want)


@pytest.mark.parametrize(
    "keys",
    [
        ("ndcg_cut_10", "P_10", "map"),
        ("a",),
        ("P_5", "P_5", "map"),  # a key twice: its last value
        ("x", "}: 0, 'y", "v0", "k1", "lambda", "\x00"),  # names never source
    ],
    ids=["usual", "one", "twice", "odd"],
)
def test_output_dicts_of_each_query_are_those_of_zip(keys):
    from skirm.trec._pytrec import _dict_of

    values = [float(i) for i in range(len(keys))]
    got = _dict_of(keys)(*values)
    want = dict(zip(keys, values, strict=True))
    assert got == want
    assert list(got) == list(want)
