"""The error family: one base, the builtin classes code already catches,
each class exported by the package it is shown under, pickled whole, and
exiting with a status of the one table."""

import importlib
import pickle
from pathlib import Path

import pytest

import skirm
from skirm import _errors
from skirm._errors import EXIT_STATUSES, PUBLIC_PACKAGES
from skirm.io import RunNotGroupedError

CLASSES = [getattr(_errors, name) for name in _errors.__all__]


def test_every_class_has_its_public_package():
    assert set(CLASSES) == set(PUBLIC_PACKAGES)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_class_is_exported_by_the_package_it_is_shown_under(cls):
    package = importlib.import_module(cls.__module__)
    assert cls.__module__ == PUBLIC_PACKAGES[cls]
    assert cls.__name__ in package.__all__
    assert getattr(package, cls.__name__) is cls


def test_no_other_public_package_exports_an_error_class():
    root = Path(skirm.__file__).parent
    packages = ["skirm"] + [
        f"skirm.{p.name}"
        for p in root.iterdir()
        if (p / "__init__.py").exists() and not p.name.startswith("_")
    ]
    for name in packages:
        package = importlib.import_module(name)
        for public in package.__all__:
            value = getattr(package, public)
            if isinstance(value, type) and issubclass(value, BaseException):
                assert value.__module__ == name, (name, public)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_class_is_a_skirm_error_and_the_builtin_code_catches(cls):
    assert issubclass(cls, skirm.SkirmError)
    if issubclass(cls, (skirm.InvalidParameterError, skirm.InvalidInputError)):
        assert issubclass(cls, ValueError) and issubclass(cls, TypeError)
    if cls is skirm.MissingDependencyError:
        assert issubclass(cls, ImportError)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_class_exits_with_a_status_of_the_table(cls):
    assert cls.exit_status in {status for status, _ in EXIT_STATUSES}
    assert cls.exit_status != 0


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_class_pickles_whole(cls):
    if cls is RunNotGroupedError:
        error = cls("run:3: query 'q1' again", name="run", line=2, query="q1")
    else:
        error = cls("the message", command_line="-l must be 1", exit_status=2)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls and str(again) == str(error)
    assert again.exit_status == error.exit_status
    assert again.command_line == error.command_line
    if cls is RunNotGroupedError:
        assert (again.name, again.line, again.query) == ("run", 2, "q1")
    else:
        assert again.command_line == "-l must be 1" and again.exit_status == 2


def test_an_instance_status_overrides_its_class_only():
    error = skirm.InvalidParameterError("x", exit_status=2)
    assert error.exit_status == 2 and skirm.InvalidParameterError.exit_status == 1
