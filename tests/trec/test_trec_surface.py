"""The rest of trec_eval's surface: relstring, yaap, ``-N``, ``-Z``, ``-R qrels_jg``.

Three kinds of checks:

* conformance with trec_eval 10.0's own expected outputs (``out.test.aql``,
  ``out.test.aqZ``, ``out.test.qrels_jg``), from the files vendored in
  ``tests/data/trec_eval`` (unmodified, with NIST's notice ``LICENSE.md``);
* small hand-checked cases and slow reference implementations;
* differential runs of NIST trec_eval 10.0 itself on seeded generated inputs
  (ties, unjudged and negative labels, labels above 9, ``-l 2``, ``-J``,
  ``-M 5``, ``-c``), comparing the printed lines byte for byte. The binary is
  built from the source kept in ``../shared/tools`` (the ``trec_eval_binary``
  fixture); only these tests skip when it cannot be built.

The generated cases use a fixed set of seeds in every run; a longer campaign
(for a release) sets ``SKIRM_FUZZ_CASES``, e.g. ``SKIRM_FUZZ_CASES=10000``,
which runs one case of each generator here per 20 cases asked for.
"""

import io
import json
import math
import os
import subprocess

import numpy as np
import pytest
from _data import TREC_EVAL_DATA
from _trec_fuzz import DIMENSIONS, make_case

from skirm._cli import main
from skirm.io import Prefs, Qrels, QrelsJG, Run, read_prefs, read_qrels_jg
from skirm.trec import ZScores, evaluate_run, read_zscores

DATA = TREC_EVAL_DATA

#: Measures whose values differ between trec_eval 9.0.x and 10.0, or that
#: only 10.0 has: left out where an expected file is compared line by line.
VERSIONED = ("iprec_at_recall", "11pt_avg", "rbp", "rbp_resid", "unj")


def _skirm(argv, capsys):
    status = main(["eval", "--format", "trec", *map(str, argv)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.err == ""
    return captured.out


def _lines(text):
    """``(name, qid, line)`` of each output line; a leading Z is dropped."""
    out = []
    for line in text.splitlines():
        name, qid, _ = line.split("\t")
        out.append((name.rstrip().removeprefix("Z"), qid, line))
    return out


def _base(name):
    return next((v for v in VERSIONED if name.startswith(v)), None)


# --------------------------------------------------------------------------
# trec_eval 10.0's expected outputs
# --------------------------------------------------------------------------


@pytest.mark.oracle
def test_relstring_matches_out_test_aql(capsys):
    """``-m all_trec -mrelstring.20 -q -l2``: the relstring_20 lines."""
    argv = ["-q", "-l", "2", "-m", "relstring.20"]
    got = _lines(
        _skirm([*argv, DATA / "qrels.rel_level", DATA / "results.test"], capsys)
    )
    expected = _lines((DATA / "out.test.aql").read_text())
    want = [e[2] for e in expected if e[0] == "relstring_20"]
    assert len(want) == 3
    assert [g[2] for g in got] == want
    assert want[0].endswith("\t301\t'0000011000000--10101'")


@pytest.mark.oracle
def test_zscores_match_out_test_aqZ(capsys):
    """``-q -m all_trec -Z zscores_file``: every line, in order, but the
    measures whose values depend on the trec_eval version."""
    argv = ["-q", "-m", "all_trec", "-Z", DATA / "zscores_file"]
    got = _lines(_skirm([*argv, DATA / "qrels.test", DATA / "results.test"], capsys))
    expected = _lines((DATA / "out.test.aqZ").read_text())
    want = [e[2] for e in expected if _base(e[0]) is None]
    assert len(want) == len(expected) - 3 * (11 + 1 + 5) - (11 + 1 + 5)
    assert [g[2] for g in got if _base(g[0]) is None] == want
    # the default relstring (10 documents) is printed unconverted, no Z
    assert "relstring             \t302\t'1101110110'" in want


@pytest.mark.oracle
def test_zscored_lines_written_a_query_at_a_time_are_the_same(monkeypatch, capsys):
    """``-q -Z``, its per-query lines formatted one query at a time: the
    same bytes as in one piece (the relstring lines keep no Z)."""
    import skirm._cli._formats

    argv = ["-q", "-m", "all_trec", "-Z", DATA / "zscores_file"]
    files = [DATA / "qrels.test", DATA / "results.test"]
    whole = _skirm([*argv, *files], capsys)
    monkeypatch.setattr(skirm._cli._formats, "LINES_QUERIES", 1)
    assert _skirm([*argv, *files], capsys) == whole
    assert "relstring             \t302\t'1101110110'\n" in whole


@pytest.mark.oracle
def test_qrels_jg_matches_out_test_qrels_jg(capsys):
    """``-m qrels_jg -q -R qrels_jg qrels.123 results.test``, byte for byte."""
    argv = ["-q", "-m", "qrels_jg", "-R", "qrels_jg"]
    got = _skirm([*argv, DATA / "qrels.123", DATA / "results.test"], capsys)
    assert got == (DATA / "out.test.qrels_jg").read_text()


# --------------------------------------------------------------------------
# relstring
# --------------------------------------------------------------------------


def test_relstring_characters():
    labels = [0, 1, 9, 10, 12, -1, 3]
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = Qrels(["q"] * len(docs), docs, labels)
    # ranked d0 .. d6 (scores descending), plus the unjudged u1 in third place
    run = Run(["q"] * 8, [*docs, "u1"], [9, 8, 7, 6, 5, 4, 3, 6.5])
    result = evaluate_run(qrels, run, ["relstring", "P.1"])
    assert result.per_query["relstring"].tolist() == ["019->>.3"]
    assert result.per_query["relstring"].dtype.kind == "U"
    assert result.means == {"P_1": 0.0}  # a string measure has no summary
    # as in trec_eval, explicit parameters replace the default (10 documents)
    result = evaluate_run(qrels, run, ["relstring", "relstring.3", "relstring.0"])
    assert result.metrics == ["relstring_0", "relstring_3"]
    assert result.per_query["relstring_3"].tolist() == ["019"]
    assert result.per_query["relstring_0"].tolist() == [""]
    judged = evaluate_run(qrels, run, "relstring.20", judged_only=True)
    assert judged.per_query["relstring_20"].tolist() == ["019>>3"]  # -J drops both


def test_relstring_in_every_output_format(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    (tmp_path / "run").write_text(
        "q1 Q0 b 1 2.0 r\nq1 Q0 a 2 1.0 r\nq1 Q0 z 3 0.5 r\nq2 Q0 c 1 1.0 r\n"
    )
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    args = ["-q", "-m", "relstring", "-m", "P.1"]
    assert main(["eval", "--format", "json", *args, *files]) == 0
    doc = json.loads(capsys.readouterr().out)[0]
    assert doc["per_query"]["q1"] == {"P_1": 0.0, "relstring": "01-"}
    assert doc["summary"] == {"P_1": 0.5}
    assert main(["eval", "--format", "csv", *args, *files]) == 0
    assert "r,q2,relstring,2\n" in capsys.readouterr().out
    assert main(["eval", "--format", "table", *args, *files]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].split() == ["relstring", "q1", "01-"]  # after P_1 of q1
    assert table[-1].split() == ["P_1", "all", "0.5000"]


# --------------------------------------------------------------------------
# yaap and utility with -N
# --------------------------------------------------------------------------


def _ranked(qrels, run, level=1):
    """Per query: its R and the relevance of each ranked document (slow)."""
    rel = {}
    for q, d, y in zip(qrels.query_ids, qrels.doc_ids, qrels.labels, strict=True):
        rel.setdefault(q, {})[d] = y
    ranked = {}
    for q, d, s in zip(run.query_ids, run.doc_ids, run.scores, strict=True):
        if q in rel:
            ranked.setdefault(q, []).append((s, d))
    out = {}
    for q, items in ranked.items():
        # score descending, then docno descending (byte order): two stable sorts
        items.sort(key=lambda item: item[1].encode(), reverse=True)
        items.sort(key=lambda item: item[0], reverse=True)
        flags = [rel[q].get(d, -1) >= level for _, d in items]
        R = sum(y >= level for y in rel[q].values())
        out[q] = (R, flags)
    return out


def _random_pair(rng, n_queries=8):
    qrels_rows, run_rows = [], []
    for q in range(n_queries):
        n = int(rng.integers(1, 30))
        docs = [f"doc{int(i)}" for i in rng.choice(60, size=n, replace=False)]
        for d in docs:
            if rng.random() < 0.7:
                qrels_rows.append((f"q{q}", d, int(rng.integers(-1, 4))))
            if rng.random() < 0.8:
                run_rows.append((f"q{q}", d, float(rng.integers(0, 6))))
        run_rows.append((f"q{q}", f"extra{q}", float(rng.integers(0, 6))))
    return (
        Qrels(*(list(c) for c in zip(*qrels_rows, strict=True))),
        Run(*(list(c) for c in zip(*run_rows, strict=True))),
    )


@pytest.mark.oracle
@pytest.mark.parametrize("level", [1, 2])
def test_yaap_against_a_slow_reference(level):
    rng = np.random.default_rng(7)
    for _ in range(5):
        qrels, run = _random_pair(rng)
        result = evaluate_run(qrels, run, "yaap", relevance_level=level)
        ranked = _ranked(qrels, run, level)
        for i, q in enumerate(result.group_ids.tolist()):
            R, flags = ranked[q]
            total, found = 0.0, 0
            for rank, is_rel in enumerate(flags, start=1):
                if is_rel:
                    found += 1
                    total += found / rank
            expected = math.log((1 + total) / (1 + R - total))
            assert abs(result.per_query["yaap"][i] - expected) < 1e-12


def test_utility_uses_the_collection_size():
    qrels = Qrels(["q"] * 4, ["a", "b", "c", "d"], [1, 1, 0, 1])
    run = Run(["q"] * 3, ["a", "c", "x"], [3.0, 2.0, 1.0])
    # a = 1 relevant retrieved, b = 2 non-relevant retrieved, c = 2 relevant
    # missed, d = N + a - retrieved - R = 100 + 1 - 3 - 3
    result = evaluate_run(qrels, run, "utility.2,-1,-0.5,0.25", collection_size=100)
    assert result.means["utility_2,-1,-0.5,0.25"] == 2 - 2 - 1 + 0.25 * 95
    default = evaluate_run(qrels, run, "utility")  # 1, -1, 0, 0: N unused
    assert default.means["utility"] == 1 - 2
    with pytest.raises(ValueError, match="`collection_size` must be a non-negative"):
        evaluate_run(qrels, run, "utility", collection_size=-1)
    with pytest.raises(TypeError, match="`collection_size` must be a non-negative"):
        evaluate_run(qrels, run, "utility", collection_size=1.5)


# --------------------------------------------------------------------------
# z-scores
# --------------------------------------------------------------------------


def test_zscores_convert_like_trec_eval():
    z = ZScores(
        ["q1", "q1", "q1", "q2"],
        ["map", "P_5", "num_ret", "map"],
        [0.5, 0.2, 10.0, 0.1],
        [0.25, 0.0, 0.0, 0.1],
    )
    assert z.convert(["q1", "q2", "q3"], "map", [1.0, 0.0, 0.5]).tolist() == [
        2.0,
        -1.0,
        -1000000.0,  # query missing from the file
    ]
    # zero standard deviation: 0 when the value is the mean, else missing
    assert z.convert(["q1", "q1"], "P_5", [0.2, 0.4]).tolist() == [0.0, -1000000.0]
    assert z.convert(["q2"], "P_5", [0.2]).tolist() == [-1000000.0]
    assert z.convert(["q1"], "bpref", [0.2]).tolist() == [-1000000.0]


def test_zscores_in_evaluate_run():
    qrels = Qrels(["q1", "q1", "q2"], ["a", "b", "c"], [1, 0, 1])
    run = Run(["q1", "q1", "q2"], ["a", "b", "x"], [2.0, 1.0, 1.0])
    text = "q1 map 0.5 0.25\nq2 map 0.5 0.5\nq1 num_ret 1 2\nq2 num_ret 1 2\n"
    text += "q1 gm_map -2 1\nq2 gm_map -2 1\n"
    result = evaluate_run(
        qrels, run, ["num_ret", "map", "gm_map"], zscores=io.StringIO(text)
    )
    assert result.zscored
    assert result.per_query["map"].tolist() == [2.0, -1.0]
    assert result.means["map"] == 0.5
    assert result.means["num_ret"] == 0.5 + 0.0  # z-scores are summed
    # gm_map converts log(max(AP, 1e-5)) and takes exp of the mean
    logs = np.array([math.log(1.0) + 2.0, math.log(1e-5) + 2.0])
    assert result.means["gm_map"] == pytest.approx(math.exp(logs.mean()), rel=1e-12)


def test_read_zscores_errors():
    with pytest.raises(ValueError, match=r"<file>:2: too few fields \(3\)"):
        read_zscores(io.StringIO("q1 map 0.1 0.2\nq1 P_5 0.1\n"))
    with pytest.raises(ValueError, match=r"<file>:1: expected a numeric mean"):
        read_zscores(io.StringIO("q1 map mean 0.2\n"))
    with pytest.raises(ValueError, match="'q1' 'map' twice"):
        read_zscores(io.StringIO("q1 map 0.1 0.2\nq1 map 0.3 0.2\n"))
    with pytest.raises(TypeError, match="`means` must be a 1-D sequence of numbers"):
        ZScores(["q1"], ["map"], ["x"], [1.0])


# --------------------------------------------------------------------------
# judgment groups
# --------------------------------------------------------------------------


def test_one_judgment_group_is_the_plain_evaluation():
    rng = np.random.default_rng(3)
    qrels, run = _random_pair(rng)
    groups = QrelsJG(qrels.query_ids, ["g"] * len(qrels), qrels.doc_ids, qrels.labels)
    names = ["map_avgjg", "P_avgjg.3,10", "Rprec_mult_avgjg.0.5,1,1.5"]
    got = evaluate_run(groups, run, names, rel_format="qrels_jg")
    plain = evaluate_run(qrels, run, ["map", "P.3,10", "Rprec_mult.0.5,1,1.5"])
    assert got.group_ids.tolist() == plain.group_ids.tolist()
    for ours, theirs in zip(got.per_query, plain.per_query, strict=True):
        np.testing.assert_array_equal(got.per_query[ours], plain.per_query[theirs])


def test_judgment_groups_are_averaged():
    groups = QrelsJG(
        ["q"] * 4, ["a", "a", "b", "b"], ["d1", "d2", "d1", "d2"], [1, 0, 0, 1]
    )
    run = Run(["q", "q"], ["d1", "d2"], [2.0, 1.0])
    result = evaluate_run(
        groups, run, ["map_avgjg", "P_avgjg.1"], rel_format="qrels_jg"
    )
    # group a: d1 relevant at rank 1 (AP 1); group b: d2 at rank 2 (AP 1/2)
    assert result.means == {"map_avgjg": 0.75, "P_avgjg_1": 0.5}


def test_judgment_group_errors():
    with pytest.raises(ValueError, match="duplicate docno 'd1' in group 'a'"):
        QrelsJG(["q", "q"], ["a", "a"], ["d1", "d1"], [1, 0])
    with pytest.raises(ValueError, match=r"<file>: duplicate docno 'd1'"):
        read_qrels_jg(io.StringIO("q a d1 1\nq b d1 1\nq a d1 0\n"))
    with pytest.raises(ValueError, match="`groups` must be non-empty strings"):
        QrelsJG(["q"], [""], ["d1"], [1])
    qrels = Qrels(["q"], ["d1"], [1])
    run = Run(["q"], ["d1"], [1.0])
    with pytest.raises(TypeError, match="must be judgment groups"):
        evaluate_run(qrels, run, "map_avgjg", rel_format="qrels_jg")
    with pytest.raises(ValueError, match=r"map \(needs rel_format='qrels'\)"):
        evaluate_run(qrels, run, "map", rel_format="qrels_jg")
    with pytest.raises(ValueError, match="`rel_format` must be one of"):
        evaluate_run(qrels, run, "map", rel_format="trec")
    groups = QrelsJG(["q"], ["a"], ["d1"], [1])
    with pytest.raises(TypeError, match="is a QrelsJG: pass rel_format='qrels_jg'"):
        evaluate_run(groups, run, "num_q")


# --------------------------------------------------------------------------
# Against the trec_eval 10.0 binary on generated inputs
# --------------------------------------------------------------------------


QIDS = ["1", "01", "301", "q7", "Q2", "a-b", "x.y"]
DOCS = ["FT9-4225", "FT9-42252", "d", "doc-00", "doc-007", "LA0101-0001", "x#1"]
LABELS = [-1, 0, 0, 0, 1, 1, 2, 3, 10, 12]
ZMEASURES = ["map", "P_5", "num_ret", "num_rel", "gm_map", "yaap", "utility"]


def _docno(rng):
    stem = DOCS[int(rng.integers(len(DOCS)))]
    return f"{stem}{int(rng.integers(0, 40))}" if rng.random() < 0.8 else stem


def _judged(line, q):
    return line.startswith(f"{q} ") and not line.endswith(" -1")


def _generate(seed, drop_a_topic):
    """qrels, qrels_jg, run and z-scores texts: graded and negative labels,
    unjudged and tied documents, a query only in the run; every qrels topic
    is in the run unless ``drop_a_topic``."""
    rng = np.random.default_rng(seed)
    qids = list(rng.choice(QIDS, size=int(rng.integers(2, 6)), replace=False))
    qrels, jg, run, z = [], [], [], []
    for k, q in enumerate(qids):
        pool = sorted({_docno(rng) for _ in range(int(rng.integers(1, 40)))})
        for d in pool:
            if rng.random() < 0.7:
                qrels.append(f"{q} 0 {d} {LABELS[int(rng.integers(len(LABELS)))]}")
        for g in range(int(rng.integers(1, 4))):
            for d in pool:
                if rng.random() < 0.6:
                    jg.append(f"{q} g{g} {d} {int(rng.integers(-1, 4))}")
        # trec_eval 10.0 cannot evaluate a query whose labels are all
        # negative ("Can't calculate measure"): give each one a label >= 0
        if not any(_judged(line, q) for line in qrels):
            qrels.append(f"{q} 0 {q}-judged 1")
        if not any(_judged(line, q) for line in jg):
            jg.append(f"{q} g0 {q}-judged 1")
        if drop_a_topic and k == 0:
            continue
        scores = rng.integers(0, 8, size=len(pool)) / 2  # heavy ties
        for d, s in zip(pool, scores, strict=True):
            if rng.random() < 0.85:
                run.append(f"{q} Q0 {d} 1 {s} run{seed}")
        run.append(f"{q} Q0 unjudged{k} 1 {rng.integers(0, 8) / 2} run{seed}")
        for m in ZMEASURES:
            if rng.random() < 0.85:  # some (query, measure) pairs missing
                mean, sd = rng.normal(0, 3), rng.choice([0.0, rng.uniform(0.1, 2)])
                z.append(f"{q} {m} {mean:.4f} {sd:.4f}")
        # trec_eval's binary search reads past its table for a measure that
        # sorts after every measure of the query: keep one that sorts last
        z.append(f"{q} zzz 0 1")
    run.append(f"zz Q0 d1 1 1 run{seed}")  # a query without judgements
    z.append("~~~ map 0 1")  # and a query that sorts after every other one
    return "\n".join(qrels) + "\n", "\n".join(jg) + "\n", "\n".join(run) + "\n", z


FLAGS = [[], ["-l", "2"], ["-J"], ["-M", "5"], ["-c"]]

#: Seeds of the generated cases: 10, or more for a campaign.
SEEDS = range(max(10, int(os.environ.get("SKIRM_FUZZ_CASES", "0")) // 20))


def _both(binary, argv, capsys):
    done = subprocess.run(
        [binary, *map(str, argv)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return _lines(done.stdout), _lines(_skirm(argv, capsys))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "default")
def test_against_trec_eval(trec_eval_binary, tmp_path, capsys, seed, flags):
    qrels, jg, run, z = _generate(seed, drop_a_topic="-c" in flags)
    for name, text in (("qrels", qrels), ("jg", jg), ("run", run)):
        (tmp_path / name).write_text(text)
    (tmp_path / "z").write_text("\n".join(z) + "\n")
    files = [tmp_path / "qrels", tmp_path / "run"]
    runs = [
        (["-m", "relstring.7", "-m", "yaap", "-m", "utility.2,-1,-0.5,0.25"], files),
        (["-m", "yaap", "-m", "utility", "-N", "5000"], files),
        (["-m", "qrels_jg", "-R", "qrels_jg"], [tmp_path / "jg", tmp_path / "run"]),
        (
            [
                "-Z",
                tmp_path / "z",
                *(x for m in ZMEASURES for x in ("-m", m.replace("_5", ".5"))),
            ],
            files,
        ),
        (
            ["-Z", tmp_path / "z", "-m", "qrels_jg", "-R", "qrels_jg"],
            [tmp_path / "jg", tmp_path / "run"],
        ),
    ]
    compared = 0
    for measures, inputs in runs:
        theirs, ours = _both(
            trec_eval_binary, ["-q", *flags, *measures, *inputs], capsys
        )
        want = [t[2] for t in theirs]
        assert [o[2] for o in ours] == want, measures
        compared += len(want)
    assert compared > 20


# --------------------------------------------------------------------------
# preferences
# --------------------------------------------------------------------------


@pytest.mark.oracle
@pytest.mark.parametrize("prefs_file", ["prefs.test", "prefs.comment.test"])
def test_prefs_match_out_test_prefs(capsys, prefs_file):
    """``-m all_prefs -q -R prefs prefs.test prefs.results.test``."""
    argv = ["-q", "-m", "all_prefs", "-R", "prefs"]
    got = _skirm([*argv, DATA / prefs_file, DATA / "prefs.results.test"], capsys)
    assert got == (DATA / "out.test.prefs").read_text()


@pytest.mark.oracle
def test_qrels_prefs_match_out_test_qrels_prefs(capsys):
    """``-m all_prefs -q -R qrels_prefs qrels.test results.test``."""
    argv = ["-q", "-m", "all_prefs", "-R", "qrels_prefs"]
    got = _skirm([*argv, DATA / "qrels.test", DATA / "results.test"], capsys)
    assert got == (DATA / "out.test.qrels_prefs").read_text()


def test_prefs_small_case():
    # one judgment group, a > b > c; the run ranks b, a and misses c
    prefs = Prefs(["q"] * 3, ["u"] * 3, ["s"] * 3, ["a", "b", "c"], [2, 1, 0])
    run = Run(["q", "q"], ["b", "a"], [2.0, 1.0])
    names = ["prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_simp_ret"]
    result = evaluate_run(prefs, run, [*names, "prefs_pair"], rel_format="prefs")
    # a>b not fulfilled; a>c and b>c fulfilled (implied: c not retrieved)
    assert result.means == {
        "prefs_num_prefs_poss": 3.0,
        "prefs_num_prefs_ful": 2.0,
        "prefs_simp_ret": 0.0,
        "prefs_pair": 2 / 3,
    }


def test_prefs_errors():
    run = Run(["q", "q"], ["a", "b"], [2.0, 1.0])
    # a > b in one sub-group, b > a in another of the same group
    cycle = Prefs(
        ["q"] * 4, ["u"] * 4, ["s1", "s1", "s2", "s2"], ["a", "b", "a", "b"],
        [2, 1, 1, 2],
    )  # fmt: skip
    with pytest.raises(ValueError, match="inconsistent preferences in one judgment"):
        evaluate_run(cycle, run, "prefs_simp", rel_format="prefs")
    zero = Prefs(
        ["q"] * 4, ["u"] * 4, ["s1", "s1", "s2", "s2"], ["a", "b", "a", "c"],
        [0, 1, 2, 1],
    )  # fmt: skip
    with pytest.raises(ValueError, match="'a' has both level 0 and a level above"):
        evaluate_run(zero, run, "prefs_simp", rel_format="prefs")
    with pytest.raises(ValueError, match="duplicate docno 'a' in sub-group 's'"):
        Prefs(["q", "q"], ["u", "u"], ["s", "s"], ["a", "a"], [1, 0])
    with pytest.raises(ValueError, match=r"<file>:1: too few fields \(4\)"):
        read_prefs(io.StringIO("q u a 1\n"))
    prefs = Prefs(["q", "q"], ["u", "u"], ["s", "s"], ["a", "b"], [1, 0])
    with pytest.raises(ValueError, match=r"map \(needs rel_format='qrels'\)"):
        evaluate_run(prefs, run, ["prefs_simp", "map"], rel_format="prefs")
    with pytest.raises(ValueError, match="no query of the run appears in the pref"):
        evaluate_run(prefs, Run(["z"], ["a"], [1.0]), "prefs", rel_format="prefs")


def _generate_prefs(seed):
    """A prefs file (single and multi sub-group groups, consistent by
    construction: each group orders its documents by a hidden value and
    each sub-group shows a monotone transform of it) and a run."""
    rng = np.random.default_rng(seed)
    qids = list(rng.choice(QIDS, size=int(rng.integers(2, 5)), replace=False))
    lines, run = [], []
    for k, q in enumerate(qids):
        pool = sorted({_docno(rng) for _ in range(int(rng.integers(2, 25)))})
        for g in range(int(rng.integers(1, 4))):
            value = {d: int(rng.integers(0, 4)) for d in pool}
            for s in range(int(rng.integers(1, 4))):
                scale = (1.0, 2.5, 0.5)[s]
                docs = [d for d in pool if rng.random() < 0.6]
                for d in docs:
                    lines.append(f"{q} jg{g} s{s} {d} {value[d] * scale}")
        if k == 0 and seed % 2:
            continue  # a query only in the preferences (for -c)
        scores = rng.integers(0, 6, size=len(pool)) / 2  # ties: docno ascending
        for d, score in zip(pool, scores, strict=True):
            if rng.random() < 0.7:
                run.append(f"{q} Q0 {d} 1 {score} r")
        run.append(f"{q} Q0 unjudged{k} 1 1.0 r")
    return "\n".join(lines) + "\n", "\n".join(run) + "\n"


@pytest.mark.oracle
@pytest.mark.parametrize("seed", SEEDS)
def test_prefs_against_trec_eval(trec_eval_binary, tmp_path, capsys, seed):
    prefs, run = _generate_prefs(seed)
    (tmp_path / "prefs").write_text(prefs)
    (tmp_path / "run").write_text(run)
    qrels, _, qrun, _ = _generate(seed, drop_a_topic=False)
    # Not the negative labels: with a level below 0, trec_eval's
    # prefs_avgjg_Rnonrel reads past the lowest level's documents when it
    # has fewer than R (undefined; skirm counts the documents there are).
    qrels = "".join(line for line in qrels.splitlines(True) if " -1\n" not in line)
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "qrun").write_text(qrun)
    compared = 0
    for flags in ([], ["-M", "5"], ["-c"], ["-l", "2", "-J"]):
        if seed % 2 and "-c" not in flags:
            continue  # trec_eval 10.0 stops when a query has no run lines
        for inputs in (
            ["-R", "prefs", "prefs", "run"],
            ["-R", "qrels_prefs", "qrels", "qrun"],
        ):
            files = [tmp_path / name for name in inputs[2:]]
            argv = ["-q", *flags, "-m", "all_prefs", *inputs[:2], *files]
            theirs, ours = _both(trec_eval_binary, argv, capsys)
            want = [t[2] for t in theirs]
            assert [o[2] for o in ours] == want, argv
            compared += len(want)
    assert compared > 14


def test_cli_options_of_the_surface(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "run").write_text("q1 Q0 b 1 2.0 r\nq1 Q0 a 2 1.0 r\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert main(["eval", "-N", "-1", *files]) == 1  # a usage error
    assert "-N must be a non-negative integer, got -1" in capsys.readouterr().err
    assert main(["eval", "-R", "trec", *files]) == 2  # trec_eval's status too
    assert "-R must be one of 'qrels', 'qrels_jg', 'prefs', 'qrels_prefs', got " in (
        capsys.readouterr().err
    )
    # trec_eval reads the files and stops in the measure (exit 4); skirm
    # sees the mismatch in the options first: a usage error.
    assert main(["eval", "-R", "qrels_jg", *files]) == 1  # official: not jg
    assert "needs -R qrels" in capsys.readouterr().err
    # A file that cannot be read: 2 (trec_eval's "Quit in file"; for -Z it
    # returns -1 from main, 255).
    assert main(["eval", "-Z", str(tmp_path / "nope"), *files]) == 2
    assert "cannot read" in capsys.readouterr().err
    args = ["--format", "trec", "-m", "utility.1,-1,0,1", "-N", "10", *files]
    assert main(["eval", *args]) == 0
    # a = 1, b = 1, c = 0, d = 10 + 1 - 2 - 1 = 8
    assert capsys.readouterr().out == "utility_1,-1,0,1      \tall\t8.0000\n"
    (tmp_path / "z").write_text("q1 map 0.5 0.25\n")
    args = ["--format", "json", "-m", "map", "-Z", str(tmp_path / "z"), *files]
    assert main(["eval", *args]) == 0
    doc = json.loads(capsys.readouterr().out)[0]
    assert doc["zscores"] is True and doc["summary"] == {"map": 0.0}


def test_string_measures_are_listed_in_metrics():
    qrels = Qrels(["q"], ["a"], [1])
    run = Run(["q"], ["a"], [1.0])
    result = evaluate_run(qrels, run, ["map", "relstring"])
    assert result.metrics == ["map", "relstring"]
    assert list(result.means) == ["map"]


def test_ndcg_p_is_not_a_trec_eval_10_measure():
    qrels = Qrels(["q"], ["a"], [1])
    run = Run(["q"], ["a"], [1.0])
    with pytest.raises(ValueError, match="'ndcg_p' is not supported: trec_eval has"):
        evaluate_run(qrels, run, "ndcg_p")
    names = evaluate_run(qrels, run, "all_trec").metrics
    assert "ndcg_p" not in names and "yaap" not in names and "relstring" in names


def test_duplicate_run_lines_with_groups_and_preferences(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq1 Q0 a 3 0.5 r\n")
    message = r"run:3: duplicate docno 'a' for query 'q1' \(first at line 1\)"
    for rel_format, measure in (("qrels_jg", "map_avgjg"), ("qrels_prefs", "prefs")):
        with pytest.raises(ValueError, match=message):
            evaluate_run(qrels, run, measure, rel_format=rel_format)
    # below -M the copy is never ranked, as in trec_eval
    result = evaluate_run(
        qrels, run, "prefs_simp", rel_format="qrels_prefs", max_docs=2
    )
    assert result.means == {"prefs_simp": 1.0}


#: The new numeric and string measures, on the real-file traits of the
#: shared generator (tests/_trec_fuzz.py): widths, charsets, CRLF, comments,
#: score formats, ties, duplicates, one-sided queries, graded labels.
FUZZ_MEASURES = ["-m", "relstring.30", "-m", "yaap", "-m", "utility.1,-1,-1,0.5"]


@pytest.mark.oracle
@pytest.mark.parametrize("dimension", DIMENSIONS)
def test_new_measures_on_the_shared_fuzz_cases(
    trec_eval_binary, tmp_path, capsys, dimension
):
    n_lines = 0
    for seed in range(max(2, int(os.environ.get("SKIRM_FUZZ_CASES", "0")) // 100)):
        case = make_case(dimension, seed)
        (tmp_path / "qrels").write_bytes(case.qrels)
        (tmp_path / "run").write_bytes(case.run)
        files = [tmp_path / "qrels", tmp_path / "run"]
        for flags in FLAGS:
            argv = ["-q", *flags, *FUZZ_MEASURES, "-N", "1000", *files]
            done = subprocess.run(
                [trec_eval_binary, *map(str, argv)], capture_output=True, check=False
            )
            status = main(["eval", "--format", "trec", *map(str, argv)])
            out = capsys.readouterr().out.encode("utf-8")
            if done.returncode != 0:  # trec_eval stops: skirm too, same status
                assert status == done.returncode, (dimension, seed, flags, done.stderr)
                continue
            assert status == 0, (dimension, seed, flags)
            assert out == done.stdout, (dimension, seed, flags)
            n_lines += done.stdout.count(b"\n")
    assert n_lines > 0


def test_explicit_parameters_replace_the_defaults():
    qrels = Qrels(["q", "q"], ["a", "b"], [1, 0])
    run = Run(["q", "q"], ["a", "b"], [2.0, 1.0])
    names = evaluate_run(qrels, run, ["all_trec", "P.5", "relstring.20"]).metrics
    assert [n for n in names if n.startswith(("P_", "relstring"))] == [
        "P_5",
        "relstring_20",
    ]
    assert "recall_5" in names and "recall_1000" in names  # other defaults stay
