"""The AI worker: a protocol client that plays AI seats the server assigns to it.

It connects with a bot key, offers seats and levels (``bot_ready``), and plays
each seat it is given over a connection of its own, exactly as protocol.md
describes for any bot. Searches run in a process pool, so the event loop that
serves every game stays responsive; an external Gomocup brain can play instead
of the built-in engine (``--brain``).
"""

__version__ = "0.1.0"
