"""``python -m server``: the same as ``gomoku-server``."""

import sys

from server.cli import main

sys.exit(main())
