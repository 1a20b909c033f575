"""The client's state, apart from any view: what the screens draw, and a pure reducer
from the server's messages and the client's own actions to it.

- :mod:`client.state.model`: the view model, one slice per concern, and ``reduce``;
- :mod:`client.state.session`: who the player is on the server, and the link;
- :mod:`client.state.lobby`: the rooms listed, the quick-match queue, the lobby's notice;
- :mod:`client.state.game`: the room on screen (seats, moves, clocks, offers, result);
- :mod:`client.state.room`: which room is on screen, the rooms sat in, a resume;
- :mod:`client.state.log`: the room's events and chat, in words;
- :mod:`client.state.history`: ratings, profiles and finished games;
- :mod:`client.state.words`: sentences shared by the log and the screens;
- :mod:`client.state.questions`: can a stone, a hint, an AI seat be asked for now?
"""
