"""Usage errors: an option's value turned away, in the option's own words."""

from __future__ import annotations

from skirm._errors import InvalidParameterError


class UsageError(Exception):
    """A usage error: the command's usage line, the message, exit status 1."""


def check_options(args, **rules):
    """Each option ``args.<name>`` checked by its declared rule (the
    same rule as the Python argument's, stated with the option's name); a
    value the rule turns away is a usage error."""
    for name, rule in rules.items():
        try:
            setattr(args, name, rule(getattr(args, name)))
        except InvalidParameterError as exc:
            raise UsageError(exc.command_line or str(exc)) from None
