"""The terminal client and the command line: programs that talk to the server as players."""

__version__ = "0.1.0"
