"""The terminal client and the command line: programs that talk to the server as players."""
