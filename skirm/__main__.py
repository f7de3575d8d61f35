"""``python -m skirm`` and the ``skirm`` command: the command line.

The command's modules (numpy's among them) are imported with the cyclic
garbage collector paused, then frozen. Module-level objects are never
garbage, and a collection during the imports runs every few hundred new
objects, each older generation's walking every object made so far: for the
usual ``skirm eval`` run, the collections cost more than most of the
evaluation's stages. Frozen objects are left out of every later collection;
the evaluation's own objects are collected as usual.
"""

import gc
import sys


def main() -> int:
    """Run the ``skirm`` command line as this process's program: import
    :mod:`skirm._cli` (see above) and return :func:`skirm._cli.main`'s exit
    status. Ctrl-C before the command has started its work (during the
    imports, the parsing) is one line on standard error and status 130, as
    during the work, not a traceback."""
    try:
        enabled = gc.isenabled()
        gc.disable()
        try:
            from skirm._cli import main as command_line
        finally:
            gc.freeze()
            if enabled:
                gc.enable()
        return command_line()
    except KeyboardInterrupt:
        from skirm._errors import INTERRUPTED  # 128 + SIGINT, as a shell says

        print("skirm: interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
