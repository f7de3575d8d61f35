"""Mutation testing of one module against the tests that cover it.

    python tools/mutation.py skirm/metrics/_diversity.py tests/metrics/test_diversity.py
    python tools/mutation.py skirm/_frames.py tests/engine/test_frames.py \
        --names 'skirm._frames.x__arrow*'     # only the functions changed

Copies the committed tree (``git archive HEAD``, plus uncommitted changes of
the module and tests named) to a scratch folder, writes mutmut's
configuration for that module there, runs mutmut (``pip install -e
".[mutation]"``) on two workers and prints the surviving mutants with their
diffs, then the counts. The checkout itself is never modified. A survivor is
either killed by a new or sharper test or listed as equivalent, with the
reason, in the campaign's report.
"""

from __future__ import annotations

import argparse
import fnmatch
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="the file to mutate, e.g. skirm/io/_tokens.py")
    parser.add_argument("tests", nargs="+", help="the test files that cover it")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy")
    parser.add_argument(
        "--names",
        nargs="+",
        default=[],
        help="only the mutants whose names match these patterns (fnmatch), "
        "e.g. 'skirm._frames.x__arrow*': the functions a change touched",
    )
    args = parser.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="skirm-mutation-"))
    archive = subprocess.run(
        ["git", "archive", "HEAD"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
    for path in (args.module, *args.tests):
        shutil.copy2(ROOT / path, scratch / path)
    # setup.cfg lists: one value per line.
    tests = "".join(f"\n    {test}" for test in args.tests)
    (scratch / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths=skirm\n"
        f"only_mutate={args.module}\n"
        f"pytest_add_cli_args_test_selection={tests}\n"
        "pytest_add_cli_args=\n    -p\n    no:cacheprovider\n"
    )
    try:
        subprocess.run(
            ["mutmut", "run", "--max-children", str(args.workers), *args.names],
            cwd=scratch,
            stdout=subprocess.DEVNULL,
            check=False,
        )
        listing = subprocess.run(
            ["mutmut", "results", "--all", "true"],
            cwd=scratch,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.splitlines()
        status = [line.rsplit(":", 1) for line in listing if ":" in line]
        if args.names:  # the mutants not run are listed as not checked
            status = [
                (name, state)
                for name, state in status
                if any(fnmatch.fnmatch(name.strip(), p) for p in args.names)
            ]
        survivors = [name.strip() for name, state in status if "survived" in state]
        for name in survivors:
            diff = subprocess.run(
                ["mutmut", "show", name], cwd=scratch, capture_output=True, text=True
            ).stdout
            changed = [
                line for line in diff.splitlines()
                if line[:1] in "+-" and line[:3] not in ("+++", "---")
            ]  # fmt: skip
            print(f"survived {name}")
            print("\n".join(f"    {line}" for line in changed))
        for name, state in status:
            if "timeout" in state:
                print(f"timed out {name.strip()}")
        counts = {}
        for _, state in status:
            counts[state.strip()] = counts.get(state.strip(), 0) + 1
        print(f"{args.module}: {sum(counts.values())} mutants, {counts}")
    finally:
        if args.keep:
            print(f"scratch copy kept at {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
