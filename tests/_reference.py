"""A slow, obviously-correct reference implementation of every registered metric.

Written from the definitions in the metric table (issue 2, section 3), not from
the engine: plain Python loops over queries and over ranked positions, one
explicit ordering at a time. ``ties="average"`` is the mean over every ordering
of the rows with equal scores, enumerated with ``itertools.permutations``
within each tie block and ``itertools.product`` over the blocks (equal label
sequences are counted with their multiplicity, which changes nothing in the
mean but keeps the enumeration cheap). Meant for small inputs only.

Public helpers:

``query_value(name, ranked, k=None, **params)``
    The value of one query whose labels are given in rank order.
``reference_per_query(name, y_true, y_score, groups, ...)``
    ``(group_ids, values, empty)`` with the ``no_relevant`` policy not applied.
``reference_score(name, y_true, y_score, groups, ...)``
    The (weighted) mean over queries, raising ``ValueError`` where skirm must.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

#: Registry name -> the options the metric takes (with their defaults).
OPTIONS = {
    "ndcg": {"gain": "linear"},
    "dcg": {"gain": "linear", "log_base": 2.0},
    "cg": {"gain": "linear"},
    "precision": {"relevance_threshold": None},
    "recall": {"relevance_threshold": None},
    "r_cap": {"relevance_threshold": None},
    "f1": {"relevance_threshold": None},
    "hit_rate": {"relevance_threshold": None},
    "r_precision": {"relevance_threshold": None},
    "mrr": {"relevance_threshold": None},
    "map": {"relevance_threshold": None, "denominator": "R"},
    "err": {"max_grade": None},
    "rbp": {"relevance_threshold": None, "p": 0.8},
    "judged": {},
    "accuracy": {"relevance_threshold": None},
    "compat": {"p": 0.95, "normalize": True},
}
#: The C/W/L measures: one user model, a continuation rule each.
CWL = {
    "inst": ("T",),
    "insq": ("T",),
    "bpm": ("T",),
    "nerr8": (),
    "nerr9": (),
    "nerr10": ("p",),
    "nerr11": ("T",),
    "sdcg": (),
}
_CWL_DEFAULTS = {"T": 1.0, "p": 0.9}
for _name, _own in CWL.items():
    OPTIONS[_name] = {
        "measure": _name,
        **{key: _CWL_DEFAULTS[key] for key in _own},
        "min_rel": 0.0,
        "max_rel": None,
        "depth": 1000,
    }
CWL_CUT = {"bpm", "nerr8", "nerr9", "sdcg"}
TAKES_K = {
    name: name not in ("r_precision", "compat") and (name not in CWL or name in CWL_CUT)
    for name in OPTIONS
}
GRADED = {"ndcg", "dcg", "cg", "err", "compat", *CWL}


# --------------------------------------------------------------------------
# One query, one ordering
# --------------------------------------------------------------------------


def gain_of(label, gain="linear"):
    if gain == "linear":
        return float(label)
    if gain == "exponential":
        return 2.0 ** float(label) - 1.0
    raise ValueError(gain)


def is_relevant(label, relevance_threshold=None):
    if relevance_threshold is None:
        return label > 0
    return label >= relevance_threshold


def top(ranked, k):
    return list(ranked) if k is None else list(ranked)[:k]


def dcg(ranked, k=None, gain="linear", log_base=2.0):
    total = 0.0
    for i, label in enumerate(top(ranked, k), start=1):
        total += gain_of(label, gain) / (math.log(i + 1) / math.log(log_base))
    return total


def ndcg(ranked, k=None, gain="linear"):
    ideal = dcg(sorted(ranked, reverse=True), k, gain)
    if ideal == 0:
        return 0.0
    return dcg(ranked, k, gain) / ideal


def cg(ranked, k=None, gain="linear"):
    return sum(gain_of(label, gain) for label in top(ranked, k))


def n_relevant(ranked, relevance_threshold=None):
    return sum(1 for label in ranked if is_relevant(label, relevance_threshold))


def hits(ranked, k=None, relevance_threshold=None):
    return n_relevant(top(ranked, k), relevance_threshold)


def precision(ranked, k=None, relevance_threshold=None):
    depth = len(ranked) if k is None else k
    return hits(ranked, k, relevance_threshold) / depth


def recall(ranked, k=None, relevance_threshold=None):
    R = n_relevant(ranked, relevance_threshold)
    return 0.0 if R == 0 else hits(ranked, k, relevance_threshold) / R


def r_cap(ranked, k=None, relevance_threshold=None):
    R = n_relevant(ranked, relevance_threshold)
    if R == 0:
        return 0.0
    return hits(ranked, k, relevance_threshold) / (R if k is None else min(k, R))


def f1(ranked, k=None, relevance_threshold=None):
    p = precision(ranked, k, relevance_threshold)
    r = recall(ranked, k, relevance_threshold)
    return 0.0 if p + r == 0 else 2.0 * p * r / (p + r)


def hit_rate(ranked, k=None, relevance_threshold=None):
    return 1.0 if hits(ranked, k, relevance_threshold) > 0 else 0.0


def r_precision(ranked, relevance_threshold=None):
    R = n_relevant(ranked, relevance_threshold)
    return 0.0 if R == 0 else hits(ranked, R, relevance_threshold) / R


def mrr(ranked, k=None, relevance_threshold=None):
    for i, label in enumerate(top(ranked, k), start=1):
        if is_relevant(label, relevance_threshold):
            return 1.0 / i
    return 0.0


def average_precision(ranked, k=None, relevance_threshold=None, denominator="R"):
    R = n_relevant(ranked, relevance_threshold)
    if R == 0:
        return 0.0
    found = 0
    total = 0.0
    for i, label in enumerate(top(ranked, k), start=1):
        if is_relevant(label, relevance_threshold):
            found += 1
            total += found / i  # precision@i at a relevant rank
    if denominator == "R" or k is None:
        return total / R
    return total / min(k, R)


def err(ranked, k=None, max_grade=3.0):
    not_stopped = 1.0
    total = 0.0
    for i, label in enumerate(top(ranked, k), start=1):
        satisfied = (2.0 ** float(label) - 1.0) / 2.0**max_grade
        total += not_stopped * satisfied / i
        not_stopped *= 1.0 - satisfied
    return total


def rbp(ranked, k=None, relevance_threshold=None, p=0.8):
    total = 0.0
    for i, label in enumerate(top(ranked, k), start=1):
        if is_relevant(label, relevance_threshold):
            total += p ** (i - 1)
    return (1.0 - p) * total


def judged(ranked, k=None):
    """Share of the top min(k, n) labels that are not NaN (unjudged)."""
    shown = top(ranked, k)
    if not shown:
        return 0.0
    return sum(label == label for label in shown) / len(shown)


def _continue(measure, i, gain, seen, cut, T, p):
    """The C/W/L continuation after rank ``i`` (from 1): gain ``gain`` there,
    ``seen`` gathered so far (rank ``i`` included), cutoff ``cut``."""
    if measure == "inst":
        wanted = T - seen
        return ((i + T + wanted - 1.0) / (i + T + wanted)) ** 2
    if measure == "insq":
        return ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2
    if measure == "nerr10":
        return p * (1.0 - gain)
    if measure == "nerr11":
        return ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2 * (1.0 - gain)
    if i >= cut:
        return 0.0
    if measure == "bpm":
        return 1.0 if seen < T else 0.0
    if measure == "nerr8":
        return 1.0 - gain
    if measure == "nerr9":
        return i / (i + 1.0) * (1.0 - gain)
    return math.log2(i + 1) / math.log2(i + 2)  # sdcg


def cwl(ranked, k=None, *, measure, T=1.0, p=0.9, min_rel=0.0, max_rel, depth=1000):
    """Expected utility per item read: sum_i P_i g_i / sum_i P_i, with
    P_i the probability of reaching rank i; read to ``depth`` ranks, padded
    with gain 0."""
    gains = [
        (min(max(label, min_rel), max_rel) - min_rel) / (max_rel - min_rel)
        for label in ranked[:depth]
    ]
    gains += [0.0] * (depth - len(gains))
    cut = depth if k is None else min(k, depth)
    reach, seen, utility, attention = 1.0, 0.0, 0.0, 0.0
    for i, gain in enumerate(gains, start=1):
        utility += reach * gain
        attention += reach
        seen += gain
        reach *= _continue(measure, i, gain, seen, cut, T, p)
    return utility / attention


def accuracy(ranked, k=None, relevance_threshold=None):
    """1 - (pairs with the non-relevant row above) / (R_k N_k), top k rows."""
    shown = top(ranked, k)
    rel = [is_relevant(label, relevance_threshold) for label in shown]
    n_rel, n_non = sum(rel), len(rel) - sum(rel)
    if n_rel == 0:
        return 0.0
    if n_non == 0:
        return 1.0
    misordered = sum(
        sum(1 for above in rel[:i] if not above) for i, r in enumerate(rel) if r
    )
    return 1.0 - misordered / (n_rel * n_non)


def compat(ranked, p=0.95, normalize=True):
    """Rank-biased overlap with the ideal (relevant rows by grade, then in
    the ranking's order), over the ideal's own when ``normalize``."""
    docs = list(range(len(ranked)))
    ideal = sorted((d for d in docs if ranked[d] > 0), key=lambda d: -ranked[d])
    depth = max(len(docs), len(ideal))

    def rbo(run, ideal_list):
        seen_run, seen_ideal = set(), set()
        total, norm, weight = 0.0, 0.0, 1.0
        for i in range(depth):
            if i < len(run):
                seen_run.add(run[i])
            if i < len(ideal_list):
                seen_ideal.add(ideal_list[i])
            total += weight * len(seen_run & seen_ideal) / (i + 1)
            norm += weight
            weight *= p
        return total / norm if norm else 0.0

    value = rbo(docs, ideal)
    if normalize:
        best = rbo(ideal, ideal)
        if best > 0:
            value /= best
    return value


_FUNCTIONS = {
    "ndcg": ndcg,
    "dcg": dcg,
    "cg": cg,
    "precision": precision,
    "recall": recall,
    "r_cap": r_cap,
    "f1": f1,
    "hit_rate": hit_rate,
    "r_precision": r_precision,
    "mrr": mrr,
    "map": average_precision,
    "err": err,
    "rbp": rbp,
    "judged": judged,
    "accuracy": accuracy,
    "compat": compat,
    **dict.fromkeys(CWL, cwl),
}


def query_value(name, ranked, k=None, **params):
    """One query's metric value; ``ranked`` holds its labels in rank order."""
    options = {**OPTIONS[name], **params}
    if name == "err" and options["max_grade"] is None:
        options["max_grade"] = float(max(ranked))
    if name in CWL and options["max_rel"] is None:
        options["max_rel"] = cwl_max_rel(ranked, options["min_rel"])
    if TAKES_K[name]:
        return _FUNCTIONS[name](list(ranked), k, **options)
    return _FUNCTIONS[name](list(ranked), **options)


def cwl_max_rel(labels, min_rel):
    """The default ``max_rel``: the largest label (above ``min_rel``)."""
    top = float(max(labels))
    return top if top > min_rel else min_rel + 1.0


def query_is_empty(name, labels, relevance_threshold=None):
    """Whether ``no_relevant`` applies: no relevant row (graded: no label > 0);
    for judged, no row at all."""
    if name == "judged":
        return len(labels) == 0
    if name in GRADED:
        return not any(label > 0 for label in labels)
    return not any(is_relevant(label, relevance_threshold) for label in labels)


# --------------------------------------------------------------------------
# Orderings of one query under a tie policy
# --------------------------------------------------------------------------


def orderings(labels, scores, ties="average"):
    """Label sequences in rank order with their probabilities.

    ``labels`` and ``scores`` are one query's rows in input order. Returns a
    list of ``(ranked_labels, probability)``.
    """
    rows = list(range(len(labels)))
    if ties == "first":
        ranked = sorted(rows, key=lambda i: -scores[i])  # sorted() is stable
        return [(tuple(labels[i] for i in ranked), 1.0)]
    if ties == "optimistic":
        ranked = sorted(rows, key=lambda i: (-scores[i], -labels[i]))
        return [(tuple(labels[i] for i in ranked), 1.0)]
    if ties == "pessimistic":
        ranked = sorted(rows, key=lambda i: (-scores[i], labels[i]))
        return [(tuple(labels[i] for i in ranked), 1.0)]
    if ties != "average":
        raise ValueError(ties)
    by_score = sorted(rows, key=lambda i: -scores[i])
    blocks = [
        [labels[i] for i in block]
        for _, block in itertools.groupby(by_score, key=lambda i: scores[i])
    ]
    # Every ordering of the rows within each block, counted by label sequence.
    block_counts = [Counter(itertools.permutations(block)) for block in blocks]
    n_orderings = math.prod(math.factorial(len(block)) for block in blocks)
    out = []
    for parts in itertools.product(*(counts.items() for counts in block_counts)):
        ranked = tuple(label for seq, _ in parts for label in seq)
        count = math.prod(c for _, c in parts)
        out.append((ranked, count / n_orderings))
    return out


def expected_query_value(name, labels, scores, ties="average", k=None, **params):
    """The metric's value of one query, averaged over its tie orderings."""
    return sum(
        prob * query_value(name, ranked, k, **params)
        for ranked, prob in orderings(labels, scores, ties)
    )


# --------------------------------------------------------------------------
# Many queries
# --------------------------------------------------------------------------


def split_queries(y_true, y_score, groups):
    """``{group id: (labels, scores, row indices)}`` keeping input order."""
    queries = {}
    for i, g in enumerate(groups):
        labels, scores, idx = queries.setdefault(g, ([], [], []))
        labels.append(float(y_true[i]))
        scores.append(float(y_score[i]))
        idx.append(i)
    return queries


def reference_per_query(
    name, y_true, y_score, groups, *, k=None, ties="average", **params
):
    """``(group_ids, values, empty)``: per-query values before ``no_relevant``."""
    params = {key: value for key, value in params.items() if key in OPTIONS[name]}
    if name == "err" and params.get("max_grade") is None:
        # The default maximum grade is the largest label of the whole input.
        params["max_grade"] = float(max(float(v) for v in y_true))
    if name in CWL and params.get("max_rel") is None:
        params["max_rel"] = cwl_max_rel(
            [float(v) for v in y_true], params.get("min_rel", 0.0)
        )
    queries = split_queries(y_true, y_score, groups)
    group_ids = sorted(queries)
    values, empty = [], []
    for g in group_ids:
        labels, scores, _ = queries[g]
        values.append(
            expected_query_value(
                name, labels, scores, ties, k if TAKES_K[name] else None, **params
            )
        )
        empty.append(query_is_empty(name, labels, params.get("relevance_threshold")))
    return group_ids, values, empty


def apply_no_relevant(values, empty, no_relevant=0.0, weights=None):
    """Mean over queries under the ``no_relevant`` policy.

    Raises ValueError for ``"raise"`` with an empty query and for ``"skip"``
    when every query is empty.
    """
    if weights is None:
        weights = [1.0] * len(values)
    kept_values, kept_weights = [], []
    for value, is_empty, weight in zip(values, empty, weights, strict=True):
        if is_empty:
            if no_relevant == "raise":
                raise ValueError("a query has no relevant row")
            if no_relevant == "skip":
                continue
            value = float(no_relevant)
        kept_values.append(value)
        kept_weights.append(weight)
    if not kept_values:
        raise ValueError("every query is skipped")
    total = sum(kept_weights)
    if total <= 0:
        raise ValueError("the weights sum to zero")
    return sum(w * v for w, v in zip(kept_weights, kept_values, strict=True)) / total


def query_weights(group_ids, groups, sample_weight):
    """One weight per query: the weight of its first row."""
    if sample_weight is None:
        return None
    first = {}
    for g, w in zip(groups, sample_weight, strict=True):
        first.setdefault(g, float(w))
    return [first[g] for g in group_ids]


def reference_score(
    name,
    y_true,
    y_score,
    groups,
    *,
    k=None,
    ties="average",
    no_relevant=0.0,
    sample_weight=None,
    **params,
):
    """The metric as skirm's public function defines it, computed slowly."""
    group_ids, values, empty = reference_per_query(
        name, y_true, y_score, groups, k=k, ties=ties, **params
    )
    weights = query_weights(group_ids, groups, sample_weight)
    return apply_no_relevant(values, empty, no_relevant, weights)


# --------------------------------------------------------------------------
# The measures of impression logs (issue 50): per query, a value and the
# weight of the query in the metric's own mean, from explicit orderings.
# --------------------------------------------------------------------------


def _orderings(rows, scores, labels, ties):
    """Every ordering of ``rows`` (score descending) the tie policy allows,
    each equally likely: all orderings of each tie block for "average", the
    input order ("first"), higher labels first ("optimistic") or last."""
    by_score = {}
    for r in rows:
        by_score.setdefault(scores[r], []).append(r)
    blocks = [by_score[s] for s in sorted(by_score, reverse=True)]
    if ties == "average":
        for choice in itertools.product(*(itertools.permutations(b) for b in blocks)):
            yield [r for block in choice for r in block]
        return
    out = []
    for block in blocks:
        if ties == "optimistic":
            block = sorted(block, key=lambda r: (-labels[r], r))
        elif ties == "pessimistic":
            block = sorted(block, key=lambda r: (labels[r], r))
        out.extend(block)
    yield out


def _undefined(one_class):
    return math.nan if one_class == "skip" else float(one_class)


def _entropy_of(rate):
    if rate <= 0.0 or rate >= 1.0:
        return 0.0
    return -(rate * math.log(rate) + (1.0 - rate) * math.log(1.0 - rate))


def _query_weight(weights, n, clicks, pairs):
    return {"impressions": n, "clicks": clicks, "pairs": pairs, "uniform": 1.0}[weights]


def impression_query(name, order, y, s, prop, k=None, **o):
    """``(value, weight)`` of one query ranked in ``order`` (row indices),
    from the definitions, one loop at a time. ``y`` the labels, ``s`` the
    scores, ``prop`` the propensities; ``o`` the measure's options."""
    t = o.get("relevance_threshold")
    rel = {r: (y[r] > 0 if t is None else y[r] >= t) for r in order}
    n, R = len(order), sum(rel.values())
    depth = n if k is None else min(k, n)
    top = order[:depth]
    if name == "gauc":
        pairs = R * (n - R)
        mis = sum(
            1
            for i, a in enumerate(order)
            for b in order[i + 1 :]
            if rel[b] and not rel[a]
        )
        value = _undefined(o["one_class"]) if pairs == 0 else 1.0 - mis / pairs
        return value, _query_weight(o["weights"], n, R, pairs)
    if name == "fallout":
        N = n - R
        value = (
            _undefined(o["one_class"]) if N == 0 else sum(not rel[r] for r in top) / N
        )
        return value, 1.0
    if name == "opa":
        pairs = sum(
            1 for i, a in enumerate(order) for b in order[i + 1 :] if y[a] != y[b]
        )
        mis = sum(1 for i, a in enumerate(order) for b in order[i + 1 :] if y[a] < y[b])
        value = _undefined(o["one_class"]) if pairs == 0 else 1.0 - mis / pairs
        return value, _query_weight(o["weights"], n, sum(y[r] for r in order), pairs)
    if name == "arp":
        total = sum(y[r] for r in order)
        value = (
            _undefined(o["one_class"])
            if total == 0
            else sum(y[r] * (i + 1) for i, r in enumerate(order)) / total
        )
        npos = sum(1 for r in order if y[r] > 0)
        return value, _query_weight(o["weights"], n, total, npos * (n - npos))
    if name in ("ne", "pcoc"):
        p = [min(max(s[r], 1e-12), 1 - 1e-12) for r in order]
        if name == "pcoc":
            predicted = sum(s[r] for r in order)
            value = _undefined(o["one_class"]) if R == 0 else predicted / R
            return value, _query_weight(o["weights"], n, R, R * (n - R))
        loss = (
            -sum(
                math.log(q) if rel[r] else math.log(1.0 - q)
                for r, q in zip(order, p, strict=True)
            )
            / n
        )
        rate = R / n if o["base_rate"] == "group" else o["base_rate"]
        h = _entropy_of(rate)
        value = _undefined(o["one_class"]) if h == 0 else loss / h
        return value, _query_weight(o["weights"], n, R, R * (n - R))
    if name == "ece":
        n_bins = o["n_bins"]
        gaps = [0.0] * n_bins
        for r in top:
            b = min(
                int(sum(1 for j in range(1, n_bins + 1) if s[r] >= j / n_bins)),
                n_bins - 1,
            )
            gaps[b] += s[r] - rel[r]
        value = sum(abs(g) for g in gaps) / len(top)
        clicks = sum(rel[r] for r in top)
        return value, _query_weight(
            o["weights"], len(top), clicks, clicks * (len(top) - clicks)
        )
    v = {r: (1.0 / prop[r] if rel[r] else 0.0) for r in order}
    disc = [1.0 / math.log2(i + 2) for i in range(n)]
    if name in ("psp", "psndcg"):
        best = sorted((v[r] for r in order), reverse=True)[:depth]
        if name == "psp":
            num, den = sum(v[r] for r in top), sum(best)
            weight = den
        else:
            num = sum(v[r] * disc[i] for i, r in enumerate(top))
            den = sum(b * disc[i] for i, b in enumerate(best))
            ideal = sum(disc[i] for i in range(min(R, depth)))
            weight = den / ideal if ideal else 0.0
        value = min(num / den, 1.0) if den > 0 else 0.0
        return value, weight if o["average"] == "micro" else 1.0
    total = sum(v.values())
    if name == "ips_precision":
        return sum(v[r] for r in top) / (n if k is None else k), 1.0
    if name == "ips_recall":
        return (sum(v[r] for r in top) / total if total else 0.0), 1.0
    if name == "ips_dcg":
        value = sum(v[r] * disc[i] for i, r in enumerate(top))
    else:  # ips_rbp
        p = o["p"]
        value = (1 - p) * sum(v[r] * p**i for i, r in enumerate(top))
    if o.get("estimator") == "snips":
        value = value / total if total else 0.0
    return value, 1.0


def impression_reference(
    name,
    y_true,
    y_score,
    groups,
    *,
    k=None,
    ties="average",
    propensity=None,
    sample_weight=None,
    **options,
):
    """``(group_ids, values, weights, mean)``: each query's value (the mean
    over its allowed orderings) and weight, and the weighted mean over the
    queries not left out. ``base_rate="overall"`` is the click rate of all
    rows (weighted by ``sample_weight``)."""
    n = len(y_true)
    prop = [1.0] * n if propensity is None else list(propensity)
    sw = [1.0] * n if sample_weight is None else list(sample_weight)
    if options.get("base_rate") == "overall":
        t = options.get("relevance_threshold")
        rel = [(v > 0 if t is None else v >= t) for v in y_true]
        options = {
            **options,
            "base_rate": sum(r * w for r, w in zip(rel, sw, strict=True)) / sum(sw),
        }
    ids = sorted(set(groups))
    values, weights, query_sw = [], [], []
    for g in ids:
        rows = [i for i in range(n) if groups[i] == g]
        found = [
            impression_query(name, order, y_true, y_score, prop, k, **options)
            for order in _orderings(rows, y_score, y_true, ties)
        ]
        values.append(sum(f[0] for f in found) / len(found))
        weights.append(found[0][1])
        query_sw.append(sw[rows[0]])
    num = sum(
        w * q * v for v, w, q in zip(values, weights, query_sw, strict=True) if v == v
    )
    den = sum(
        w * q for v, w, q in zip(values, weights, query_sw, strict=True) if v == v
    )
    return ids, values, weights, num / den
