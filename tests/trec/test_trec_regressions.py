"""Named regression cases of the TREC path, each a small file pair.

Every case was once a silent wrong number or a crash; the expected values
are trec_eval's (10.0, checked with the binary) and pytrec_eval's.
"""

import io
import os
import subprocess
import sys

import numpy as np
import pytest
from _data import ROOT

from skirm._cli import main
from skirm.io import Qrels, Run, read_qrels, read_run
from skirm.io._join import QrelsIndex
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


# --------------------------------------------------------------------------
# The other bugs of issue 9
# --------------------------------------------------------------------------


def test_ndcg_rel_without_a_retrieved_positive_gain():
    # numpy's weighted bincount of nothing is int64: adding floats crashed
    means = _evaluate("q1 0 a 1\n", "q1 Q0 b 1 1.0 r\n", ["ndcg_rel", "Rndcg"])
    assert means == {"ndcg_rel": 0.0, "Rndcg": 0.0}


def test_rndcg_without_a_judged_positive_gain():
    means = _evaluate(
        "q1 0 a 0\n", "q1 Q0 b 1 1.0 r\nq1 Q0 c 2 0.5 r\n", ["ndcg_rel", "Rndcg"]
    )
    assert means == {"ndcg_rel": 0.0, "Rndcg": 0.0}


def test_all_trec_exits_zero_on_those_inputs(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    (tmp_path / "run").write_text("q1 Q0 b 1 1.0 r\n")
    status = main(
        ["eval", "-m", "all_trec", str(tmp_path / "qrels"), str(tmp_path / "run")]
    )
    assert status == 0, capsys.readouterr().err


def test_judged_only_query_left_empty_is_nan_as_in_trec_eval():
    # -J removes q1's only document: trec_eval computes 0 / 0 for the
    # recall cutoffs below one relevant document (lround(0.4 * 1) = 0).
    result = evaluate_run(
        read_qrels(io.StringIO("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n")),
        read_run(io.StringIO("q1 Q0 x 1 1.0 r\nq2 Q0 c 1 1.0 r\n")),
        ["iprec_at_recall", "11pt_avg", "map"],
        judged_only=True,
    )
    q1 = {name: values[0] for name, values in result.per_query.items()}
    nan = [name for name, value in q1.items() if np.isnan(value)]
    assert nan == [f"iprec_at_recall_0.{d}0" for d in range(5)] + ["11pt_avg"]
    assert q1["iprec_at_recall_0.50"] == 0.0 and q1["map"] == 0.0
    assert np.isnan(result.means["11pt_avg"])
    # trec_eval 9.0.x's cutoffs, (long)(x R + 0.9), give NaN at 0.00 only
    nine = evaluate_run(
        read_qrels(io.StringIO("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n")),
        read_run(io.StringIO("q1 Q0 x 1 1.0 r\nq2 Q0 c 1 1.0 r\n")),
        ["iprec_at_recall"],
        judged_only=True,
        compat="9.0",
    )
    values = {name: v[0] for name, v in nine.per_query.items()}
    assert [n for n, v in values.items() if np.isnan(v)] == ["iprec_at_recall_0.00"]


def test_nan_prints_as_trec_eval_prints_it(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "run").write_text("q1 Q0 x 1 1.0 r\n")
    argv = ["eval", "--format", "trec", "-J", "-m", "11pt_avg"]
    status = main([*argv, str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert status == 0
    assert capsys.readouterr().out == "11pt_avg              \tall\t  -nan\n"


def test_run_built_from_arrays_with_a_duplicate_is_rejected():
    # It used to count the relevant d1 twice: num_rel_ret 2, map 0.4167.
    qrels = Qrels(["q1", "q1"], ["d1", "d2"], [1, 1])
    run = Run(["q1", "q1", "q1"], ["d1", "d3", "d1"], [3.0, 2.0, 1.0])
    with pytest.raises(
        ValueError,
        match=r"duplicate docno 'd1' for query 'q1' \(first at row 0\); expected "
        r"each docno once per evaluated query in the run",
    ):
        evaluate_run(qrels, run, ["num_rel_ret", "map", "P_5"])
    dup_qrels = Qrels(["q1", "q1"], ["d1", "d1"], [1, 0])
    with pytest.raises(ValueError, match=r"duplicate docno 'd1' .* in the qrels"):
        evaluate_run(dup_qrels, Run(["q1"], ["d1"], [1.0]), "map")


def test_duplicates_where_trec_eval_accepts_them():
    qrels = "q1 0 a 1\nq1 0 b 0\n"
    # a duplicate in a query that is not evaluated, and one below -M
    run = (
        "q1 Q0 a 1 3.0 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 1.0 r\nq1 Q0 c 4 0.5 r\n"
        "q9 Q0 z 1 1.0 r\nq9 Q0 z 2 1.0 r\n"
    )
    means = _evaluate(qrels, run, ["num_ret", "map"], max_docs=2)
    assert means == {"num_ret": 2.0, "map": 1.0}
    with pytest.raises(ValueError, match=r"<file>:4: duplicate docno 'c'"):
        _evaluate(qrels, run, ["num_ret", "map"], max_docs=4)
    with pytest.raises(ValueError, match=r"<file>:4: duplicate docno 'c'"):
        _evaluate(qrels, run, ["num_ret", "map"])
    # qrels duplicates of a query the run lacks, left out by trec_eval 9.0.x
    means = _evaluate(
        qrels + "q7 0 x 1\nq7 0 x 0\n", run, ["map"], max_docs=2, compat="9.0"
    )
    assert means == {"map": 1.0}


def _three_copies(n_others, seed, line):
    """Lines of one query: ``n_others`` distinct docnos and 'dup' three times
    at random places; ``line(i, docno)`` writes line ``i``. Returns the text
    and the 1-based lines of the three copies."""
    rng = np.random.default_rng(seed)
    at = np.sort(rng.choice(n_others + 3, size=3, replace=False)) + 1
    others = iter(range(n_others))
    lines = [
        line(i, "dup" if i in at else f"d{next(others)}")
        for i in range(1, n_others + 4)
    ]
    return "".join(lines), at.tolist()


@pytest.mark.parametrize("seed", range(12))
def test_a_docno_three_times_in_the_qrels_is_reported_at_its_second_copy(seed):
    # The judgements were sorted on their hashes by an unstable sort, so the
    # three copies of a docno came out in any order and the message could
    # name the third copy (and the first or the second as the earlier one).
    # (a line of another topic after each line: topics not in file order)
    text, (first, second, _) = _three_copies(
        150, seed, lambda i, docno: f"q 0 {docno} {i % 2}\nr 0 e{i} 1\n"
    )
    message = (
        rf"<file>:{2 * second - 1}: duplicate docno 'dup' for query 'q' "
        rf"\(first at line {2 * first - 1}\); expected each docno once per "
        r"evaluated query in the qrels"
    )
    with pytest.raises(ValueError, match=message):
        evaluate_run(read_qrels(io.StringIO(text)), Run(["q"], ["x"], [1.0]), "map")


@pytest.mark.parametrize("seed", range(12))
def test_a_docno_three_times_in_the_run_is_reported_at_its_second_copy(seed):
    # The same for the run: its repeated keys were sorted unstably.
    text, (first, second, _) = _three_copies(
        60, seed, lambda i, docno: f"q Q0 {docno} {i} {-i} r\n"
    )
    message = (
        rf"<file>:{second}: duplicate docno 'dup' for query 'q' "
        rf"\(first at line {first}\); expected each docno once per evaluated "
        r"query in the run"
    )
    with pytest.raises(ValueError, match=message):
        evaluate_run(Qrels(["q"], ["dup"], [1]), read_run(io.StringIO(text)), "map")


@pytest.mark.parametrize(
    "text, label", [("1.0", 1), ("2.", 2), ("-1.00", -1), ("+1", 1), ("0.0", 0)]
)
def test_qrels_labels_written_as_decimals(text, label):
    qrels = read_qrels(io.StringIO(f"q1 0 a {text}\n"))
    assert qrels.labels.tolist() == [label]


def test_qrels_label_with_a_fraction_is_an_error():
    with pytest.raises(
        ValueError, match=r"<file>:1: expected an integer relevance label, got"
    ):
        read_qrels(io.StringIO("q1 0 a 0.5\n"))


def test_ndcg_score_of_one_document_per_query_raises_like_scikit_learn():
    from skirm.metrics import ndcg_score

    with pytest.raises(ValueError, match=r"more than 1 document per query: 2-D"):
        ndcg_score([[1]], [[1]])
    assert ndcg_score([1], [1], groups=[0]) == 1.0  # 1-D: a query of one row


# --------------------------------------------------------------------------
# trec_eval 10.0 reading rules and the 9.0.x option
# --------------------------------------------------------------------------


def test_comment_rules_of_trec_eval_10():
    # runs: a line whose first non-blank character is '#'; qrels: a line
    # starting with '#'. A '#' inside a docno is part of it.
    run = read_run(io.StringIO("  # indented\nq1 Q0 a#1 1 1.0 r\n\t#x\n"))
    assert run.doc_ids.tolist() == ["a#1"]
    qrels = read_qrels(io.StringIO("# c\nq1 0 a#1 1\n #q 0 b 1\n"))
    assert qrels.query_ids.tolist() == ["q1", "#q"]


def test_scores_tie_as_c_floats_only_in_compat_9():
    qrels = "q1 0 d1 1\nq1 0 d2 0\n"
    run = "q1 Q0 d1 1 12.25000004 r\nq1 Q0 d2 2 12.25000001 r\n"
    assert _evaluate(qrels, run, ["recip_rank"]) == {"recip_rank": 1.0}
    nine = _evaluate(qrels, run, ["recip_rank"], compat="9.0")
    assert nine == {"recip_rank": 0.5}  # tied: d2 first (docno descending)


def test_compat_is_checked():
    with pytest.raises(ValueError, match=r"`compat` must be '10.0' .* or '9.0'"):
        _evaluate("q1 0 a 1\n", "q1 Q0 a 1 1 r\n", ["map"], compat="9")


def test_run_from_standard_input(tmp_path, capsys, monkeypatch):
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"q1 Q0 a 1 1 r\n")))
    status = main(
        ["eval", "--format", "trec", "-m", "map", str(tmp_path / "qrels"), "-"]
    )
    assert status == 0
    assert capsys.readouterr().out == "map                   \tall\t1.0000\n"


def test_ids_that_are_not_utf8_are_kept_as_bytes(tmp_path):
    # A Latin-1 file: trec_eval compares and prints the raw bytes.
    (tmp_path / "qrels").write_bytes(b"q\xe9 0 caf\xe9 1\nq\xe9 0 b 0\n")
    (tmp_path / "run").write_bytes(b"q\xe9 Q0 caf\xe9 1 2.0 r\nq\xe9 Q0 b 2 1.0 r\n")
    root = str(ROOT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *sys.path])}
    argv = ["eval", "--format", "trec", "-q", "-m", "map"]
    done = subprocess.run(
        [sys.executable, "-m", "skirm", *argv, str(tmp_path / "qrels"), "-"],
        input=(tmp_path / "run").read_bytes(),
        capture_output=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        b"map                   \tq\xe9\t1.0000\nmap                   \tall\t1.0000\n"
    )


def test_set_map_in_trec_eval_order_of_operations():
    # 7 of 10 retrieved, R = 16: 49 / 160 = 0.30625 prints 0.3063 in
    # trec_eval; (7 / 10) * (7 / 16) is one bit below and printed 0.3062.
    qrels = "".join(f"q 0 r{i} 1\n" for i in range(16))
    run = "".join(f"q Q0 r{i} {i} {20 - i} x\n" for i in range(7))
    run += "".join(f"q Q0 n{i} {i} {10 - i} x\n" for i in range(3))
    result = evaluate_run(
        read_qrels(io.StringIO(qrels)), read_run(io.StringIO(run)), ["set_map"]
    )
    assert result.means["set_map"] == 49 / 160
    assert f"{result.means['set_map']:6.4f}" == "0.3063"


def test_means_are_summed_in_query_order():
    from skirm.trec._measures import summarize

    values = np.array([0.1] * 10 + [0.7, 1e-17, 0.3])
    total = 0.0
    for v in values:  # trec_eval's accumulation
        total += v
    assert summarize("mean", values, len(values), 0) == total / len(values)


def test_query_judged_only_with_negative_labels_is_evaluated():
    # trec_eval 10.0 stops on it ("Can't calculate measure"); skirm scores
    # it as a query without relevant documents.
    means = _evaluate(
        "q1 0 a -1\nq1 0 b -2\nq2 0 c 1\n",
        "q1 Q0 a 1 1 r\nq2 Q0 c 1 1 r\n",
        ["num_rel", "num_nonrel_judged_ret", "map", "bpref"],
    )
    assert means == {
        "num_rel": 1.0,
        "map": 0.5,
        "bpref": 0.5,
        "num_nonrel_judged_ret": 0.0,
    }


def test_placeholder_of_trec_eval_10_can_be_judged():
    # -c ranks "ceci_nest_pas_un_docno" for a query missing from the run;
    # trec_eval 10.0 looks it up in the qrels like any document.
    result = evaluate_run(
        read_qrels(
            io.StringIO(
                "q1 0 a 1\nq2 0 ceci_nest_pas_un_docno 2\nq2 0 b 1\n"
                "q3 0 ceci_nest_pas_un_docno -1\n"
            )
        ),
        read_run(io.StringIO("q1 Q0 a 1 1 r\n")),
        ["num_ret", "num_rel_ret", "map"],
        all_queries=True,
    )
    assert result.per_query["num_ret"].tolist() == [1.0, 0.0, 0.0]
    assert result.per_query["num_rel_ret"].tolist() == [1.0, 1.0, 0.0]
    assert result.per_query["map"].tolist() == [1.0, 0.5, 0.0]
    assert result.means == {"num_ret": 1.0, "num_rel_ret": 2.0, "map": 0.5}


@pytest.mark.parametrize("budget", [1, 2, 3, 5, 1 << 20])
def test_missing_topics_scored_in_blocks_of_judgements(monkeypatch, budget):
    """With ``-c``, the qrels topics the run lacks are scored in blocks of
    about ``budget`` judgements (a topic never split): every value, and the
    summary, equal trec_eval 10.0's ``-c`` semantics computed in one block,
    whatever the block boundaries."""
    import skirm.trec._missing as missing

    rng = np.random.default_rng(budget)
    lines = []
    for t in range(12):
        for d in range(int(rng.integers(1, 5))):
            lines.append(f"t{t:02d} 0 d{d} {int(rng.integers(-1, 3))}\n")
    qrels = read_qrels(io.StringIO("".join(lines)))
    run = read_run(io.StringIO("t03 Q0 d1 1 2 r\nt03 Q0 x 2 1 r\nt07 Q0 d0 1 1 r\n"))

    def evaluate():
        result = evaluate_run(qrels, run, "all_trec", all_queries=True)
        return result.group_ids.tolist(), {
            m: v.tolist() for m, v in result.per_query.items()
        }

    monkeypatch.setattr(missing, "PLACEHOLDER_JUDGEMENTS", 1 << 40)
    expected = evaluate()
    assert len(expected[0]) == 12
    monkeypatch.setattr(missing, "PLACEHOLDER_JUDGEMENTS", budget)
    blocks = missing.placeholder_blocks(
        QrelsIndex(qrels), np.array([f"t{t:02d}" for t in range(12)])
    )
    if budget < 4:
        assert len(blocks) > 1
    assert evaluate() == expected


@pytest.mark.parametrize("streamed", [True, False])
def test_err_of_a_block_left_empty_by_judged_only(tmp_path, monkeypatch, streamed):
    """``-J`` empties a block whose rows are all unjudged: ERR read the
    largest label of no rows (numpy's ValueError), in a run file streamed in
    small blocks and in a run held in memory cut in blocks alike."""
    import skirm.io._run_blocks as run_blocks
    import skirm.trec._inputs as inputs

    qrels = read_qrels(io.StringIO("q1 0 a 2\nq2 0 z 1\n"))
    text = "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 c 1 3.0 r\nq2 Q0 d 2 1.0 r\n"
    path = tmp_path / "run"
    path.write_text(text)
    metrics = ["err@10", "ERR@10", "map"]
    whole = evaluate_run(qrels, read_run(path), metrics, judged_only=True)
    if streamed:
        monkeypatch.setattr(run_blocks, "BLOCK_BYTES", 40)
        got = evaluate_run(qrels, path, metrics, judged_only=True)
    else:
        monkeypatch.setattr(inputs, "MEMORY_BLOCK_ROWS", 2)
        got = evaluate_run(qrels, read_run(path), metrics, judged_only=True)
    assert got.group_ids.tolist() == whole.group_ids.tolist() == ["q1", "q2"]
    for name in metrics:
        np.testing.assert_array_equal(got.per_query[name], whole.per_query[name])
    assert got.per_query["err@10"].tolist()[0] == 0.75  # q1: a at rank 1, grade 2


def test_err_of_a_query_the_run_lacks_under_all_queries_and_judged_only():
    """``-c -J``: the empty ranking of a qrels query the run lacks has no
    row left; ERR read the largest label of none (numpy's ValueError)."""
    qrels = read_qrels(io.StringIO("q1 0 a 2\nq2 0 z 1\n"))
    run = read_run(io.StringIO("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n"))
    result = evaluate_run(
        qrels, run, ["err@10", "map"], all_queries=True, judged_only=True
    )
    assert result.group_ids.tolist() == ["q1", "q2"]
    assert result.per_query["err@10"].tolist() == [0.75, 0.0]
    assert result.per_query["map"].tolist() == [1.0, 0.0]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(
    "levels",
    ["small", "negative", "wide", "past 2**53", "uint64", "floats", "one", "none"],
)
def test_the_ideal_order_is_lexsort_of_code_then_level_descending(levels, seed):
    """The order of the ideal ranking's judgements (by query, then level
    descending, ties in their order) is ``np.lexsort((-levels, codes))``'s,
    whether taken by one integer key or by the two keys: integer levels of
    every width and sign, levels a double cannot tell apart, unsigned ones,
    floats, one judgement, none; codes in any order."""
    from skirm.trec._measures import _by_code_then_descending

    rng = np.random.default_rng(seed)
    n = {"one": 1, "none": 0}.get(levels, int(rng.integers(1, 400)))
    codes = rng.integers(0, int(rng.integers(1, 60)), n).astype(np.intp)
    if seed % 2:
        codes.sort()
    values = {
        "small": lambda: rng.integers(1, 4, n),
        "negative": lambda: rng.integers(-3, 3, n),
        "wide": lambda: rng.integers(-(2**62), 2**62, n),
        "past 2**53": lambda: 2**53 + rng.integers(0, 4, n),
        "uint64": lambda: rng.integers(0, 2**64 - 1, n, dtype=np.uint64),
        "floats": lambda: rng.random(n).round(1),
        "one": lambda: rng.integers(1, 3, n),
        "none": lambda: rng.integers(1, 3, n),
    }[levels]()
    before = codes.copy(), values.copy()
    order = _by_code_then_descending(codes, values)
    want = np.lexsort((-values.astype(np.float64), codes))
    # the same query and the same level (as a double) at every place; exactly
    # lexsort's order where the levels are doubles apart
    assert codes[order].tolist() == codes[want].tolist()
    g = values.astype(np.float64)
    assert g[order].tolist() == g[want].tolist()
    if levels == "past 2**53":  # integers apart that one double holds
        ints = sorted(
            (int(c), -int(v), i)
            for i, (c, v) in enumerate(zip(codes, values, strict=True))
        )
        assert order.tolist() == [i for _, _, i in ints]
    else:  # lexsort's order (keys past 63 bits: lexsort itself)
        assert order.tolist() == want.tolist()
    np.testing.assert_array_equal(codes, before[0])
    np.testing.assert_array_equal(values, before[1])
