"""Every public docstring read by numpydoc, on the interpreter running the tests.

numpydoc builds the API pages from what it parses here, so a parameter it
cannot read is a parameter missing from the page. Python 3.13 strips the
indentation of docstrings when it compiles them and earlier versions keep it,
so text substituted into a docstring (``skirm.metrics._spec.fill_doc``) must
follow whichever indentation the docstring has: these tests hold every
public function, method and class to its signature on each Python CI runs.
"""

import importlib
import inspect
import pkgutil
import re

import pytest

import skirm

docscrape = pytest.importorskip("numpydoc.docscrape")

#: "Takes the arguments of :func:`confidence_intervals`": a docstring that
#: lends its parameters from another function's.
_LENDER = re.compile(
    r"(?:[Tt]akes the arguments|[Tt]akes the same arguments as"
    r"|The arguments are those) (?:of )?:func:`~?([\w.]+)`"
)


def _namespaces():
    packages = sorted(
        f"skirm.{info.name}"
        for info in pkgutil.iter_modules(skirm.__path__)
        if info.ispkg and not info.name.startswith("_")
    )
    return ["skirm", *packages]


def _public_objects():
    """``{qualified name: object}``: each public function and class once
    (under the first namespace that exports it), and the public methods
    skirm's classes define."""
    found, seen = {}, set()
    for module_name in _namespaces():
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or id(obj) in seen:
                continue
            seen.add(id(obj))
            found[f"{module_name}.{name}"] = obj
            if not inspect.isclass(obj):
                continue
            for attribute, value in vars(obj).items():
                function = getattr(value, "__func__", value)
                if not attribute.startswith("_") and inspect.isfunction(function):
                    found[f"{module_name}.{name}.{attribute}"] = getattr(obj, attribute)
    return found


OBJECTS = _public_objects()


def _signature(obj):
    """The parameter names a caller passes, ``*args`` and ``**kwargs`` with
    their stars, as numpydoc writes them."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    names = []
    for parameter in inspect.signature(target).parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            names.append(f"*{parameter.name}")
        elif parameter.kind is parameter.VAR_KEYWORD:
            names.append(f"**{parameter.name}")
        else:
            names.append(parameter.name)
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


def _documented(doc):
    """The parameter names numpydoc read, in order (``a, b : int`` is two),
    and the first name of each entry."""
    names, firsts = [], []
    for section in ("Parameters", "Other Parameters"):
        for parameter in doc[section]:
            entry = [
                name.strip().replace("\\", "") for name in parameter.name.split(",")
            ]
            names.extend(entry)
            firsts.append(entry[0])
    return names, firsts


def _doc(obj):
    if inspect.isclass(obj):
        return docscrape.ClassDoc(obj, config={"show_class_members": False})
    return docscrape.FunctionDoc(obj)


def test_public_objects_are_found():
    names = set(OBJECTS)
    assert {
        "skirm.ndcg_score",
        "skirm.stats.compare",
        "skirm.plot.MetricAtKDisplay",
    } <= names
    assert "skirm.plot.MetricAtKDisplay.from_predictions" in names
    assert len(OBJECTS) > 150


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_numpydoc_parameters_match_the_signature(name):
    """numpydoc reads each parameter of the signature, in its order, and no
    other: nothing swallowed into another's description, nothing stale.

    Errors and warnings are made by skirm, not by its users, and so is a
    class documented by its attributes only (a result, a record): they list
    no parameters. A docstring that lends its parameters names the function
    it takes them from (``Takes the arguments of :func:`power```) and
    documents only the ones that function does not take.
    """
    obj = OBJECTS[name]
    assert obj.__doc__, f"{name} has no docstring"
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return
    doc = _doc(obj)
    (documented, firsts), signature = _documented(doc), _signature(obj)
    # Entries in the signature's order (an entry may name several parameters).
    positions = [signature.index(first) for first in firsts if first in signature]
    assert positions == sorted(positions), (
        f"{name}: {firsts} not in the order of {signature}"
    )
    lender = _LENDER.search(obj.__doc__)
    if lender:
        module = importlib.import_module(obj.__module__)
        lent = _signature(eval(lender.group(1), vars(module)))  # a name it imports
        assert set(signature) <= set(documented) | set(lent), (
            f"{name}: {sorted(set(signature) - set(documented) - set(lent))} "
            f"neither documented nor taken from {lender.group(1)}"
        )
        assert set(documented) <= set(signature)
    elif inspect.isclass(obj) and not documented:
        assert doc["Attributes"], f"{name} documents neither parameters nor attributes"
    else:
        assert sorted(documented) == sorted(signature)
        assert len(documented) == len(set(documented)), f"{name} documents a name twice"


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_no_placeholder_is_left(name):
    assert "%(" not in (OBJECTS[name].__doc__ or "")


def test_substituted_text_follows_the_docstring_indentation():
    """Regression (issue 52): on Python 3.13 the shared text of
    ``COMMON_DOC["arrays"]`` kept its own indentation inside a docstring
    the compiler had dedented, and numpydoc read ``y_score`` as part of
    ``y_true``'s description (9 parameters of ``ndcg_score`` instead of 10).
    """
    from skirm.metrics import ndcg_score

    doc = docscrape.FunctionDoc(ndcg_score)
    names = [parameter.name for parameter in doc["Parameters"]]
    assert names[:3] == ["y_true", "y_score", "groups"]
    assert len(names) == len(inspect.signature(ndcg_score).parameters) == 10
    y_true = doc["Parameters"][0]
    assert y_true.desc == [
        "Relevance labels: non-negative numbers (graded or binary), one per row."
    ]
