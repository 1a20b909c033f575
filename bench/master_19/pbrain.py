"""The master level as it was when issue 19 began (commit 2c5b8a3), frozen as a
Gomocup brain: the reference the new AI is measured against.

This folder holds a copy of that commit's ``engine`` package and of the brain side
of ``gomocup`` (``session.py``, ``brain.py``). Run it with site-packages off, so
that the copies, not the installed live project, are imported::

    python3 -S bench/master_19/pbrain.py [--level master]

It needs the standard library only. Nothing here may change: later work on the AI
must not move the reference.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    sys.path.insert(0, str(HERE))
    import engine  # the frozen copy beside this file
    from gomocup import brain

    for module in (engine, brain):
        if not Path(module.__file__ or "").resolve().is_relative_to(HERE):
            print(f"{module.__name__} was not imported from {HERE}", file=sys.stderr)
            return 2
    return brain.main()


if __name__ == "__main__":
    sys.exit(main())
