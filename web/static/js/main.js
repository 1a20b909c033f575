// The browser client: state shared by the views, the connection's messages, and the
// routes (#/ lobby, #/room/ID-or-CODE play, #/watch/ID watch, #/leaderboard,
// #/profile[/PLAYER], #/review/GAME).

import { Connection, pageFolder, serverUrl } from "./net.js";
import { gameClockText, opponentOf, resultText, RoomState } from "./room.js";
import { LobbyView } from "./lobby.js";
import { GameView } from "./game.js";
import { LEVELS, allLevels } from "./levels.js";
import { LeaderboardView, ProfileView, ReviewView } from "./records.js";
import { nameProblem, normalName } from "./text.js";
import { clickSound, errorText, focusHeading, h, toast } from "./ui.js";

const LEFT_GAMES_CHECK_MS = 30000; // how often the page looks whether a game left here ended

/** Where this browser keeps a player of the arena the page is from: one key per arena,
 * by the page's folder ("/arena/"), as two arenas published under paths of one origin
 * share its storage (the second took the first's token, was refused it, and wrote its
 * own over it). An arena at the root keeps the names it always had. */
function arenaKey(name) {
  const folder = pageFolder(window.location);
  return folder === "/" ? `gomoku.${name}` : `gomoku.${name}@${folder}`;
}

const STORE = {
  name: arenaKey("name"),
  token: arenaKey("token"),
  sound: "gomoku.sound", // a liking of this browser's, for every arena
  ends: arenaKey("ends"), // rooms whose finished game this browser has shown
  level: arenaKey("level"), // the AI level last played: the lists offer it first
  opened: arenaKey("opened"), // in sessionStorage: this tab has shown the arena
  muted: arenaKey("muted"), // in sessionStorage: players whose chat this tab hides
};

/** Once, for an arena under a path: take the player kept before keys were per arena
 * (under the root's names), so an upgrade does not make its players new ones. If it was
 * another arena's, the server does not know the token and the page starts afresh,
 * under this arena's keys only. */
function takeOldKeys() {
  const moved = arenaKey("moved");
  if (STORE.token === "gomoku.token" || localStorage.getItem(moved)) return;
  for (const name of ["name", "token", "ends"]) {
    const old = localStorage.getItem(`gomoku.${name}`);
    if (old !== null && localStorage.getItem(arenaKey(name)) === null) localStorage.setItem(arenaKey(name), old);
  }
  localStorage.setItem(moved, "1");
}


/** Room ids and player ids are 1 to 40 characters, invite codes 1 to 32
 * (protocol/limits.py's ID_MAX, CODE_MAX). */
const ID_MAX = 40;
const NO_SUCH_CODE = "No room has that invite code: check it (a typo?), or the room has closed.";

/** A part of the address's hash, decoded; as it stands if it is no valid escape
 * ("%E0%A4%A" threw, and the page stayed where it was). */
function decodedPart(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export class App {
  constructor() {
    this.me = null; // the welcome
    this.rooms = new Map(); // room id -> RoomState
    this.codes = new Map(); // room id -> the invite code it was entered by (to watch it again)
    this.lobby = new Map(); // room id -> RoomSummary
    this.queued = null; // {rule, time, since: ms, ai_after_ms}
    this.searching = null; // the last quick match asked for (its queue message)
    this.seated = new Set(); // ids of the rooms this player sits in (the lobby's "Your games")
    this.opponents = new Map(); // room id -> opponent's name, of running games left here
    this.endedAway = new Map(); // room id -> GameResult, of those games that have ended since
    this.leftCheckedAt = 0; // performance.now() of the last look at how they stand
    this.suspended = false; // the page went into the back/forward cache: no connection
    this.current = null; // the room id shown
    this.route = null;
    this.rematchFrom = new Map(); // a rematch's room -> the room of the game before it
    this.shownState = null; // the connection's state the shown room was last drawn for
    this.conn = new Connection(serverUrl(window.location), {
      name: () => this.name,
      token: () => localStorage.getItem(STORE.token),
      onMessage: (m) => this.onMessage(m),
      onState: (state, detail) => this.onState(state, detail),
      onWelcome: (w) => this.onWelcome(w),
    });
    this.views = {
      name: document.getElementById("name-view"),
      lobby: new LobbyView(this, document.getElementById("lobby-view")),
      game: new GameView(this, document.getElementById("room-view")),
      leaderboard: new LeaderboardView(this, document.getElementById("leaderboard-view")),
      profile: new ProfileView(this, document.getElementById("profile-view")),
      review: new ReviewView(this, document.getElementById("review-view")),
    };
  }

  get name() {
    return localStorage.getItem(STORE.name) ?? "";
  }

  get sound() {
    return localStorage.getItem(STORE.sound) === "on";
  }

  set sound(on) {
    localStorage.setItem(STORE.sound, on ? "on" : "off");
  }

  /** The players whose chat this tab hides (id -> name as muted), until the tab is
   * closed: the reader's own choice, never sent (the muted player is not told). */
  get muted() {
    // Read from the tab's storage once: the log asks at each event of the room.
    if (!this.mutedPlayers) {
      try {
        const kept = JSON.parse(sessionStorage.getItem(STORE.muted) ?? "[]");
        this.mutedPlayers = new Map(Array.isArray(kept) ? kept.filter((pair) => Array.isArray(pair) && pair.length === 2) : []);
      } catch {
        this.mutedPlayers = new Map(); // (not JSON: kept by something else; start again)
      }
    }
    return this.mutedPlayers;
  }

  set muted(players) {
    this.mutedPlayers = players;
    sessionStorage.setItem(STORE.muted, JSON.stringify([...players]));
  }

  /** The AI level the lists show chosen: the last one played here, at first the
   * weakest (a newcomer's first game; the terminal client starts there too). */
  get aiLevel() {
    const level = localStorage.getItem(STORE.level);
    return allLevels().includes(level) ? level : LEVELS[0];
  }

  set aiLevel(level) {
    localStorage.setItem(STORE.level, level);
  }

  start() {
    const form = document.getElementById("name-form");
    const input = document.getElementById("name-input");
    input.value = this.name;
    input.addEventListener("input", () => input.setCustomValidity(""));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = normalName(input.value.trim()); // as the server keeps it
      const wrong = nameProblem(name);
      if (wrong) {
        input.setCustomValidity(wrong);
        input.reportValidity();
        return;
      }
      const changed = name !== this.name;
      localStorage.setItem(STORE.name, name);
      showName(name);
      if (this.conn.state === "offline" && !this.me) this.conn.start();
      else if (changed || !this.me) this.conn.restart();
      this.navigate();
    });
    document.getElementById("rename").addEventListener("click", () => {
      // A shared computer: the next person is a new player, not this one renamed (a
      // student who renamed the page took over the one before, games and rating).
      document.getElementById("name-new-box").hidden = !this.me;
      document.getElementById("name-old").textContent = this.me?.name ?? "";
      // Two buttons of one size, each saying what it does: a pupil at a shared computer
      // pressed the big "Play" and became the last pupil's player, renamed.
      const keep = this.me ? `Rename ${this.me.name}` : "Play";
      document.getElementById("name-ok").textContent = keep;
      document.getElementById("name-keep").textContent = keep;
      // A player who has a name changes it here: no "Welcome" (the first visit's words).
      document.getElementById("name-title").textContent = this.me ? "Change your name" : "Welcome";
      this.showView("name");
      input.focus();
    });
    document.getElementById("name-new").addEventListener("click", () => {
      const name = normalName(input.value.trim());
      const wrong = nameProblem(name);
      if (wrong) {
        input.setCustomValidity(wrong);
        input.reportValidity();
        return;
      }
      localStorage.removeItem(STORE.token); // the page's place on this server: a new one
      localStorage.removeItem(STORE.ends); // and the rooms the last one's games were in
      localStorage.setItem(STORE.name, name);
      this.me = null;
      this.rooms.clear();
      this.current = null;
      this.queued = null; // the search and seats were the other player's
      this.searching = null;
      this.seated = new Set();
      showName(name);
      this.conn.restart();
      location.hash = "#/";
      this.navigate();
    });
    window.addEventListener("hashchange", () => this.navigate());
    // Back on the network: connect now, not when the backoff says.
    window.addEventListener("online", () => this.conn.retryNow());
    window.addEventListener("offline", () => this.conn.suspect());
    // Leaving the page for another (a link, the address bar) may keep it in the
    // back/forward cache: its connection must not keep the player present in their
    // games meanwhile. Closed here; coming back resumes by token like a reconnect.
    window.addEventListener("pagehide", () => {
      if (!this.name) return;
      this.suspended = true;
      this.conn.stop();
    });
    window.addEventListener("pageshow", (event) => {
      if (!event.persisted || !this.suspended) return;
      this.suspended = false;
      this.conn.restart();
    });
    setInterval(() => this.tick(), 250);
    showName(this.name);
    if (this.name) this.conn.start();
    this.navigate();
  }

  // -- the connection -------------------------------------------------------------

  onState(state, detail) {
    if (state !== this.shownState) {
      this.shownState = state;
      // The board takes no move while not connected, and the status line says so.
      const room = this.current && this.rooms.get(this.current);
      if (room) this.views.game.update(room, null);
    }
    const badge = document.getElementById("conn");
    badge.dataset.state = state;
    if (state !== "offline") badge.title = "";
    if (state === "online") badge.textContent = "Online";
    else if (state === "connecting") badge.textContent = "Connecting…";
    else if (state === "offline") {
      const secs = Math.max(1, Math.round((detail.retryAt - performance.now()) / 1000));
      // The countdown is shown, not read out each second (the badge is a live region).
      // A server that said it was going away is restarting, as a rule: not this network.
      // (Short: a phone's header has two lines for it, the name and the pages.)
      const gone = this.conn.serverGone;
      badge.replaceChildren(gone ? "Restarting" : "Offline", h("span", { "aria-hidden": "true" }, `: retrying in ${secs} s`));
      badge.title = gone ? "The server is restarting: it said it was going away" : "";
    } else if (state === "forgotten") {
      localStorage.removeItem(STORE.token);
      this.queued = null; // the search was the forgotten player's
      this.searching = null;
      // (Either cause is the same refusal: the token expired unused, or the server kept no players.)
      toast("The server no longer knows you (your place expired, unused for its time, or it kept no players): you are a new player now, and your old games and rating stay with the player you were.");
    } else if (state === "refused" && detail.code === "bad_value") {
      // The server will not take this name: ask for another (a reload would only repeat it).
      badge.textContent = "Not connected";
      localStorage.removeItem(STORE.name);
      this.showView("name");
      const input = document.getElementById("name-input");
      // (Its reason without the wire's "hello message: field `name`:" before it; the
      // token stays, so a name kept from before a rule changed keeps its player.)
      const why = String(detail.message ?? "").replace(/^.*field `name`: /, "");
      const kept = localStorage.getItem(STORE.token) ? " Another name keeps your games and rating." : "";
      input.setCustomValidity(`The server refused this name: ${why}.${kept}`);
      input.reportValidity();
      input.focus();
    } else if (state === "refused") {
      badge.textContent = "Refused";
      toast(detail.message);
    }
  }

  onWelcome(welcome) {
    const first = this.me === null;
    const seatedBefore = this.seated;
    this.me = welcome;
    this.seated = new Set(welcome.rooms);
    localStorage.setItem(STORE.token, welcome.token);
    showName(welcome.name);
    this.conn.request({ type: "lobby_watch", on: true }).catch((error) => toast(errorText(error), { refusal: true }));
    // Rooms open in this page come back where they were (the events missed while away,
    // or a fresh snapshot); after a reload the route joins its room again.
    for (const room of this.rooms.values()) {
      this.conn.request({ type: "resume", room: room.id, after: room.seq }).catch(async (error) => {
        // A private game watched before the drop: watched again by the code it was
        // watched by (a spectator whose connection closed is no longer in it).
        const code = this.codes.get(room.id);
        if (error.code === "not_in_room" && code) {
          try {
            await this.conn.request({ type: "join", code, as: "spectator" });
            return;
          } catch (again) {
            error = again;
          }
        }
        if (error.code === "no_such_room" || error.code === "not_in_room") this.roomGone(room, false);
      });
    }
    // What the drop did to a move or chat line sent on it is told once the room is
    // caught up: a resume that replays events answers nothing to wait for, so a join of
    // one's own seat follows it, whose snapshot is the room now (protocol.md, resume).
    for (const room of this.rooms.values()) {
      if (!this.views.game.awaitsWord(room) || !room.seatOf(welcome.player)) continue;
      this.conn.request({ type: "join", room: room.id })
        .then(() => this.views.game.caughtUp(this.rooms.get(room.id) ?? room), () => {});
    }
    // Rooms this player sits in that the page does not show yet (after a reload on the
    // lobby, or a game started elsewhere): join them at once, so the player counts as
    // present there (presence follows attached connections) and the lobby's "Your games"
    // knows their state. Joining a room you sit in only sends its snapshot.
    for (const id of welcome.rooms) {
      if (this.rooms.has(id)) continue;
      this.conn.request({ type: "join", room: id }).catch(() => {});
    }
    // The server forgets a quick match with the connection it was asked on: ask again,
    // unless a match came just before the drop (a game of ours the page did not know).
    const matched = welcome.rooms.some((id) => !seatedBefore.has(id));
    if (this.queued && this.searching && !matched) {
      this.conn.request(this.searching).catch((error) => {
        this.queued = null; // refused (the store is down, say): the search is over
        this.views.lobby.update();
        toast(`The quick match could not go on (${errorText(error)}): search again.`);
      });
    } else {
      this.queued = null;
    }
    this.views.lobby.update();
    if (first && this.openTheOneGame(welcome.rooms)) return;
    if (first) this.navigate();
    else this.reloadShown();
  }

  /** The records' pages read the server when shown: on a new connection (a rename's, a
   * drop's) the one shown reads again. It said "Not connected to the server right now."
   * for good, under an "Online" badge. */
  reloadShown() {
    const [page, arg] = this.route ?? [];
    if (page === "leaderboard") this.views.leaderboard.load(arg || "freestyle");
    else if (page === "profile") this.views.profile.load(arg || null);
    else if (page === "review") this.views.review.load(arg);
  }

  /** The page's address opened anew (not a reload: this tab has not been here) on the
   * lobby by a player with one game: that game opens, as the terminal client goes back
   * into it (a newcomer who closed the window mid-game found the lobby, and their game
   * behind a button). True if it did. */
  openTheOneGame(rooms) {
    const opened = sessionStorage.getItem(STORE.opened) !== null;
    sessionStorage.setItem(STORE.opened, "1");
    const games = rooms.filter((id) => !this.endShown(id));
    const lobby = window.location.hash.replace(/^#\/?/, "") === "";
    if (opened || games.length !== 1 || !lobby) return false;
    history.replaceState(null, "", `#/room/${encodeURIComponent(games[0])}`);
    this.navigate();
    return true;
  }

  onMessage(m) {
    switch (m.type) {
      case "lobby":
        if (m.part === 0) this.lobby.clear();
        for (const room of m.rooms) this.lobby.set(room.id, room);
        this.views.lobby.update();
        break;
      case "lobby_room":
        this.lobby.set(m.room.id, m.room);
        this.views.lobby.update();
        break;
      case "lobby_gone":
        this.lobby.delete(m.room);
        if (this.opponents.has(m.room)) this.checkLeftGames(); // a game left here ended?
        this.views.lobby.update();
        break;
      case "queued":
        // The server's count (asked again after a reconnection, it starts afresh, as
        // does the wait for an AI).
        this.queued = { rule: m.rule, time: m.time, since: performance.now() - (m.since_ms ?? 0), ai_after_ms: m.ai_after_ms };
        this.views.lobby.update();
        break;
      case "unqueued":
        this.queued = null;
        this.views.lobby.update();
        break;
      case "snapshot":
        this.onSnapshot(m);
        break;
      case "event":
        this.onEvent(m);
        break;
      case "left": {
        const room = m.closed ? this.rooms.get(m.room) : undefined;
        if (room) this.roomGone(room, true); // unasked: the room's time on the server was up
        break;
      }
      case "error":
        toast(errorText(m), { refusal: true });
        break;
      default:
        break; // a message type from a newer server
    }
  }

  /** A room this page had is gone from the server: ``expired`` when the server said so
   * (``left`` with ``closed``: its time was up), else a ``resume`` found it gone (a restart
   * that did not keep it, or its time was up meanwhile). Said, and the lobby shown. */
  roomGone(room, expired) {
    this.rooms.delete(room.id);
    this.seated.delete(room.id); // no game to return to in "Your games"
    this.views.lobby.update();
    const shown = this.current === room.id;
    if (expired) {
      // Said where it stays until read: the player may come back to the screen later.
      if (!shown) return;
      this.views.lobby.notice(room.state === "over"
        ? "That game's room has closed: a finished game's room stays on the server for a while, "
          + "and its time was up. The game is kept in the players' profiles."
        : room.state === "waiting"
          ? "That room has closed: nobody took the other seat in time."
          : "That room has closed on the server.");
    } else if (room.state === "over") {
      // A finished game's record is kept: only its room closed (a restart, or expiry).
      toast("That game's room has closed; the game is kept in the players' profiles.");
    } else if (this.me && room.seatOf(this.me.player) && room.state !== "waiting") {
      const other = opponentOf(room.players, this.me.player);
      this.views.lobby.notice(`Your game${other ? ` with ${other.name}` : ""} is gone: the server no longer has it `
        + "(it restarted without keeping it). It was not rated or recorded: play it again if you like.");
    } else toast("That room is gone: back to the lobby.");
    if (shown) window.location.hash = "#/";
  }

  onSnapshot(m) {
    const previous = this.rooms.get(m.room.id);
    // The move limit (a game without a clock) restarts at each turn, and the first stone's
    // time (a game with one) at the start: the welcome says how long (30 s, protocol/limits.py's
    // FIRST_STONE_MS, from a server that does not say).
    const limits = this.me?.limits;
    const room = new RoomState(m.room, limits?.untimed_move_ms ?? 0, limits?.first_stone_ms ?? 30000, this.me?.player ?? null);
    if (previous) room.log = previous.log;
    else this.noteRematch(this.rematchFrom.get(room.id), room);
    this.rooms.set(room.id, room);
    this.noteSeat(room);
    // An unrequested snapshot of a new room is a match or a rematch: go there, unless
    // this tab shows another game of this player still being played (a match found by
    // the player's other tab took this one out of a game on its move): the header's
    // strip leads to the new one.
    if (m.re === null && !previous) {
      const shown = this.current && this.rooms.get(this.current);
      const playing = shown && ["playing", "opening"].includes(shown.state) && shown.seatOf(this.me?.player);
      if (!playing) this.open(room);
      return;
    }
    if (this.current === room.id) this.views.game.show(room);
  }

  /** The rematch of a game this page showed opens its log by saying so, and how that
   * game ended (its log stays with its room), as the terminal client's does. The new
   * room's snapshot may come before the old room's "rematch" event or after it: both
   * call this, and the line is written once. */
  noteRematch(last, room) {
    if (!last?.result || !room || room.rematchOf) return;
    this.rematchFrom.delete(room.id);
    room.rematchOf = last.id;
    room.log.unshift({ text: `Rematch of ${last.id}. Last game: ${resultText(last.result, last.moves.length, !last.time)}` });
    if (this.current === room.id) this.views.game.redrawLog(room);
  }

  onEvent(m) {
    const room = this.rooms.get(m.room);
    if (!room || m.seq <= room.seq) return;
    if (m.seq > room.seq + 1) {
      // A gap (never expected): ask for what is missing.
      this.conn.request({ type: "resume", room: room.id, after: room.seq }).catch(() => {});
      return;
    }
    room.seq = m.seq;
    let line = room.apply(m.event);
    if (m.event.type === "presence" && m.event.player === this.me?.player && line) {
      // Our own drop, replayed on our return: said as ours, not as another player's.
      // Gone from a finished game is leaving it, unless that absence is what ended it
      // (a phone's dropped network lost the game: it did not leave).
      const lostByIt = room.result?.reason === "abandon" && room.result.winner !== room.seatOf(this.me.player);
      line = m.event.online ? "You are back" : room.state === "over" && !lostByIt ? "You left" : "You were offline";
    }
    if (m.event.type === "chat") room.log.push(room.chatEntry(m.event.player, m.event.name, m.event.text));
    else if (line) room.log.push({ text: line, quiet: this.saidElsewhere(room, m.event) });
    // One click a move, from the tab in view (each open tab heard it).
    if (m.event.type === "moved" && this.sound && !document.hidden) clickSound();
    if (m.event.type === "player_joined" || m.event.type === "player_left" || m.event.type === "game_over") this.noteSeat(room);
    else if (this.seated.has(room.id)) this.views.lobby.renderGames(); // whose turn it is
    if (this.current === room.id) this.views.game.update(room, m.event);
    if (m.event.type === "rematch") {
      // Kept for the new room's snapshot: a spectator following it leaves this room first.
      this.rematchFrom.set(m.event.room, room);
      this.noteRematch(room, this.rooms.get(m.event.room));
    }
    if (m.event.type === "rematch" && this.current === room.id && !room.seatOf(this.me?.player)) {
      // A spectator follows the players into their rematch, as the terminal client does
      // (a stream showing the room went on showing the finished game).
      location.hash = `#/watch/${room.rematchCode ?? room.rematchRoom}`;
    }
  }

  /** Whether a screen reader hears `event` from another voice than the room's log, whose
   * line of it is then shown and not read (a result was read three times, an offer
   * twice): the announcer says the end of a game, an offer's alert one made to you. */
  saidElsewhere(room, event) {
    if (event.type === "game_over") return true;
    const me = this.me?.player;
    return event.type === "offered" && event.by !== me && Boolean(room.seatOf(me));
  }

  /** Look up which of the running games left here have ended since (a left room's
   * events no longer come here; a public one's end shows as its leaving the lobby, a
   * private one's is looked for now and then): "Your games" then says how each ended. */
  checkLeftGames() {
    const waiting = [...this.opponents.keys()].filter((id) => !this.endedAway.has(id) && !this.rooms.has(id));
    if (!waiting.length || !this.conn.identified) return;
    this.leftCheckedAt = performance.now();
    this.conn.request({ type: "list_games", limit: 20 }).then((games) => {
      for (const game of games.items) {
        if (this.opponents.has(game.id)) this.endedAway.set(game.id, game.result);
      }
      this.views.lobby.renderGames();
    }).catch(() => {});
  }

  /** Keep the lobby's "Your games" in step with a room's seats. */
  noteSeat(room) {
    if (this.me && room.seatOf(this.me.player)) this.seated.add(room.id);
    else this.seated.delete(room.id);
    this.views.lobby.update();
  }

  /** The rooms to offer under "Your games": seated there, and the game not over, or
   * over without this browser having shown its end (it ended while the player was away). */
  myGames() {
    return [...this.seated].filter((id) => !this.rooms.has(id) || this.rooms.get(id).state !== "over" || !this.endShown(id));
  }

  endShown(roomId) {
    return this.shownEnds().includes(roomId);
  }

  /** Note that the page showed this room's finished game. */
  showedEnd(roomId) {
    const ends = this.shownEnds();
    if (ends.includes(roomId)) return;
    localStorage.setItem(STORE.ends, JSON.stringify([...ends, roomId].slice(-50)));
    this.views.lobby.renderGames();
  }

  shownEnds() {
    try {
      const ends = JSON.parse(localStorage.getItem(STORE.ends) ?? "[]");
      return Array.isArray(ends) ? ends : [];
    } catch {
      return [];
    }
  }

  /** Make a room (a create_room message), seat an AI of `aiLevel` in its free seat if
   * given, and show it. Throws the server's refusal of the room. With no AI free the
   * room is left (closed) and the refusal a toast: left waiting, it was a public room
   * any stranger could join, for a player who asked for the AI. */
  async createRoom(message, aiLevel = null) {
    const snap = await this.conn.request(message);
    const roomId = snap.room.id;
    if (aiLevel) {
      this.conn.act({ type: "seat_ai", room: roomId, level: aiLevel }, (error) => {
        const room = this.rooms.get(roomId);
        if (error.code === "no_ai_available" && room?.state === "waiting") this.leave(roomId);
        toast(errorText(error), { refusal: true });
      });
    }
    this.open(this.rooms.get(roomId));
  }

  /** Show a room that has arrived: its link in the address bar, its page. */
  open(room) {
    // A player's own room by its id, a private one's too: its invite code in the address
    // stayed in the tab's history, where the next person at a shared computer found it
    // (Back, after "Play as a new player") and watched the room and read its chat. The
    // invite link to share is the room's Invite field.
    const mine = this.me && room.seatOf(this.me.player);
    const target = mine ? `#/room/${room.id}` : `#/watch/${room.id}`;
    this.current = room.id;
    if (window.location.hash !== target) window.location.hash = target;
    else this.navigate();
  }

  // -- routes -----------------------------------------------------------------------

  navigate() {
    if (!this.name) {
      this.showView("name");
      document.getElementById("name-input").focus();
      return;
    }
    const parts = window.location.hash.replace(/^#\/?/, "").split("/").map(decodedPart);
    const [page, arg] = parts;
    this.route = parts;
    this.stopWatching(page === "room" || page === "watch" ? arg : null);
    if ((page === "room" || page === "watch") && arg) {  // no id: the lobby
      this.showView("game");
      this.enterRoom(arg, page === "watch");
    } else if (page === "leaderboard") {
      this.current = null; // no room is shown: a game that ends meanwhile is not seen ending
      this.showView("leaderboard");
      this.views.leaderboard.load(arg || "freestyle");
    } else if (page === "profile") {
      this.current = null;
      this.showView("profile");
      this.views.profile.load(arg || null);
    } else if (page === "review") {
      this.current = null;
      this.showView("review");
      this.views.review.load(arg);
    } else {
      this.current = null;
      this.views.lobby.offerLevel();
      this.showView("lobby");
      this.views.lobby.update();
    }
  }

  /** Whether a route's `key` (a room id or an invite code, as typed) names `room`: by
   * its id, its code (shown to its players), or the code it was entered by. */
  routeIs(room, key) {
    const code = key.toUpperCase();
    return room.id === key || room.code === code || this.codes.get(room.id)?.toUpperCase() === code;
  }

  /** Stop watching the rooms this page shows as a spectator, other than `keep` (the
   * route's room id or invite code): gone elsewhere (the lobby, another game), the
   * spectator no longer counts as watching, nor gets the room's events. Rooms the
   * player sits in stay (a running game keeps its player present). */
  stopWatching(keep) {
    for (const room of [...this.rooms.values()]) {
      if (keep && this.routeIs(room, keep)) continue;
      if (this.me && room.seatOf(this.me.player)) continue;
      this.rooms.delete(room.id);
      this.codes.delete(room.id);
      if (this.current === room.id) this.current = null;
      this.conn.request({ type: "leave", room: room.id }).catch(() => {});
    }
  }

  showView(name) {
    // The title says where one is, for a screen reader (read on a view's change and a
    // tab's) and the tabs' strip: it said "Gomoku Arena" everywhere. A game's names its
    // players once shown (GameView.update).
    const where = { lobby: "Lobby", game: "Game", leaderboard: "Leaderboard", profile: "Profile", review: "Review" }[name];
    document.title = where ? `${where} · Gomoku Arena` : "Gomoku Arena";
    let shown = null;
    for (const [key, view] of Object.entries(this.views)) {
      const root = view instanceof HTMLElement ? view : view.root;
      root.hidden = key !== name;
      if (key === name) shown = root;
    }
    // Focus left in a view that is now hidden falls to the page's body, and a keyboard
    // user starts again from the top: it goes to the shown view's heading instead.
    const focused = document.activeElement;
    if (shown && (!focused || focused === document.body || focused.closest("[hidden]"))) {
      focusHeading(shown);
    }
  }

  /** The room a link names (an id or an invite code): sit down if there is a seat,
   * else watch. A room already open here is just shown. */
  async enterRoom(key, watch) {
    if (!key) return;
    const known = [...this.rooms.values()].find((r) => this.routeIs(r, key));
    if (known) {
      this.current = known.id;
      this.views.game.show(known);
      return;
    }
    if (key.length > ID_MAX) {
      // No room has such an id (a code is shorter still): said so, the key cut short.
      this.views.game.failed(`${key.slice(0, ID_MAX)}…`, errorText({ code: "no_such_room" }));
      return;
    }
    this.views.game.waiting(key);
    if (!this.me) return; // onWelcome navigates again
    const target = key.startsWith("r-") ? { room: key } : { code: key };
    try {
      let snap;
      try {
        snap = await this.conn.request({ type: "join", ...target, as: watch ? "spectator" : "player" });
      } catch (error) {
        if (error.code !== "room_full" || watch) throw error;
        snap = await this.conn.request({ type: "join", ...target, as: "spectator" });
        toast("Both seats are taken: you are watching."); // (the page alone did not say it)
      }
      this.current = snap.room.id;
      if (target.code) this.codes.set(snap.room.id, target.code);
      const room = this.rooms.get(snap.room.id);
      if (target.code && room?.seatOf(this.me?.player)) {
        history.replaceState(null, "", `#/room/${snap.room.id}`); // as open() does: no code kept
      }
      if (room) this.views.game.show(room);
    } catch (error) {
      // A code no room has is as likely a typo as a room closed: say both.
      const text = error.code === "no_such_room" && target.code ? NO_SUCH_CODE : errorText(error);
      toast(text);
      this.views.game.failed(key, text);
    }
  }

  /** Leave the shown room (stop watching it) and go to the lobby. */
  async leave(roomId) {
    // A running game goes on without this page (the seat is kept); a waiting room's seat
    // is given up, and a finished game is done with.
    const room = this.rooms.get(roomId);
    const running = room && (room.state === "playing" || room.state === "opening");
    if (!(running && this.me && room.seatOf(this.me.player))) this.seated.delete(roomId);
    else {
      // Its events stop coming here, so the lobby says only who the game is with.
      const other = opponentOf(room.players, this.me.player);
      if (other) this.opponents.set(roomId, other.name);
    }
    this.rooms.delete(roomId);
    this.current = null;
    window.location.hash = "#/";
    await this.conn.request({ type: "leave", room: roomId }).catch(() => {});
  }

  tick() {
    if (this.current && this.rooms.has(this.current)) this.views.game.tick(this.rooms.get(this.current));
    this.renderPlaying();
    if (this.queued) this.views.lobby.tick();
    if (this.opponents.size && performance.now() - this.leftCheckedAt > LEFT_GAMES_CHECK_MS) this.checkLeftGames();
    // Only a connection that dropped counts down to its retry: before a name is chosen
    // nothing connects, and the badge stays "Not connected" (not a red "retrying").
    if (this.conn.state === "offline" && this.conn.retryTimer !== null) {
      this.onState("offline", { retryAt: this.retryAt() });
    }
  }

  /** A running game of this player's that the page does not show (the header's links
   * lead away from it and it goes on): a strip under the header says whose turn it is,
   * with the player's clock, and leads back. A bullet player who went to the lobby lost
   * on time, unwarned. */
  renderPlaying() {
    const strip = document.getElementById("playing");
    const me = this.me?.player;
    const live = (room) => room.state === "playing" || room.state === "opening";
    const room = me
      ? [...this.rooms.values()].find((r) => r.id !== this.current && live(r) && r.seatOf(me))
      : undefined;
    strip.hidden = !room;
    if (!room) return;
    const other = opponentOf(room.players, me)?.name ?? "your opponent";
    const mine = room.actor === me;
    const clock = room.clocks ? `, ${gameClockText(room.clockMs(room.seatOf(me)))} on your clock` : "";
    const text = `Your game with ${other}: ${mine ? "your turn" : `${other}'s turn`}${clock}. Back to it`;
    if (strip.textContent !== text) strip.textContent = text;
    strip.href = `#/room/${room.id}`;
    strip.classList.toggle("urgent", mine);
  }

  retryAt() {
    return this.conn.retryDeadline ?? performance.now(); // (net.js's times)
  }
}

/** The player's name in the header (cut short on a phone: whole in its title). */
function showName(name) {
  const me = document.getElementById("me");
  me.textContent = name;
  me.title = name;
}

window.addEventListener("DOMContentLoaded", () => {
  takeOldKeys();
  const app = new App();
  window.gomoku = app; // for people poking at it in the console, and the tests
  app.start();
});
