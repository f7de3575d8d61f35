"""The shape of the house: file sizes, and data handed one way down the TREC path.

The import layers themselves are checked by ``lint-imports`` (the contract is
in pyproject.toml); these tests hold what a static import graph cannot see.
"""

import re
import sys
import threading
from pathlib import Path

import pytest

import skirm
from skirm.io import Qrels, Run, read_qrels
from skirm.trec import evaluate_run

PACKAGE = Path(skirm.__file__).resolve().parent
DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
#: Modules that read or convert input: once the qrels are joined to a block
#: of the run, no stage calls them again.
READERS = (
    "skirm.io._trec_files",
    "skirm.io._convert",
    "skirm.io._text",
    "skirm.io._prefs",
)


def test_no_module_is_over_600_lines():
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text().splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > 600} == {}


def _contributing_maps():
    """``{package: text}``: the module map of each package in CONTRIBUTING.md
    (its bullet, ``- **`pkg/`**: ...``, to the next bullet)."""
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text()
    maps = {}
    for part in re.split(r"^- ", text, flags=re.M):
        for package in re.findall(r"\*\*`([a-z_]+)/`\*\*", part):
            maps[package] = part
    return maps


def test_contributing_names_every_module_of_every_package():
    maps = _contributing_maps()
    missing = {}
    for folder in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        text = maps.get(folder.name, "")
        modules = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
        absent = [m for m in modules if f"`{m}`" not in text]
        if absent:
            missing[folder.name] = absent
    assert missing == {}


def test_contributing_names_every_base_module_in_the_layers_table():
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text()
    table = text[text.index("| layer |") : text.index("## Errors")]
    modules = [p.stem for p in PACKAGE.glob("_*.py") if not p.stem.startswith("__")]
    packages = [p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()]
    absent = [m for m in [*modules, *packages, "__main__"] if f"`{m}`" not in table]
    assert absent == []


#: Base names that may repeat across packages, each with the reason (none
#: today: a module's name says what it holds, so two packages holding
#: different things name them differently). ``__init__`` and ``__main__``
#: are the language's, not the house's.
SHARED_BASE_NAMES: dict[str, str] = {}


def _base_names():
    """``{base name: [module path, ...]}`` over every module of skirm."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.stem in ("__init__", "__main__"):
            continue
        names.setdefault(path.stem.lower(), []).append(str(path.relative_to(PACKAGE)))
    return names


def _clashes_within_packages(root):
    """``{package: [name, ...]}``: the names two importable things of one
    package share, a module beside a subpackage (``x.py`` and ``x/``) or two
    modules whose names differ only in case or suffix (``x.py``, ``X.py``,
    ``x.cpython-313-x86_64-linux-gnu.so``), which import as one name, or
    not at all on some systems (a ``.pyi`` stub beside its module is no
    clash)."""
    clashes = {}
    folders = [root, *(p for p in root.rglob("*") if (p / "__init__.py").exists())]
    for folder in folders:
        seen = {}
        for path in folder.iterdir():
            if path.is_dir() and (path / "__init__.py").exists():
                name = path.name
            elif path.suffix in (".py", ".pyx", ".so", ".pyd"):
                name = path.name.split(".")[0]
            else:
                continue
            seen.setdefault(name.lower(), []).append(path.name)
        shared = sorted(n for names in seen.values() if len(names) > 1 for n in names)
        if shared:
            clashes[str(folder.relative_to(root.parent))] = shared
    return clashes


def test_no_two_modules_of_one_package_share_a_base_name():
    assert _clashes_within_packages(PACKAGE) == {}


def test_a_clash_within_a_package_is_seen(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name in ("__init__.py", "_a.py", "_A.py", "sub.py", "sub/__init__.py"):
        (package / name).write_text("")
    assert _clashes_within_packages(package) == {
        "pkg": ["_A.py", "_a.py", "sub", "sub.py"]
    }


def test_no_base_name_repeats_across_packages():
    repeated = {
        name: paths
        for name, paths in _base_names().items()
        if len(paths) > 1 and name not in SHARED_BASE_NAMES
    }
    assert repeated == {}


def test_the_shared_base_names_are_still_shared():
    # An allowance outlives its reason when a rename leaves one module.
    names = _base_names()
    assert {n for n in SHARED_BASE_NAMES if len(names.get(n, ())) < 2} == set()


def _walk(call):
    """The skirm functions ``call`` enters, in order: ``[(caller module,
    module, function)]``."""
    entered = []

    def profile(frame, event, arg):
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            if module.startswith("skirm."):
                caller = frame.f_back.f_globals.get("__name__", "")
                entered.append((caller, module, frame.f_code.co_name))

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return entered


@pytest.mark.parametrize(
    "qrels, run, options",
    [
        (DATA / "qrels.test", DATA / "results.test", {}),
        (DATA / "qrels.test", DATA / "results.test", {"all_queries": True}),
        (
            Qrels(["q1", "q1", "q2"], ["d1", "d2", "d1"], [1, 0, 2]),
            Run(["q1", "q1", "q2"], ["d1", "d3", "d1"], [1.0, 0.5, 0.3]),
            {"judged_only": True},
        ),
        ({"q1": {"d1": 1}}, {"q1": {"d1": 0.5, "d2": 0.1}}, {"max_docs": 1}),
    ],
    ids=["files", "files-c", "records-J", "dicts-M"],
)
def test_the_trec_path_reads_once_then_goes_down(qrels, run, options):
    """Following the qrels through evaluate_run: read and indexed once, and
    no stage calls a reader after the join (a streamed run file reads its
    next blocks while the first ones are evaluated: only its block reader,
    ``skirm.io._run_blocks``, calls the readers then)."""
    evaluate_run(qrels, run, "map")  # imports and caches out of the walk
    walk = _walk(lambda: evaluate_run(qrels, run, "official", **options))
    # the join: of a run's blocks to the qrels index, or of dicts as they are
    # (``_dicts``: nothing is read into records at all)
    kinds = {("skirm.io._join", "join"), ("skirm.trec._dicts", "dict_context")}
    joins = [i for i, (_, module, name) in enumerate(walk) if (module, name) in kinds]
    assert joins
    if isinstance(run, dict):
        assert walk[joins[0]][1] == "skirm.trec._dicts"
        assert not [m for _, m, _ in walk if m.startswith(READERS)]
    late = {
        f"{caller} -> {module}.{name}"
        for caller, module, name in walk[joins[0] :]
        if module.startswith(READERS) and not caller.startswith(("skirm.io.",))
    }
    assert late == set()
    # The qrels are indexed once, whatever the number of blocks: a file's
    # anew, a Qrels' index kept with it from the call before (dicts are
    # their own index: looked up as they are, never indexed).
    indexed = 1 if isinstance(qrels, Path) else 0
    indexes = sum(m == "skirm.io._join" and n == "__init__" for _, m, n in walk)
    assert indexes == indexed


def test_the_qrels_are_read_once(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    walk = _walk(lambda: evaluate_run(path, Run(["q1"], ["d1"], [1.0]), "P.5"))
    readers = ("read_qrels", "read_qrels_rows", "read_bytes")
    reads = [name for _, _, name in walk if name in readers]
    assert reads == ["read_qrels", "read_qrels_rows"]
    assert read_qrels(path).labels.tolist() == [1, 0]
