"""Seeded generator of TREC qrels/run file pairs for differential testing.

Each case varies one dimension of real files away from a plain baseline
(a few queries, short alphanumeric docnos, single spaces, LF line ends,
distinct decimal scores, binary labels): docno widths across the 8 and
16 byte word boundaries with shared prefixes, character sets, UTF-8,
query ids, whitespace, CRLF, blank lines, comments, a missing final
newline, score formats, ties, duplicate lines, documents or queries on one
side only, graded and negative labels, decimal labels, long rankings and
many queries, control bytes in ids. ``make_case(dimension, seed)`` is
deterministic.

The files stay inside what trec_eval 10.0 reads the same way as skirm:
qrels get no blank lines and no two comment lines in a row (trec_eval
reads the second one as data), a qrels file never ends on a comment, and
no query is judged with negative labels only (trec_eval cannot evaluate
it).
:func:`parse_reference` is a slow, obvious reader of these files used to
build the dicts given to pytrec_eval, independent of skirm's readers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

DIMENSIONS = (
    "baseline",
    "docno_widths",
    "charset",
    "utf8",
    "qid_zeros",
    "qid_long",
    "whitespace",
    "crlf",
    "blank_lines",
    "comments",
    "no_final_newline",
    "score_ints",
    "score_negative",
    "score_exponent",
    "score_huge",
    "score_digits",
    "ties",
    "float32_ties",
    "duplicates",
    "run_only",
    "qrels_only",
    "graded",
    "negative_labels",
    "decimal_labels",
    "many_docs",
    "many_queries",
    "control_bytes",  # (new dimensions go last: a case is seeded by its index)
    "score_repr",
    "score_exponent",
)

_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
_CHARSET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:"
#: Control bytes that are no separator to trec_eval (C's isspace() takes
#: only space, tab, LF, VT, FF and CR); Python's ``str.split`` does split
#: at 28-31.
_CONTROL = ["\x01", "\x02", "\x07", "\x08", "\x0e", "\x1b", "\x1c", "\x1f", "\x7f"]
_UTF8 = ["é", "ß", "ü", "ø", "日", "本", "語", "ж", "λ", "🙂", "a", "b", "1", "-"]


@dataclass
class Case:
    """One generated pair of files."""

    name: str
    dimension: str
    qrels: bytes
    run: bytes
    notes: dict = field(default_factory=dict)


@dataclass
class _Query:
    qid: str
    run: list  # [(docno, score text)]
    qrels: list  # [(docno, label text)]


def _word(rng, alphabet, lo, hi):
    n = int(rng.integers(lo, hi + 1))
    return "".join(alphabet[i] for i in rng.integers(0, len(alphabet), size=n))


def _docnos(rng, dimension, n):
    """``n`` distinct docnos of the dimension's shape."""
    out, seen = [], set()
    base = _word(rng, _ALNUM, 40, 40)
    while len(out) < n:
        if dimension == "docno_widths":
            # shared prefixes of every width, across the 8/16 byte words
            width = int(rng.choice([1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 32, 40]))
            d = base[:width]
            if rng.random() < 0.5:
                d = d[:-1] + _ALNUM[int(rng.integers(len(_ALNUM)))]
        elif dimension == "charset":
            d = _word(rng, _CHARSET, 1, 20)
        elif dimension == "utf8":
            d = _word(rng, _UTF8, 1, 12)
        elif dimension == "control_bytes":  # ids that differ by a control byte
            d = base[: int(rng.integers(1, 10))] + _word(rng, _CONTROL, 0, 2)
        elif dimension == "comments" and rng.random() < 0.3:
            d = f"msmarco_v2.1_doc_{rng.integers(100):02d}#{rng.integers(1000)}"
        else:
            d = "D" + _word(rng, "0123456789", 1, 8)
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def _qids(rng, dimension, n):
    out, seen = [], set()
    while len(out) < n:
        if dimension == "qid_zeros":
            q = "0" * int(rng.integers(0, 3)) + str(int(rng.integers(1, 12)))
        elif dimension == "qid_long":
            q = _word(rng, _CHARSET, 20, 60)
        elif dimension == "utf8":
            q = _word(rng, _UTF8, 1, 6)
        elif dimension == "control_bytes":
            q = str(int(rng.integers(1, 4))) + _word(rng, _CONTROL, 0, 1)
        elif rng.random() < 0.5:
            q = str(int(rng.integers(1, 1000)))
        else:
            q = "q" + _word(rng, _ALNUM, 1, 6)
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


def _scores(rng, dimension, n):
    """Score texts for one query."""
    if dimension == "score_ints":
        return [str(int(v)) for v in rng.integers(-50, 1000, size=n)]
    if dimension == "score_negative":
        return [f"{v:.4f}" for v in -rng.random(n) * 100]
    if dimension == "score_exponent":
        e = rng.integers(-8, 8, size=n)
        m = rng.random(n) * 9 + 1
        return [
            f"{a:.3f}{'e' if rng.random() < 0.5 else 'E'}{b:+d}"
            for a, b in zip(m, e, strict=False)
        ]
    if dimension == "score_huge":
        pool = ["1e300", "-1e300", "1.7e308", "3.5e38", "-3.5e38", "1e-300", "0"]
        return [
            str(rng.choice(pool)) if rng.random() < 0.4 else f"{rng.random() * 1e6:.2f}"
            for _ in range(n)
        ]
    if dimension == "score_digits":
        return [f"{v:.18f}" for v in rng.random(n)]
    if dimension == "score_repr":  # Python's repr of doubles: up to 17 digits
        values = (rng.random(n) - 0.3) * 10.0 ** rng.integers(-5, 5, size=n)
        tied = rng.random(n) < 0.2  # some equal to the one before
        values[1:][tied[1:]] = values[:-1][tied[1:]]
        return [repr(float(v)) for v in values]
    if dimension == "score_exponent":  # repr below 1e-4 and above 1e16, %e, E
        values = rng.random(n) * 10.0 ** rng.integers(-12, 20, size=n)
        values *= rng.choice([1.0, -1.0], size=n, p=[0.8, 0.2])
        tied = rng.random(n) < 0.2  # some equal to the one before
        values[1:][tied[1:]] = values[:-1][tied[1:]]
        forms = rng.integers(0, 3, size=n)
        return [
            repr(float(v)) if k == 0 else f"{v:e}" if k == 1 else f"{v:.15E}"
            for v, k in zip(values.tolist(), forms.tolist(), strict=True)
        ]
    if dimension == "ties":
        return [str(v) for v in rng.integers(0, 3, size=n)]
    if dimension == "float32_ties":
        # equal as C floats (trec_eval 9.0.x), distinct as doubles (10.0)
        pool = ["12.25000004", "12.25000001", "12.25", "3.0000001", "3.00000004"]
        return [str(rng.choice(pool)) for _ in range(n)]
    return [f"{v:.6f}" for v in rng.random(n) * 20]


def _labels(rng, dimension, n):
    if dimension == "graded":
        return [str(v) for v in rng.choice([0, 0, 1, 2, 3, 4], size=n)]
    if dimension == "negative_labels":
        return [str(v) for v in rng.choice([-2, -1, -1, 0, 0, 1, 2], size=n)]
    if dimension == "decimal_labels":
        pool = ["0", "1", "2", "1.0", "0.0", "2.00", "-1.0", "3."]
        return [str(rng.choice(pool)) for _ in range(n)]
    return [str(v) for v in rng.choice([0, 0, 1], size=n)]


def _model(rng, dimension):
    """Queries with their run and qrels entries (before rendering)."""
    if dimension == "many_queries":
        n_queries = int(rng.integers(100, 501))
    elif dimension == "many_docs":
        n_queries = int(rng.integers(1, 4))
    else:
        n_queries = int(rng.integers(1, 7))
    queries = []
    for qid in _qids(rng, dimension, n_queries):
        if dimension == "many_docs":
            n_pool = int(rng.integers(1, 2001))
        elif dimension == "many_queries":
            n_pool = int(rng.integers(1, 12))
        else:
            n_pool = int(rng.integers(1, 40))
        pool = _docnos(rng, dimension, n_pool)
        in_run = rng.random(n_pool) < 0.75
        judged = rng.random(n_pool) < 0.7
        in_run[int(rng.integers(n_pool))] = True  # every query retrieves
        judged[int(rng.integers(n_pool))] = True  # and is judged
        run_docs = [d for d, r in zip(pool, in_run, strict=False) if r]
        scores = _scores(rng, dimension, len(run_docs))
        q_docs = [d for d, j in zip(pool, judged, strict=False) if j]
        labels = _labels(rng, dimension, len(q_docs))
        if all(label.startswith("-") for label in labels):
            labels[0] = "0"  # trec_eval fails on a query judged only negative
        queries.append(
            _Query(
                qid,
                list(zip(run_docs, scores, strict=False)),
                list(zip(q_docs, labels, strict=False)),
            )
        )
    return queries


def _add_one_sided(rng, dimension, queries, notes):
    """Queries only in the run (ignored) or only in the qrels."""
    extra = _qids(rng, "baseline", len(queries) + 2)
    extra = [q for q in extra if q not in {x.qid for x in queries}][:2]
    if dimension == "run_only":
        for qid in extra:
            docs = _docnos(rng, "baseline", 5)
            queries.append(
                _Query(qid, list(zip(docs, _scores(rng, "", 5), strict=False)), [])
            )
        notes["run_only_queries"] = extra
    elif dimension == "qrels_only":
        for qid in extra[:1]:
            docs = _docnos(rng, "baseline", 4)
            queries.append(
                _Query(qid, [], list(zip(docs, _labels(rng, "", 4), strict=False)))
            )
        notes["qrels_only_queries"] = extra[:1]


def _add_duplicates(rng, queries, notes):
    """Duplicate run lines where trec_eval accepts them (a query missing
    from the qrels; below rank 5 for ``-M 5``), sometimes where it does not."""
    kind = str(rng.choice(["unevaluated", "below_m", "evaluated", "qrels"]))
    notes["duplicates"] = kind
    q = queries[int(rng.integers(len(queries)))]
    if kind == "unevaluated":
        docs = _docnos(rng, "baseline", 3)
        queries.append(
            _Query(
                "unjudged_topic",
                [(docs[0], "1.0"), (docs[0], "2.0"), (docs[1], "0.5")],
                [],
            )
        )
    elif kind == "below_m":
        top = [(f"top{i}", f"{100 + i}.5") for i in range(5)]
        q.run.extend(top)
        q.run.extend([("lowdup", "-5.0"), ("lowdup", "-6.0")])
    elif kind == "evaluated":
        d, s = q.run[0]
        q.run.append((d, s))
    else:
        d, label = q.qrels[0]
        q.qrels.append((d, label))


def _render(rows, rng, dimension, *, qrels):
    """The lines of one file as bytes, in the dimension's style."""
    eol = "\r\n" if dimension == "crlf" else "\n"
    lines = []
    for fields in rows:
        if dimension == "whitespace":
            seps = [str(rng.choice([" ", "  ", "\t", " \t", "\t\t"])) for _ in fields]
            lead = str(rng.choice(["", " ", "\t"]))
            trail = str(rng.choice(["", " ", "\t ", "  "]))
            text = (
                lead
                + "".join(f + s for f, s in zip(fields, seps, strict=False))[
                    : -len(seps[-1])
                ]
            )
            lines.append(text + trail)
        else:
            lines.append(" ".join(fields))
    if dimension == "blank_lines" and not qrels:
        for _ in range(max(1, len(lines) // 5)):
            at = int(rng.integers(0, len(lines) + 1))
            lines.insert(at, str(rng.choice(["", " ", "\t", "  \t"])))
    if dimension == "comments":
        n = max(1, len(lines) // 6)
        for _ in range(n):
            at = int(rng.integers(0, len(lines)))  # never after the last line
            if qrels:
                text = "# judged by assessor " + _word(rng, _ALNUM, 0, 8)
                if (at > 0 and lines[at - 1].startswith("#")) or (
                    at < len(lines) and lines[at].startswith("#")
                ):
                    continue  # trec_eval reads a second comment line as data
            else:
                text = str(
                    rng.choice(["#", "# comment", "#q1 Q0 d 1 1.0 r", "  # indented"])
                )
            lines.insert(at, text)
    body = eol.join(lines)
    if dimension != "no_final_newline":
        body += eol
    return body.encode("utf-8")


def _judgment_groups(rng, rows):
    """The qrels rows of a judgment-groups file (``-R qrels_jg``): each
    judgement in one of up to three groups (the second column), some also
    judged in another group, by another label of the same file."""
    names = ["a", "b", "g3"][: int(rng.integers(1, 4))]
    labels = [label for *_, label in rows]
    out = []
    for qid, _, docno, label in rows:
        group = str(rng.choice(names))
        out.append([qid, group, docno, label])
        others = [n for n in names if n != group]
        if others and rng.random() < 0.3:
            again = labels[int(rng.integers(len(labels)))]
            out.append([qid, str(rng.choice(others)), docno, again])
    return out


def make_case(dimension, seed, *, groups=False):
    """The generated :class:`Case` of one dimension and seed; with
    ``groups``, its qrels a judgment-groups file (``-R qrels_jg``), the
    groups drawn from a generator of their own (the run is the same)."""
    if dimension not in DIMENSIONS:
        raise ValueError(f"unknown dimension {dimension!r}; known: {DIMENSIONS}")
    rng = np.random.default_rng([DIMENSIONS.index(dimension), seed])
    notes = {}
    queries = _model(rng, dimension)
    if dimension in ("run_only", "qrels_only"):
        _add_one_sided(rng, dimension, queries, notes)
    if dimension == "duplicates":
        _add_duplicates(rng, queries, notes)
    run_id = "run" + _word(rng, _ALNUM, 1, 5)
    run_rows, qrels_rows = [], []
    for q in queries:
        for d, s in q.run:
            rank = str(int(rng.integers(0, 1000)))
            run_rows.append([q.qid, "Q0", d, rank, s, run_id])
        for d, label in q.qrels:
            qrels_rows.append([q.qid, "0", d, label])
    if groups:
        jg_rng = np.random.default_rng([DIMENSIONS.index(dimension), seed, 1])
        qrels_rows = _judgment_groups(jg_rng, qrels_rows)
    # files are usually grouped by query, not always sorted
    if rng.random() < 0.3:
        rng.shuffle(run_rows)
    if rng.random() < 0.3:
        rng.shuffle(qrels_rows)
    return Case(
        name=f"{dimension}-{seed}" + ("-jg" if groups else ""),
        dimension=dimension,
        qrels=_render(qrels_rows, rng, dimension, qrels=True),
        run=_render(run_rows, rng, dimension, qrels=False),
        notes=notes,
    )


def cases(n_per_dimension, *, first_seed=0):
    """``n_per_dimension`` cases of every dimension."""
    for seed in range(first_seed, first_seed + n_per_dimension):
        for dimension in DIMENSIONS:
            yield make_case(dimension, seed)


# --------------------------------------------------------------------------
# A slow, obvious reader (trec_eval 10.0's rules) for the pytrec_eval side
# --------------------------------------------------------------------------


def _lines(data):
    return data.decode("utf-8").split("\n")


def parse_reference(qrels_bytes, run_bytes):
    """``(qrels dict, run dict, run has duplicates, qrels has duplicates)``.

    Runs skip blank lines and lines whose first non-blank character is
    ``#``; qrels skip lines starting with ``#``. Labels are read as C's
    ``atol`` does; scores as ``float``.
    """
    qrels, run = {}, {}
    dup_q = dup_r = False
    for line in _lines(qrels_bytes):
        if not line.strip(" \t\r") or line.startswith("#"):
            continue
        qid, _, doc, label = _fields(line)
        value = int(label.split(".")[0])
        dup_q |= doc in qrels.setdefault(qid, {})
        qrels[qid][doc] = value
    for line in _lines(run_bytes):
        stripped = line.strip(" \t\r")
        if not stripped or stripped.startswith("#"):
            continue
        qid, _, doc, _, score = _fields(line)[:5]
        dup_r |= doc in run.setdefault(qid, {})
        run[qid][doc] = float(score)
    return qrels, run, dup_r, dup_q


def _fields(line):
    """The fields of a line as trec_eval splits it: at C's isspace() bytes
    only (``str.split`` would also split at the control bytes 28-31)."""
    return [f for f in line.translate(_SPACES).split(" ") if f]


_SPACES = {9: " ", 10: " ", 11: " ", 12: " ", 13: " "}


def as_dicts(qrels, run):
    """pytrec_eval's dicts of dicts of ``Qrels`` and ``Run`` records, built
    row by row in plain Python (the slow obvious way)."""
    qd, rd = {}, {}
    for q, d, label in zip(
        qrels.query_ids.tolist(),
        qrels.doc_ids.tolist(),
        qrels.labels.tolist(),
        strict=True,
    ):
        qd.setdefault(q, {})[d] = label
    for q, d, s in zip(
        run.query_ids.tolist(), run.doc_ids.tolist(), run.scores.tolist(), strict=True
    ):
        rd.setdefault(q, {})[d] = s
    return qd, rd
