"""``python -m skirm``: the command line."""

import sys

from skirm._cli import main

if __name__ == "__main__":
    sys.exit(main())
