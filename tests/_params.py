"""Checks of the declared parameter rules (:mod:`skirm._params`) that the
test folders of the packages share.

:func:`assert_defaults_pass` calls each rule on the default of the argument
it checks; :func:`assert_rules_refuse` calls a public function with each
value a rule of its ``@checked`` turns away, and expects that rule's error
(the rules run before the body, so the other arguments may be dummies).
"""

import inspect

import pytest

from skirm import InvalidParameterError


def declared(function):
    """The rules ``@checked`` attached to ``function`` (or to the function of
    a bound method)."""
    return dict(getattr(function, "__skirm_params__", {}))


def assert_defaults_pass(function, rules=None):
    """Each rule (``function``'s declared rules, or ``rules``: a dict of
    argument name to rule) gives the argument's default back unchanged."""
    rules = declared(function) if rules is None else rules
    assert rules, f"{function.__qualname__} declares no rule"
    parameters = inspect.signature(function).parameters
    for name, rule in rules.items():
        default = parameters[name].default
        if default is inspect.Parameter.empty:  # required: no default to check
            continue
        got = rule(default)
        assert type(got) is type(default) and got == default, (name, got, default)


def assert_rules_refuse(function, **valid):
    """Call ``function`` with each value each of its declared rules turns
    away and expect :class:`~skirm.InvalidParameterError` naming the
    argument. Required arguments are None, or their value in ``valid``; all
    are passed by name."""
    rules = declared(function)
    assert rules, f"{function.__qualname__} declares no rule"
    required = [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    for name, rule in rules.items():
        bad_values = rule.rejected()
        assert bad_values, f"{name}: the rule names no value it turns away"
        for bad in bad_values:
            kwargs = {n: valid.get(n) for n in required if n != name}
            kwargs[name] = bad
            with pytest.raises(InvalidParameterError, match=f"^`{name}` must be "):
                function(**kwargs)
