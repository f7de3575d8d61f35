"""The notebook displays (``_repr_html_``) of EvaluationResult, Comparison and
RankedLists: well-formed HTML, the objects' own numbers as the text reprs
format them, every user string escaped, a size that does not grow with the
queries, and the text reprs left as they were."""

from html.parser import HTMLParser

import numpy as np
from scipy import stats

from skirm.io import Qrels, Run
from skirm.metrics import EvaluationResult, evaluate, from_lists
from skirm.stats import compare

#: The only tags the displays use; none is a void element.
TAGS = {"div", "style", "p", "strong", "sup", "table", "caption"}
TAGS |= {"thead", "tbody", "tr", "th", "td"}
NASTY = '<b>&"'
NASTY_HTML = "&lt;b&gt;&amp;&quot;"


class _Tree(HTMLParser):
    """Checks that every tag opened is closed, in order, and collects the
    text of each table cell (entities decoded) by table caption."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tables, self.paragraphs = [], [], {}, []
        self.roots = 0
        self._rows = None
        self._caption = ""

    def handle_starttag(self, tag, attrs):
        if tag not in TAGS:
            self.errors.append(f"unexpected tag <{tag}>")
        if not self.stack:
            self.roots += 1
        self.stack.append(tag)
        if tag == "table":
            self._rows, self._caption = [], ""
        elif tag == "tr":
            self._rows.append([])
        elif tag in ("td", "th"):
            self._rows[-1].append("")
        elif tag == "p":
            self.paragraphs.append("")

    def handle_startendtag(self, tag, attrs):
        self.errors.append(f"self-closing <{tag}/>")

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()
        if tag == "table":
            self.tables[self._caption] = self._rows

    def handle_data(self, data):
        if "style" in self.stack:
            return
        if "caption" in self.stack:
            self._caption += data
        elif "td" in self.stack or "th" in self.stack:
            self._rows[-1][-1] += data
        elif "p" in self.stack:
            self.paragraphs[-1] += data


def _parse(markup):
    assert isinstance(markup, str)
    tree = _Tree()
    tree.feed(markup)
    tree.close()
    assert tree.errors == []
    assert tree.stack == [], f"left open: {tree.stack}"
    assert tree.roots == 1 and markup.startswith('<div class="skirm-repr">')
    return tree


def _with_nasty_query():
    """Six queries, the first named ``<b>&"``; query 'b' has no relevant row."""
    rows = {
        NASTY: ([1, 0], [2, 1]),  # mrr 1, P@1 1
        "a": ([0, 1], [2, 1]),  # mrr 1/2, P@1 0
        "b": ([0, 0], [1, 2]),  # skipped
        "c": ([0, 0, 1], [3, 2, 1]),  # mrr 1/3, P@1 0
        "d": ([1, 1], [1, 2]),  # mrr 1, P@1 1
        "e": ([0, 1], [1, 2]),  # mrr 1, P@1 1
    }
    y_true = [v for t, _ in rows.values() for v in t]
    y_score = [v for _, s in rows.values() for v in s]
    groups = [q for q, (t, _) in rows.items() for _ in t]
    return evaluate(
        y_true, y_score, groups=groups, metrics=["mrr", "precision@1"],
        no_relevant="skip",
    )  # fmt: skip


def test_evaluation_result_html():
    result = _with_nasty_query()
    markup = result._repr_html_()
    tree = _parse(markup)
    # The text repr, as it was before the HTML display existed.
    assert repr(result) == (
        "EvaluationResult(n_queries=6, n_scored=5, "
        "means={'mrr': 0.7667, 'precision@1': 0.6000})"
    )
    assert tree.paragraphs[1] == "queries: 6"
    summary = tree.tables["Metrics over queries"]
    assert summary[0] == [
        "metric", "mean", "scored", "skipped", "min", "25%", "median", "75%", "max",
    ]  # fmt: skip
    # By hand: mrr of the five scored queries 1, 1/2, 1/3, 1, 1; P@1 1, 0, 0, 1, 1.
    assert summary[1] == [
        "mrr", "0.7667", "5", "1", "0.3333", "0.5000", "1.0000", "1.0000", "1.0000",
    ]  # fmt: skip
    assert summary[2] == [
        "precision@1", "0.6000", "5", "1", "0.0000", "0.0000", "1.0000", "1.0000",
        "1.0000",
    ]  # fmt: skip
    for row in summary[1:]:  # the object's own means, as the text repr prints them
        assert row[1] == f"{result.means[row[0]]:.4f}"
        assert f"'{row[0]}': {row[1]}" in repr(result)
    queries = tree.tables["First 5 of 6 queries"]
    assert queries == [
        ["query", "mrr", "precision@1"],
        [NASTY, "1.0000", "1.0000"],
        ["a", "0.5000", "0.0000"],
        ["b", "nan", "nan"],
        ["c", "0.3333", "0.0000"],
        ["d", "1.0000", "1.0000"],
    ]
    assert NASTY_HTML in markup and "<b>" not in markup


def _big_result(n):
    rng = np.random.default_rng(0)
    ids = np.array([f"query-{i:07d}" for i in range(n)])
    per_query = {"ndcg@10": rng.random(n), "<map>": rng.random(n)}
    per_query["ndcg@10"][::7] = np.nan
    means = {name: float(np.nanmean(v)) for name, v in per_query.items()}
    return EvaluationResult(ids, per_query, means), per_query


def test_evaluation_result_html_is_bounded_for_100k_queries():
    big, per_query = _big_result(100_000)
    markup = big._repr_html_()
    small = _big_result(10)[0]._repr_html_()
    assert len(markup) < 4000
    assert len(markup) <= len(small) + 40  # only wider numbers
    tree = _parse(markup)
    rows = {row[0]: row for row in tree.tables["Metrics over queries"][1:]}
    assert set(rows) == {"ndcg@10", "<map>"} and "&lt;map&gt;" in markup
    values = per_query["ndcg@10"]
    scored = np.sort(values[~np.isnan(values)])
    assert rows["ndcg@10"][2:4] == [str(scored.size), str(100_000 - scored.size)]
    assert rows["ndcg@10"][4] == f"{scored[0]:.4f}"
    assert rows["ndcg@10"][8] == f"{scored[-1]:.4f}"
    assert rows["ndcg@10"][1] == f"{np.mean(scored):.4f}"
    assert len(tree.tables["First 5 of 100000 queries"]) == 6


def test_trec_result_html_names_the_summaries():
    from skirm.trec import evaluate_run

    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.1}, "q2": {"d1": 0.5, "d2": 0.1}}
    result = evaluate_run(qrels, run, ["map", "num_ret", "relstring"])
    tree = _parse(result._repr_html_())
    summary = tree.tables["Metrics over queries"]
    assert summary[0][1] == "summary"
    rows = {row[0]: row for row in summary[1:]}
    assert rows["num_ret"][1] == "4.0000"  # trec_eval's sum, not a mean
    assert rows["relstring"][1:] == ["", "2", "0", "", "", "", "", ""]
    header, first = tree.tables["Queries"][:2]
    assert dict(zip(header, first, strict=True)) == {
        "query": "q1", "map": "1.0000", "num_ret": "2.0000", "relstring": "1-",
    }  # fmt: skip


def test_long_string_values_are_cut():
    values = np.array(["1-" * 100, "<&>"], dtype=object)
    result = EvaluationResult(np.array([3, 4]), {"relstring": values}, {})
    queries = _parse(result._repr_html_()).tables["Queries"]
    assert queries[1] == ["3", "1-" * 19 + "1…"]
    assert queries[2] == ["4", "<&>"]


def _systems():
    rng = np.random.default_rng(0)
    n = 30
    groups = np.repeat(np.arange(n), 8)
    y = rng.choice(3, size=groups.size, p=[0.6, 0.3, 0.1])
    return {
        name: evaluate(
            y, y + rng.normal(0, noise, y.size), groups=groups,
            metrics=["ndcg@5", "map"],
        )
        for name, noise in [("bm25", 2.0), (NASTY, 1.9), ("neural", 0.8)]
    }  # fmt: skip


#: ``str`` and ``repr`` of ``compare(_systems(), baseline="bm25", alpha=0.1)``
#: as they were before the HTML display existed.
COMPARISON_STR = """\
   system  ndcg@5      map
a  bm25    0.7163      0.7258
b  <b>&"   0.6961      0.7059
c  neural  0.8608* >a  0.8492* >a
(* best mean; >x: significantly better than system x)

ndcg@5: <b>&" - bm25 = -0.0202 [-0.1228, +0.0824], d_z -0.07, p 0.69 (adjusted 0.69), W/T/L 13/1/16
map: <b>&" - bm25 = -0.0199 [-0.1321, +0.0923], d_z -0.07, p 0.719 (adjusted 0.719), W/T/L 15/1/14
ndcg@5: neural - bm25 = +0.1445 [+0.0339, +0.2551], d_z +0.49, p 0.0123 (adjusted 0.0245) *, W/T/L 25/0/5
map: neural - bm25 = +0.1234 [+0.0146, +0.2323], d_z +0.42, p 0.0277 (adjusted 0.0553) *, W/T/L 20/4/6

Mean over 30 queries (missing queries: raise). Two-sided paired Student t test, Holm correction over 2 comparisons per metric, significant at adjusted p <= 0.1; 95% t intervals."""  # noqa: E501
COMPARISON_REPR = (
    "Comparison(systems=['bm25', '<b>&\"', 'neural'], metrics=['ndcg@5', 'map'], "
    "test='t', correction='holm', n_queries=30)"
)


def test_comparison_html():
    results = _systems()
    comparison = compare(results, baseline="bm25", alpha=0.1)
    markup = comparison._repr_html_()
    tree = _parse(markup)
    assert str(comparison) == COMPARISON_STR
    assert repr(comparison) == COMPARISON_REPR
    assert NASTY_HTML in markup and "<b>" not in markup
    metrics = ["ndcg@5", "map"]
    means = tree.tables["Means"]
    assert means[0] == ["", "system", *metrics]
    assert [row[:2] for row in means[1:]] == [
        ["a", "bm25 (baseline)"],
        ["b", NASTY],
        ["c", "neural"],
    ]
    base = {m: results["bm25"].per_query[m] for m in metrics}
    pairs = {(row[0], row[1]): row[2:] for row in tree.tables["Differences"][1:]}
    for j, metric in enumerate(metrics):
        # Independently: means, paired t p-values, Holm over the two systems.
        column = {s: np.mean(r.per_query[metric]) for s, r in results.items()}
        best = max(column.values())
        p = {
            s: stats.ttest_rel(results[s].per_query[metric], base[metric]).pvalue
            for s in (NASTY, "neural")
        }
        low, high = sorted(p, key=p.get)
        adjusted = {low: min(1.0, 2 * p[low])}
        adjusted[high] = min(1.0, max(adjusted[low], p[high]))
        for i, system in enumerate(results):
            cell = means[1 + i][2 + j]
            assert cell.startswith(f"{column[system]:.4f}")
            beats = system != "bm25" and adjusted[system] <= 0.1
            beats = beats and column[system] > column["bm25"]
            assert cell.endswith("a") == beats
            bold = f"<strong>{column[system]:.4f}</strong>" in markup
            assert bold == (column[system] == best)
        for system in (NASTY, "neural"):
            diff = results[system].per_query[metric] - base[metric]
            delta, interval, d_z, p_value, p_adj, significant, wtl = pairs[
                (metric, f"{system} - bm25")
            ]
            half = stats.t.ppf(0.975, diff.size - 1) * stats.sem(diff)
            low_high = np.mean(diff) - half, np.mean(diff) + half
            assert interval == "[{:+.4f}, {:+.4f}]".format(*low_high)
            assert delta == f"{np.mean(diff):+.4f}"
            assert d_z == f"{np.mean(diff) / np.std(diff, ddof=1):+.2f}"
            assert p_value == f"{p[system]:.3g}"
            assert p_adj == f"{adjusted[system]:.3g}"
            assert significant == ("*" if adjusted[system] <= 0.1 else "")
            counts = [(diff > 0).sum(), (diff == 0).sum(), (diff < 0).sum()]
            assert wtl == "/".join(map(str, counts))
    method = tree.paragraphs[-1]
    assert "paired Student t test" in method
    assert "Holm correction" in method and "adjusted p <= 0.1;" in method
    assert method == comparison.describe_method()


def test_comparison_html_without_baseline_and_large_n():
    rng = np.random.default_rng(3)
    n = 6000
    ids = np.arange(n)
    results = {
        name: EvaluationResult(ids, {"map": v}, {"map": float(v.mean())})
        for name, v in [("x", rng.random(n)), ("y", rng.random(n) + 0.05)]
    }
    comparison = compare(results, test="sign")
    markup = comparison._repr_html_()
    tree = _parse(markup)
    assert [row[1] for row in tree.tables["Means"][1:]] == ["x", "y"]
    assert len(tree.tables["Differences"]) == 2
    assert "sign test" in tree.paragraphs[-2]
    assert str(n) in tree.paragraphs[-1] and len(markup) < 4000


def _lists(n_extra=0):
    ranked = [
        ["a", "b", "c"],
        list("abcdefghijkl"),  # longer than the grades shown
        ["x", "y"],
        ["m"],
        ["p", "q", "r", "s"],
        ["t", "u"],
        [],
    ]
    truth = [
        {"a": 2, "c": 1, "z": 3},
        {"l": 1, "b": 0},
        {"y": 1},
        {},
        {"q": 1, "s": 2},
        {"v": 1},
        {"w": 1},
    ]
    groups = ["u1", "u0", NASTY, "u3", "u4", "u5", "u6"]
    ranked += [["i"]] * n_extra
    truth += [{"i": 1}] * n_extra
    groups += [f"v{i:06d}" for i in range(n_extra)]
    return ranked, truth, groups


def test_ranked_lists_html():
    ranked, truth, groups = _lists()
    lists = from_lists(ranked, truth, groups=groups)
    markup = lists._repr_html_()
    tree = _parse(markup)
    assert repr(lists) == "RankedLists(n_queries=7, n_listed=24, n_judged=10)"
    assert NASTY_HTML in markup and "<b>" not in markup
    listed = sum(len(r) for r in ranked)
    judged = sum(len(t) for t in truth)
    relevant = sum(g > 0 for t in truth for g in t.values())
    hits = sum(t.get(i, 0) > 0 for r, t in zip(ranked, truth, strict=True) for i in r)
    sizes = sorted(len(r) for r in ranked)
    assert dict(tree.tables["Counts"][1:]) == {
        "lists (queries)": "7",
        "items listed": str(listed),
        "judged ids": str(judged),
        "relevant ids (grade > 0)": str(relevant),
        "relevant items listed": str(hits),
        "empty lists": "1",
        "list size: min / median / max": f"{sizes[0]} / {sizes[3]} / {sizes[-1]}",
    }
    expected = []
    for q in sorted(range(len(groups)), key=groups.__getitem__)[:5]:
        grades = [truth[q].get(i, 0) for i in ranked[q]]
        text = " ".join(map(str, grades[:10])) + (" …" if len(grades) > 10 else "")
        n_relevant = sum(g > 0 for g in truth[q].values())
        expected.append([groups[q], str(len(ranked[q])), str(n_relevant), text])
    rows = tree.tables["First 5 of 7 lists"]
    assert rows[1:] == expected
    assert rows[1][0] == NASTY and rows[2][3] == "0 0 0 0 0 0 0 0 0 0 …"


def test_ranked_lists_html_is_bounded_for_100k_lists():
    n = 100_000
    ranked, truth, groups = _lists(n - 7)
    markup = from_lists(ranked, truth, groups=groups)._repr_html_()
    tree = _parse(markup)
    assert len(markup) < 3000
    assert dict(tree.tables["Counts"][1:])["lists (queries)"] == str(n)
    assert len(tree.tables[f"First 5 of {n} lists"]) == 6


def test_text_repr_of_a_result_with_a_string_measure():
    # Regression: the text repr counted NaNs in every per-query array and
    # raised TypeError on relstring's strings.
    qrels = Qrels(["q1", "q1", "q1"], ["d1", "d2", "d3"], [1, 0, 2])
    run = Run(["q1", "q1", "q1"], ["d1", "d2", "d9"], [0.5, 0.5, 0.9])
    from skirm.trec import evaluate_run

    result = evaluate_run(qrels, run, ["map", "relstring"])
    assert repr(result) == "EvaluationResult(n_queries=1, means={'map': 0.1667})"
