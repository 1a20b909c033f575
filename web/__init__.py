"""The browser client: HTML, CSS and JavaScript (ES modules) in ``static/``, served by
``gomoku-server`` on its own port (``http://host:port/``, see :mod:`server.http_files`).

Nothing here is built or bundled: the files are shipped as they are and talk to the
server with the JSON encoding of the wire protocol (subprotocol ``gomoku.json``).
"""
