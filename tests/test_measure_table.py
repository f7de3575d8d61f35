"""The measure table: each measure and each spelling written once.

Every measure skirm knows is one row of ``skirm._measures``; the name
grammars, the metric registry, the TREC kernels, the pytrec_eval drop-in and
the documentation read the rows. These tests hold that: every spelling is a
string constant of one module only, every row is computed by exactly one
engine, and what the table names (kernels, functions) exists.
"""

import ast
import pickle
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import skirm
from skirm._measures import _table as table
from skirm._measures._names import (
    DIVERSITY_NAMES,
    IR_OF_TREC,
    IR_ON_ARRAYS,
    SKIRM_NAMES,
    TREC_NAMES,
)
from skirm._measures._rows import ARRAYS, DIVERSITY, PREFS, QRELS, QRELS_JG, TREC

PACKAGE = Path(skirm.__file__).resolve().parent

#: Words that are a measure's spelling and also another thing's name in a
#: module outside the table, with what they name there.
OTHER_MEANINGS = {
    "p": {
        "skirm/_measures/_options.py": "the persistence option's name",
        "skirm/metrics/_cwl.py": "the persistence option's name",
        "skirm/recsys/_agreement.py": "rank-biased overlap's persistence",
        "skirm/stats/_report_html.py": "a column header of the p-values",
        "skirm/_measures/_impressions.py": "the persistence option's name",
        "skirm/metrics/_conventions.py": "the persistence option's name",
    },
    "R": {
        "skirm/_measures/_options.py": "a value of the `denominator` option",
        "skirm/metrics/_positions.py": "a value of the `denominator` option",
        "skirm/metrics/_conventions.py": "a value of the `denominator` option",
        "skirm/_engine/_ranking.py": "a cache key of the relevant counts",
    },
    "r": {"skirm/stats/_report.py": "LaTeX's right-aligned column"},
    "compat": {
        "skirm/trec/_request.py": "the trec_eval version option's name",
    },
    "dcg": {"skirm/_measures/_grammar.py": "ir_measures' nDCG option `dcg`"},
    "judged": {
        "skirm/trec/_diversity.py": "the diversity report's judged queries",
        "skirm/trec/_diversity_run.py": "the diversity report's judged queries",
    },
    "recall": {
        "skirm/plot/_precision_recall.py": "an axis label",
        "skirm/_measures/_trec.py": "ir_measures' IPrec option `recall`",
        "skirm/_measures/_grammar.py": "ir_measures' IPrec option `recall`",
    },
    "success": {"skirm/_errors.py": "the meaning of exit status 0"},
    "ndcg": {"skirm/ranker/_libraries.py": "LightGBM's and XGBoost's metric"},
    # Two measures of one name: skirm's RBP (binary, p=0.8, on arrays) and
    # trec_eval's (gains level / max level, p=0.9), each in its part.
    "rbp": {
        "skirm/_measures/_arrays.py": "skirm's rbp",
        "skirm/_measures/_trec.py": "trec_eval's rbp",
    },
}


def _spellings():
    names = set(table.NICKNAMES)
    for m in table.MEASURES:
        names |= set(m.skirm) | set(m.ndeval)
        names |= {t.name for t in m.trec} | {i.name for i in m.ir_measures}
    return names


def _string_constants(path):
    """The string constants of a module, without its docstrings and its
    annotations (``Literal[...]`` lists choices, and cannot name a constant)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):
        if isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        annotations = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            annotations = [a.annotation for a in arguments if a.annotation]
            annotations += [node.returns] if node.returns else []
        elif isinstance(node, ast.AnnAssign):
            annotations = [node.annotation]
        for annotation in annotations:
            skip.update(id(sub) for sub in ast.walk(annotation))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
    ]


def test_each_spelling_is_a_string_constant_of_one_module():
    spellings = _spellings()
    where = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE.parent).as_posix()
        for value in _string_constants(path):
            if value in spellings:
                where[value].add(module)
    wrong = {}
    for spelling, modules in where.items():
        others = OTHER_MEANINGS.get(spelling, {})
        rest = sorted(m for m in modules if m not in others)
        if len(rest) > 1 or (rest and not rest[0].startswith("skirm/_measures/")):
            wrong[spelling] = rest
    assert wrong == {}
    # every allowance is still needed
    for spelling, modules in OTHER_MEANINGS.items():
        assert set(modules) <= where[spelling], spelling


def test_spellings_name_one_measure_per_grammar():
    # Each grammar's names are unique: its lookup is a dict built from rows.
    counts = defaultdict(int)
    for m in table.MEASURES:
        for name in m.skirm:
            counts["skirm", name.lower()] += 1
        for t in m.trec:
            counts["trec", t.name] += 1
        for i in m.ir_measures:
            counts["ir", i.name] += 1
    assert {key: n for key, n in counts.items() if n > 1} == {}
    assert len(SKIRM_NAMES) == sum(
        len(m.skirm) for m in table.MEASURES if m.engine == ARRAYS
    )
    assert set(IR_ON_ARRAYS) | set(IR_OF_TREC) <= {
        i.name for m in table.MEASURES for i in m.ir_measures
    }


def test_every_measure_is_computed_by_one_engine():
    from skirm.metrics._registry import SPECS
    from skirm.trec._kernels import KERNELS
    from skirm.trec._prefs import PrefsCounts

    on_arrays = [m for m in table.MEASURES if m.engine == ARRAYS]
    assert [s.measure for s in SPECS] == on_arrays
    for spec in SPECS:
        # scikit-learn's rule: "_score" is to maximise; a loss or an error
        # to minimise; a ratio is best in between (PCOC).
        ending = {"higher": ("_score",), "lower": ("_loss", "_error")}
        wanted = ending.get(spec.measure.better, ("_ratio",))
        assert spec.function.__name__.endswith(wanted), spec.name
    for m in table.MEASURES:
        for spelling in m.trec:
            kernel = spelling.kernel
            if spelling.unsupported:  # refused, as trec_eval 10.0 refuses it
                assert kernel is None, spelling
            elif spelling.rel_format == PREFS:
                assert hasattr(PrefsCounts, f"_{kernel}"), spelling
            elif kernel is not None:
                assert kernel in KERNELS, spelling
            elif m.kind == "text":  # the run's name, written by the summary
                assert spelling.summary == "none" and not spelling.per_query
            elif spelling.rel_format == QRELS_JG:
                # averaged over judgment groups of the spelling read from qrels
                assert any(
                    t.rel_format == QRELS and t.params == spelling.params
                    for t in m.trec
                ), spelling
            else:  # the measure's array kernel computes it
                assert m.engine == ARRAYS, spelling
        if m.engine == TREC:
            assert not m.skirm and m.trec
        if m.engine == DIVERSITY:
            assert hasattr(skirm.metrics, m.function)
    used = {t.kernel for m in table.MEASURES for t in m.trec}
    assert set(KERNELS) <= used


def test_diversity_spellings_reach_their_measure():
    for measure, spelling in DIVERSITY_NAMES.values():
        assert measure.engine == DIVERSITY
        assert spelling in measure.ir_measures


@pytest.mark.parametrize("measure", table.MEASURES, ids=lambda m: m.name)
def test_rows_and_spellings_pickle_as_themselves(measure):
    # A row that travels to another process (Dask) stays the table's own.
    assert pickle.loads(pickle.dumps(measure)) is measure
    for spelling in measure.trec:
        assert pickle.loads(pickle.dumps(spelling)) is spelling


def test_trec_print_order_and_nicknames_are_trec_evals():
    ordered = sorted(TREC_NAMES.values(), key=lambda ms: ms[1].order)
    names = [spelling.name for _, spelling in ordered]
    assert names[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert len(set(s.order for _, s in ordered)) == len(ordered)
    official = [s.name for _, s in ordered if table.OFFICIAL in s.nicknames]
    assert official == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ]  # fmt: skip


def _cased(rng, text):
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in text)


def _generated_spellings(seed):
    """``(text, parser, row, cutoff)``: every spelling of every row of the
    table, with generated cutoffs, parameters and (where the grammar
    ignores it) case, and what it must parse to."""
    from skirm._measures._grammar import parse_diversity, parse_metric, parse_trec

    rng = np.random.default_rng(seed)
    cases = []
    for m in table.MEASURES:
        for name in m.skirm if m.engine == ARRAYS else ():
            for k in (None, 1, int(rng.integers(2, 10_000))):
                for text in (name, name.upper(), _cased(rng, name)):
                    if k is not None and m.takes_k:
                        cases.append((f"{text}@{k}", parse_metric, m, k))
                    elif k is None:
                        cases.append((text, parse_metric, m, None))
        for t in m.trec:
            if t.unsupported:
                continue
            cases.append((t.name, parse_trec, m, None))
            if t.params == "cutoffs":
                ks = sorted({int(k) for k in rng.integers(1, 2_000, size=3)})
                cases.append((f"{t.name}.{','.join(map(str, ks))}", parse_trec, m, ks))
                cases.append((f"{t.name}_{ks[0]}", parse_trec, m, ks[:1]))
                cases.append((f"{t.name}@{ks[0]}", parse_trec, m, ks[:1]))
        for i in m.ir_measures:
            if m.engine == DIVERSITY:
                k = int(rng.integers(1, 50)) if m.takes_k else None
                text = i.name if k is None else f"{i.name}@{k}"
                cases.append((text, parse_diversity, m, k))
            elif i.cutoff == "@level":
                cases.append((f"{i.name}@0.5", parse_trec, m, None))
            else:
                k = int(rng.integers(1, 100)) if i.cutoff == "@k" else None
                text = i.name if k is None else f"{i.name}@{k}"
                parser = parse_metric if m.engine == ARRAYS else parse_trec
                cases.append((text, parser, m, k))
    return cases


@pytest.mark.parametrize("seed", range(3))
def test_every_generated_spelling_parses_back_to_its_row(seed):
    # The parsers read the table through lookups built from it; this
    # generates the spellings from the rows themselves and parses them back.
    cases = _generated_spellings(seed)
    assert len(cases) > 300
    wrong = []
    for text, parser, m, k in cases:
        parsed = parser(text)
        if parser.__name__ == "parse_trec":
            got = parsed[0].measure
            if isinstance(k, list):
                values = [v for p in parsed for v in p.values]
                got = got if values == k else (got, values)
        else:
            got = parsed.measure if parsed.k == k or not m.takes_k else (m, parsed.k)
        if got is not m:
            wrong.append((text, got))
    assert wrong == []
