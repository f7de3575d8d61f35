"""Parameter rules, declared once, as data.

A :class:`Param` names an argument and the kinds of values it accepts (its
constraints: :class:`Interval`, :class:`OneOf`, :data:`NONE`,
:data:`BOOLEAN`, ...). Calling it checks a value: the value comes back
(converted: ``int`` for an integer, ``float`` for a real number, ``bool``
for a flag) when one constraint accepts it; otherwise an
:class:`~skirm.InvalidParameterError` names the argument, what it accepts and
what was received::

    `k` must be a positive integer or None, got 0 (int)

A parameter the command line also takes carries its option's name
(``option="-l"``), and the error states the same rule in those words for the
``skirm`` command to print (``-l must be an integer >= 1, got 0``).

Public functions declare the arguments they check with :func:`checked`; the
declarations are attached to the function (``__skirm_params__``), where the
tests find them to call every public function with values each rule turns
away. Common rules are declared here; a package declares its own next to the
table its choices come from (the test names of :mod:`skirm.stats`, the
presets of :mod:`skirm.metrics`).
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import TYPE_CHECKING

import numpy as np

from skirm._errors import InvalidParameterError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "BOOLEAN",
    "NONE",
    "Constraint",
    "Instance",
    "Interval",
    "OneOf",
    "Param",
    "Satisfies",
    "as_python",
    "checked",
    "describe",
]


def as_python(value):
    """A numpy scalar as the plain Python value, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def describe(value) -> str:
    """Short description of a received value for error messages."""
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


# --------------------------------------------------------------------------
# Constraints
# --------------------------------------------------------------------------


class Constraint:
    """One kind of value an argument accepts, and its name in messages."""

    #: How messages name the values accepted ("a positive integer").
    text = ""

    def accepts(self, value) -> bool:
        raise NotImplementedError

    def convert(self, value):
        """The accepted value as the function works with it."""
        return value

    def rejected(self) -> tuple:
        """Values this constraint turns away, for the generated tests."""
        return ()


def _real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


class Interval(Constraint):
    """Numbers of one kind (``int``: integers; ``float``: finite real
    numbers) between two bounds, each included or not (``closed``:
    ``"both"``, ``"left"``, ``"right"`` or ``"neither"``); a bound of None is
    no bound."""

    def __init__(self, kind, low=None, high=None, *, closed="both", text=None):
        self.kind, self.low, self.high, self.closed = kind, low, high, closed
        #: Whether each bound is a value accepted.
        self.left = closed in ("both", "left")
        self.right = closed in ("both", "right")
        self.text = text or self._text()

    def _text(self) -> str:
        low, high, left, right = self.low, self.high, self.left, self.right
        noun = "integer" if self.kind is int else "number"
        if low is not None and high is not None:
            opening, closing = "[" if left else "(", "]" if right else ")"
            return f"a {noun} in {opening}{low}, {high}{closing}"
        if high is not None:
            return f"a {noun} {'<=' if right else '<'} {high}"
        if low is None:
            return f"an {noun}" if self.kind is int else "a finite number"
        if low == 0 and not left:
            return f"a positive {noun}" if self.kind is int else "a number > 0"
        if low == 0:
            return f"a non-negative {noun}"
        if low == 1 and left and self.kind is int:
            return "a positive integer"
        article = "an" if self.kind is int else "a"
        return f"{article} {noun} {'>=' if left else '>'} {low}"

    def accepts(self, value) -> bool:
        if self.kind is int:
            if not isinstance(value, numbers.Integral) or isinstance(
                value, (bool, np.bool_)
            ):
                return False
        elif not _real(value) or not math.isfinite(value):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and not self.left):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and not self.right):
                return False
        return True

    def convert(self, value):
        return int(value) if self.kind is int else float(value)

    def rejected(self) -> tuple:
        out = (
            ["a string", True, 1.5] if self.kind is int else ["a string", float("nan")]
        )
        if self.low is not None:
            out.append(self.low - 1 if self.kind is int else self.low - 0.5)
            if not self.left:
                out.append(self.low)
        if self.high is not None:
            out.append(self.high + 1 if self.kind is int else self.high + 0.5)
            if not self.right:
                out.append(self.high)
        return tuple(out)


class OneOf(Constraint):
    """One of a fixed set of values (strings, as a rule)."""

    def __init__(self, *choices, text=None):
        self.choices = choices
        self.text = text or "one of " + ", ".join(repr(c) for c in choices)

    def accepts(self, value) -> bool:
        try:
            return any(
                type(value) is type(choice) and value == choice
                for choice in self.choices
            )
        except (TypeError, ValueError):  # an array compared element-wise
            return False

    def rejected(self) -> tuple:
        return ("not-an-option", 3)


class _Constant(Constraint):
    def __init__(self, value, text):
        self.value, self.text = value, text

    def accepts(self, value) -> bool:
        return value is self.value


class _Boolean(Constraint):
    text = "True or False"

    def accepts(self, value) -> bool:
        return isinstance(value, (bool, np.bool_))

    def convert(self, value):
        return bool(value)

    def rejected(self) -> tuple:
        return ("yes", 2)


#: None, as an accepted value.
NONE = _Constant(None, "None")
#: ``True`` or ``False`` (numpy's booleans too), given back as a ``bool``.
BOOLEAN = _Boolean()


class Instance(Constraint):
    """Instances of ``types``, named ``text`` in messages."""

    def __init__(self, types, text):
        self.types, self.text = types, text

    def accepts(self, value) -> bool:
        return isinstance(value, self.types)

    def rejected(self) -> tuple:
        return (object(),)


class Satisfies(Constraint):
    """Values for which ``predicate(value)`` is true, named ``text``."""

    def __init__(self, predicate, text, rejected=()):
        self.predicate, self.text, self._rejected = predicate, text, rejected

    def accepts(self, value) -> bool:
        try:
            return bool(self.predicate(value))
        except (TypeError, ValueError):
            return False

    def rejected(self) -> tuple:
        return self._rejected


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------


class Param:
    """An argument's rule: the values it accepts, declared once.

    Parameters
    ----------
    name : str
        The argument's name, as the messages quote it.
    *constraints : Constraint
        The kinds of values accepted; the first that accepts a value
        converts it.
    expected : str, default=None
        What the messages say is accepted; by default the constraints' texts
        joined by "or".
    option : str, default=None
        The command line's option for the same argument (``"-l"``).
    hint : str, default=""
        What to do, appended to the message.
    exit_status : int, default=None
        The ``skirm`` command's exit status on a value this rule turns
        away, where trec_eval's differs from a usage error's (1).
    """

    __slots__ = ("constraints", "exit_status", "expected", "hint", "name", "option")

    def __init__(
        self, name, *constraints, expected=None, option=None, hint="", exit_status=None
    ):
        self.name, self.constraints = name, constraints
        self.expected = expected or " or ".join(c.text for c in constraints)
        self.option, self.hint, self.exit_status = option, hint, exit_status

    def __call__(self, value, name=None):
        """``value`` checked (and converted); :meth:`error` if no constraint
        accepts it. ``name`` quotes the argument under another name."""
        for constraint in self.constraints:
            if constraint.accepts(value):
                return constraint.convert(value)
        raise self.error(value, name)

    def accepts(self, value) -> bool:
        return any(c.accepts(value) for c in self.constraints)

    def error(self, value, name=None) -> InvalidParameterError:
        """The error for a ``value`` this rule turns away."""
        hint = f"; {self.hint}" if self.hint else ""
        message = f"`{name or self.name}` must be {self.expected}, got "
        command_line = None
        if self.option is not None and name is None:
            shown = repr(value) if isinstance(value, str) else str(as_python(value))
            command_line = f"{self.option} must be {self.expected}, got {shown}{hint}"
        return InvalidParameterError(
            f"{message}{describe(value)}{hint}",
            command_line=command_line,
            exit_status=self.exit_status,
        )

    def rejected(self) -> list:
        """Values this rule turns away (each refused by every constraint)."""
        out: list = []
        for constraint in self.constraints:
            for value in constraint.rejected():
                if not self.accepts(value) and not any(v is value for v in out):
                    out.append(value)
        return out

    def __repr__(self):
        return f"Param({self.name!r}: {self.expected})"


def checked(**params: Param) -> Callable[[F], F]:
    """Decorator: check the named arguments of each call with their rules
    before the body runs; the body receives the converted values.

    Arguments left at their defaults are not checked (a test checks that
    every default passes its rule). The rules are attached to the function
    as ``__skirm_params__``.
    """

    def decorate(function: F) -> F:
        code = function.__code__
        positional = code.co_varnames[: code.co_argcount]
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        unknown = set(params) - set(names)
        if unknown:  # pragma: no cover - a declaration error in skirm itself
            raise AssertionError(f"{function.__qualname__} has no {sorted(unknown)}")
        rules = tuple(
            (name, rule, positional.index(name) if name in positional else None)
            for name, rule in params.items()
        )

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for name, rule, position in rules:
                if name in kwargs:
                    kwargs[name] = rule(kwargs[name])
                elif position is not None and position < len(args):
                    args = (
                        *args[:position],
                        rule(args[position]),
                        *args[position + 1 :],
                    )
            return function(*args, **kwargs)

        wrapper.__skirm_params__ = dict(params)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


# --------------------------------------------------------------------------
# The rules every family of functions shares
# --------------------------------------------------------------------------

#: The cutoff of a metric.
K = Param("k", Interval(int, 1, closed="left"), NONE)
#: The order of rows with equal scores.
TIES = Param("ties", OneOf("average", "first", "optimistic", "pessimistic"))
#: What a NaN label means.
UNJUDGED = Param("unjudged", OneOf("raise", "nonrelevant", "condensed"))
#: The value of a query without relevant rows.
NO_RELEVANT = Param(
    "no_relevant",
    Interval(float, 0, 1),
    OneOf("skip", "raise"),
    expected="a number in [0, 1], 'skip' or 'raise'",
)
#: The label from which a row is relevant.
RELEVANCE_THRESHOLD = Param(
    "relevance_threshold",
    NONE,
    Interval(float, 0, closed="neither"),
    expected="None or a positive number",
)
#: Threads: -1 all CPUs, -2 all but one; None one (or joblib's setting).
N_JOBS = Param(
    "n_jobs",
    NONE,
    Satisfies(
        lambda v: (
            isinstance(v, numbers.Integral)
            and not isinstance(v, (bool, np.bool_))
            and v != 0
        ),
        "a non-zero integer",
        rejected=(0, 1.5, "2"),
    ),
    expected="None or a non-zero integer (-1 for all CPUs)",
)
