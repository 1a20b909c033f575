"""``python -m worker``: the same as ``gomoku-ai``."""

import sys

from worker.cli import main

sys.exit(main())
