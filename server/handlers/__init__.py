"""The client messages' handlers, one module per family, and the dispatch table
:data:`HANDLERS` (message type -> handler) the connection looks each message up in.

A new message: its type in :mod:`protocol.messages`, a handler in the family it belongs
to (``async def on_x(session, msg)``), and a row here.
"""

from protocol import messages as m
from server.handlers import ai, chat, hello, lobby, offers, play, records, rooms, workers
from server.handlers.base import Handler, Refused, Session

HANDLERS: dict[type, Handler] = {
    m.Hello: hello.on_hello,
    m.Ping: hello.on_ping,
    m.LobbyWatch: lobby.on_lobby_watch,
    m.Queue: lobby.on_queue,
    m.Unqueue: lobby.on_unqueue,
    m.CreateRoom: rooms.on_create_room,
    m.Join: rooms.on_join,
    m.Leave: rooms.on_leave,
    m.Resume: rooms.on_resume,
    m.Move: play.on_move,
    m.Choose: play.on_choose,
    m.Resign: play.on_resign,
    m.Claim: play.on_claim,
    m.Offer: offers.on_offer,
    m.Answer: offers.on_answer,
    m.Chat: chat.on_chat,
    m.SeatAi: ai.on_seat_ai,
    m.CreateAiGame: ai.on_create_ai_game,
    m.Hint: ai.on_hint,
    m.BotReady: workers.on_bot_ready,
    m.BotHeartbeat: workers.on_bot_heartbeat,
    m.HintResult: workers.on_hint_result,
    m.GetLeaderboard: records.on_get_leaderboard,
    m.GetProfile: records.on_get_profile,
    m.ListGames: records.on_list_games,
    m.GetRecord: records.on_get_record,
}
"""Client message type -> handler. Every ClientMessage type has an entry."""

__all__ = ["HANDLERS", "Handler", "Refused", "Session"]
