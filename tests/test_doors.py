"""Every door of the library: one error for a bad value, one "did you mean".

The bad values are not written here: they are generated from the declared
rules (:mod:`skirm._params`). Each metric function's arguments are looked up
by name among the shared rules and the measure's options (the table's
rules), the other doors' rules are the ones ``@checked`` attached to them,
and the command line's options are the same rules stated with the option's
name. For every door, every argument with a rule, and every value the rule
names as turned away, the door raises :class:`skirm.InvalidParameterError`
(a ``ValueError`` and a ``TypeError``) whose message starts with the
argument's name, or, on the command line, prints the option's name and
exits with the rule's status.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import skirm
import skirm.metrics as metrics
from skirm import InvalidParameterError
from skirm._cli import main
from skirm._cli._parser import build_parser
from skirm._measures import _table as table
from skirm._measures._options import ALPHA, BETA, OPTIONS, REL_FORMAT
from skirm._params import NO_RELEVANT, TIES, UNJUDGED, K
from skirm.fusion import _rules as fusion_rules
from skirm.metrics import UnknownMeasureError
from skirm.metrics._registry import SPECS
from skirm.metrics._spec import IGNORE_TIES
from skirm.stats._compare import ALPHA as COMPARE_ALPHA, COMPARE_TEST, MISSING_QUERIES
from skirm.stats._correction import CORRECTION
from skirm.stats._ppi_mean import PPI_INTERVAL, PPI_METHOD
from skirm.stats._resampling import N_RESAMPLES, RANDOM_STATE
from skirm.trec import RelevanceEvaluator, evaluate_diversity, evaluate_run
from skirm.trec._fuse import FOLDS
from skirm.trec._request import COLLECTION_SIZE, COMPAT, MAX_DOCS, RELEVANCE_LEVEL

#: The rule of each argument of the metric functions, by the argument's name:
#: the rules shared by every family, and the measures' options.
RULES = {
    "k": K,
    "ties": TIES,
    "no_relevant": NO_RELEVANT,
    "unjudged": UNJUDGED,
    "ignore_ties": IGNORE_TIES,
    "alpha": ALPHA,
    "beta": BETA,
    **OPTIONS,
}

#: Arguments that carry data, not a choice: checked as input
#: (:class:`skirm.InvalidInputError`), not by a rule.
DATA = {
    "y_true",
    "y_score",
    "groups",
    "sample_weight",
    "propensity",
    "measure",
    "residuals",
}

Y_TRUE = np.array([2.0, 0.0, 1.0, 0.0, 1.0, 1.0])
Y_SCORE = np.array([0.3, 0.2, 0.1, 0.4, 0.5, 0.6])
GROUPS = np.array([0, 0, 0, 1, 1, 1])
#: One subtopic judgment column per subtopic, for the diversity measures.
SUBTOPICS = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]])

#: The diversity functions: one per row of the table's diversity part, and
#: the report of them all.
DIVERSITY = [m.function for m in table.DIVERSITY_MEASURES] + ["diversity_report"]


def _metric_doors():
    """``(label, function, y_true, fixed)`` of every metric function."""
    doors = [(s.name, s.function, Y_TRUE, {}) for s in SPECS]
    doors += [(n, getattr(metrics, n), SUBTOPICS, {}) for n in DIVERSITY]
    doors.append(("cwl_report", metrics.cwl_report, Y_TRUE, {"measure": "inst"}))
    return doors


def _cases():
    """``(door, argument, bad value)`` of every metric function."""
    cases = []
    for label, function, y_true, fixed in _metric_doors():
        for name, parameter in inspect.signature(function).parameters.items():
            if name in DATA or parameter.kind != parameter.KEYWORD_ONLY:
                continue
            assert name in RULES, f"{label}: `{name}` has no declared rule"
            for bad in RULES[name].rejected():
                cases.append(pytest.param(function, y_true, fixed, name, bad, id=None))
    return cases


def _refused(name, function, *args, **kwargs):
    """``function(*args, **kwargs)`` raises the rule's error for ``name``."""
    with pytest.raises(InvalidParameterError, match=f"^`{name}` must be ") as caught:
        function(*args, **kwargs)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, TypeError)
    return caught.value


@pytest.mark.parametrize(("function", "y_true", "fixed", "name", "bad"), _cases())
def test_metric_functions_refuse_what_the_rules_refuse(
    function, y_true, fixed, name, bad
):
    _refused(name, function, y_true, Y_SCORE, groups=GROUPS, **fixed, **{name: bad})


def test_every_metric_function_is_reached():
    assert len({f for _, f, *_ in _metric_doors()}) == len(SPECS) + len(DIVERSITY) + 1
    assert len(_cases()) > 400


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_options_are_refused_alike_at_every_door_of_a_name(spec):
    # get_metric, evaluate and the scorer factory read a measure's options
    # by the same rules as its function.
    for option in spec.measure.options:
        for bad in OPTIONS[option].rejected():
            given = {option: bad}
            _refused(option, metrics.get_metric, spec.name, **given)
            _refused(
                option,
                metrics.evaluate,
                Y_TRUE,
                Y_SCORE,
                groups=GROUPS,
                metrics=spec.name,
                **given,
            )
            _refused(option, metrics.make_ranking_scorer, spec.name, **given)


@pytest.mark.parametrize("rule", [TIES, NO_RELEVANT, UNJUDGED], ids=repr)
def test_evaluate_and_the_scorers_refuse_what_the_rules_refuse(rule):
    for bad in rule.rejected():
        given = {rule.name: bad}
        _refused(rule.name, metrics.evaluate, Y_TRUE, Y_SCORE, groups=GROUPS, **given)
        _refused(rule.name, metrics.make_ranking_scorer, "ndcg@10", **given)


def test_the_trec_doors_refuse_what_the_rules_refuse(tmp_path):
    qrels = {"1": {"d1": 1, "d2": 0}}
    run = {"1": {"d1": 2.0, "d2": 1.0}}
    for name, rule in evaluate_run.__skirm_params__.items():
        for bad in rule.rejected():
            _refused(name, evaluate_run, qrels, run, "map", **{name: bad})
    for bad in RELEVANCE_LEVEL.rejected():
        given = {"relevance_level": bad}
        _refused("relevance_level", RelevanceEvaluator, qrels, {"map"}, **given)
    judgments = tmp_path / "qrels"
    judgments.write_text("1 1 d1 1\n1 2 d2 1\n")
    for rule in (ALPHA, BETA):
        for bad in rule.rejected():
            _refused(rule.name, evaluate_diversity, judgments, run, **{rule.name: bad})


# --------------------------------------------------------------------------
# The command line states the same rules with its options' names
# --------------------------------------------------------------------------

COMMAND_RULES = {
    "eval": [
        RELEVANCE_LEVEL,
        MAX_DOCS,
        COLLECTION_SIZE,
        REL_FORMAT,
        COMPAT,
        PPI_METHOD,
        PPI_INTERVAL,
    ],
    "compare": [
        PPI_METHOD,
        PPI_INTERVAL,
        RELEVANCE_LEVEL,
        COMPAT,
        COMPARE_TEST,
        MISSING_QUERIES,
        COMPARE_ALPHA,
        N_RESAMPLES,
        RANDOM_STATE,
        CORRECTION,
    ],
    "ndeval": [ALPHA, BETA],
    "fuse": [
        fusion_rules.METHOD,
        fusion_rules.NORM,
        fusion_rules.RRF_K,
        fusion_rules.PHI,
        fusion_rules.WEIGHTS,
        fusion_rules.WEIGHT_STEP,
        FOLDS,
        COMPARE_ALPHA,
        COMPARE_TEST,
        RANDOM_STATE,
    ],
}


def _command_cases():
    cases = []
    for command, rules in COMMAND_RULES.items():
        for rule in rules:
            for bad in rule.rejected():
                # what a shell can pass: numbers and strings, not None or a bool
                if bad is None or isinstance(bad, bool) or not np.isscalar(bad):
                    continue
                cases.append((command, rule, bad))
    return cases


@pytest.mark.parametrize(
    ("command", "rule", "bad"),
    _command_cases(),
    ids=lambda v: repr(v) if not isinstance(v, str) else v,
)
def test_the_commands_refuse_what_the_rules_refuse(
    command, rule, bad, tmp_path, capsys
):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    other = tmp_path / "other"
    other.write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n")
    runs = [str(run), str(other)] if command == "compare" else [str(run)]
    given = [] if command == "fuse" else [str(qrels)]  # fuse: runs only
    status = main([command, *given, *runs, rule.option, str(bad)])
    err = capsys.readouterr().err
    if not _parses(command, rule.option, str(bad)):
        # not a number where the option takes one, or not one of its
        # choices: argparse's usage error
        assert status == 1 and f"argument {rule.option}" in err
        return
    assert status == (rule.exit_status or 1), err
    assert f"error: {rule.option} must be " in err


def _parses(command, option, text):
    """Whether the option's argparse type reads ``text``."""
    parser = build_parser().commands[command]
    action = next(a for a in parser._actions if option in a.option_strings)
    try:
        value = text if action.type is None else action.type(text)
    except ValueError:
        return False
    return action.choices is None or value in action.choices


def test_every_option_with_a_rule_is_reached():
    options = {rule.option for rules in COMMAND_RULES.values() for rule in rules}
    assert options == {
        *("-l", "-M", "-N", "-R", "--compat", "--alpha", "--beta", "--test"),
        *("--missing", "--n-resamples", "--seed", "--correction"),
        *("--method", "--norm", "--k", "--phi", "--weights", "--weight-step"),
        "--folds",
        *("--ppi-method", "--ppi-interval"),
    }
    assert all(rule.option for rules in COMMAND_RULES.values() for rule in rules)


# --------------------------------------------------------------------------
# "Did you mean" at every door, quoting the name given
# --------------------------------------------------------------------------

QRELS = {"1": {"d1": 1, "d2": 0}}
RUN = {"1": {"d1": 2.0, "d2": 1.0}}

ARRAY_DOORS = {
    "get_metric": lambda name: metrics.get_metric(name),
    "evaluate": lambda name: metrics.evaluate(
        Y_TRUE, Y_SCORE, groups=GROUPS, metrics=[name]
    ),
    "make_ranking_scorer": lambda name: metrics.make_ranking_scorer(name),
    "get_scorer": lambda name: metrics.get_scorer(name),
}
TREC_DOORS = {
    "evaluate_run": lambda name: evaluate_run(QRELS, RUN, [name]),
    "RelevanceEvaluator": lambda name: RelevanceEvaluator(QRELS, {name}),
}


def _suggests(call, typed, meant):
    with pytest.raises(UnknownMeasureError) as caught:
        call()
    message = str(caught.value)
    assert message.startswith(f"unknown measure {typed!r} (did you mean {meant!r}")
    assert isinstance(caught.value, skirm.InvalidParameterError)
    return message


@pytest.mark.parametrize("door", ARRAY_DOORS)
@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("ndgc@10", "ndcg@10"),
        ("mapp", "map"),
        ("nDGC@10", "ndcg@10"),
        ("precison", "precision"),
    ],
)
def test_the_array_doors_suggest_the_close_name(door, typed, meant):
    _suggests(lambda: ARRAY_DOORS[door](typed), typed, meant)


@pytest.mark.parametrize("door", TREC_DOORS)
@pytest.mark.parametrize(
    ("typed", "meant"), [("mapp", "map"), ("ndgc_cut", "ndcg_cut"), ("Rprc", "Rprec")]
)
def test_the_trec_doors_suggest_the_close_name(door, typed, meant):
    _suggests(lambda: TREC_DOORS[door](typed), typed, meant)


def test_the_diversity_door_suggests_the_close_name(tmp_path):
    judgments = tmp_path / "qrels"
    judgments.write_text("1 1 d1 1\n")
    _suggests(
        lambda: evaluate_diversity(judgments, RUN, ["alpha-nDGC@5"]),
        "alpha-nDGC@5",
        "alpha-nDCG@5",
    )


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_the_commands_suggest_the_close_name(command, tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 2.0 a\n")
    other = tmp_path / "other"
    other.write_text("1 Q0 d1 1 1.0 b\n")
    runs = [str(run), str(other)] if command == "compare" else [str(run)]
    status = main([command, str(qrels), *runs, "-m", "mapp"])
    err = capsys.readouterr().err
    assert status == 1
    assert "error: unknown measure 'mapp' (did you mean 'map'?)" in err
