"""Usage errors: an option's value turned away, in the option's own words;
the measures a command needs per-query values of."""

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


def per_query_request(measures, compat):
    """The request of ``-m``, and the names of its outputs: measures with
    per-query values only (compared, or corrected by gold judgements)."""
    from skirm.trec._request import parse_measures  # not for `skirm ndeval`

    try:
        request = parse_measures(measures, compat)
    except InvalidParameterError as exc:
        raise UsageError(exc.command_line or str(exc)) from None
    for output in request.outputs:
        if output.spelling is not None and not output.spelling.per_query:
            raise UsageError(
                f"measure {output.name!r} has no per-query values to compare"
            )
    return request, [output.name for output in request.outputs]
