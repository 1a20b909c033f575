// A room's page: the board, both players and clocks, whose turn it is, the controls a
// player has at that moment (swap2 choices, offers and answers, resign, hint, AI seat,
// claim, rematch), the result with rating changes, the move list, and the chat.

import { BoardView } from "./board.js";
import { levelSelect } from "./levels.js";
import { examplePoint, parsePoint, unreadText } from "./notation.js";
import { aborted, changeText, choicesText, clockText, gameClockText, offerWords, opponentOf, RATED_MIN_STONES, ratingText, roomResultText, timeControlText } from "./room.js";
import { pageFolder } from "./net.js";
import { downloadButtons, downloadRecord } from "./records.js";
import { foulText, hintText } from "./rules.js";
import { CHAT_MAX, chatProblem } from "./text.js";
import { TOAST_MS, errorText, h, option, placeToast, toast } from "./ui.js";

const CHOICE_WORDS = { black: "Take Black", white: "Take White", place2: "Place two more stones" };
// The events that settle an action in flight: a move's stone (or what ends the turn
// without it); an accepted offer's effect (an accepted draw's `answered` comes before
// its `game_over`, and the page must not take clicks on the controls in between: the
// second click of a double click would land on whatever replaced Accept); for anything
// else, any news of the game.
const MOVE_ANSWERS = new Set(["moved", "undone", "game_over"]);
const ACCEPTED = { draw: new Set(["game_over"]), takeback: new Set(["undone", "game_over"]), rematch: new Set(["rematch"]) };
const NO_ANSWERS = new Set(["chat", "spectator_count", "presence"]);
// In a game without a clock, the player to act is told how long is left before the
// opponent may claim the win from this long before the move limit runs out.
const MOVE_WARNING_MS = 60000;

export class GameView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.roomId = null;
    this.againSent = false; // a "Play the AI again" request is on its way
    this.movesShown = -1;
    this.logShown = -1;
    this.refusal = null; // a refusal shown on the status line for a while
    this.refusalTimer = null;
    this.sent = null; // {room, id, settles}: an action of this page not answered yet
    this.chatSent = null; // {room, id, text}: a chat line sent whose line has not come back
    this.premove = null; // {room, stones, point}: a move kept while the opponent thinks
    this.claimShown = false; // the Claim button is shown (the tick redraws when that changes)
    this.build();
  }

  build() {
    this.title = h("h1", { class: "room-title" });
    this.share = h("div", { class: "share" });
    // What the game stands at, seen; not a live region: what it says a screen reader
    // hears once from its one voice (the announcer, a toast, the room log, an offer's
    // alert), and results, offers and refusals were read two or three times over.
    this.status = h("p", { id: "status", class: "status", "data-toast-clear": true });
    this.boardHost = h("div", { class: "board-host" });
    this.board = new BoardView(this.boardHost, {
      onPlay: (point) => this.play(point),
      onSelect: (point) => this.selected(point),
      allowed: (point) => this.allowed(point),
      blocked: (point) => this.blocked(point),
      unread: (typed) => this.refuse(unreadText(typed, this.board.size)),
      escape: () => this.toAnswers(),
    });
    // What a screen reader should hear as it happens (the opponent's move, the result),
    // which the page shows elsewhere only as a change on the board.
    this.announcer = h("p", { class: "sr-only", id: "announce", "aria-live": "polite" });
    // The last minute of a game without a clock's move limit, on your move (no live
    // region: a countdown read out each second; the announcer says it once).
    this.moveLimit = h("p", { class: "countdown", id: "move-limit", hidden: true });
    // A game with a clock nobody has begun: the time left for its first stone before the
    // server aborts it, to the players and spectators (no live region either).
    this.firstStone = h("p", { class: "countdown", id: "first-stone", hidden: true });
    this.confirmBar = h("div", { class: "confirm-bar", hidden: true },
      h("button", { type: "button", id: "confirm-move", onclick: () => this.board.confirm() }, "Place"),
      h("button", { type: "button", class: "secondary", onclick: () => this.board.select(null) }, "Cancel"));
    this.seats = {
      black: this.seatRow("black"),
      white: this.seatRow("white"),
    };
    this.controls = h("div", { class: "controls" });
    this.offerBox = h("div", { class: "offer", role: "alert" });
    this.resultBox = h("div", { class: "result", id: "result", "data-toast-clear": true });
    this.moves = h("ol", { class: "moves", id: "moves", "aria-label": "Moves" });
    this.log = h("ul", { class: "log", id: "chat-log", "aria-live": "polite" });
    // maxlength counts UTF-16 units (an emoji is two), the server code points: the form
    // checks the length (chatProblem); this only stops a paste of a book.
    this.chatInput = h("input", { id: "chat-input", maxlength: 2 * CHAT_MAX, autocomplete: "off", "aria-label": "Chat message", placeholder: "Say something" });
    this.chatInput.addEventListener("input", () => this.chatInput.setCustomValidity(""));
    // Escape from the chat's line or an offer's answers: back to the board, as the
    // terminal's Esc (the keys stayed in the chat's input).
    const toBoard = (e) => {
      if (e.key !== "Escape" || !this.board.cursor) return;
      e.preventDefault();
      this.board.focus({ reveal: true });
    };
    this.chatInput.addEventListener("keydown", toBoard);
    this.offerBox.addEventListener("keydown", toBoard);
    const chatForm = h("form", { class: "chat-form", onsubmit: (e) => this.chat(e) },
      this.chatInput, h("button", { type: "submit" }, "Send"));
    // Muting: the reader's own choice, kept in this tab (App.muted); the muted player's
    // lines leave the log, the ones said before too, and nobody is told.
    this.muteSummary = h("summary", {}, "Mute chat…");
    this.muteList = h("ul", { class: "mute-list" });
    this.muteBox = h("details", { class: "mute", id: "mute" }, this.muteSummary,
      h("p", { class: "hint-text" }, "Hide a player's chat on this page until you close the tab. They are not told."),
      this.muteList);
    this.muteBox.addEventListener("toggle", () => { if (this.shownRoom) this.renderMute(this.shownRoom); });
    const side = h("aside", { class: "side" },
      // The countdowns beside the clocks, where a player looks for time (below the board
      // they were under the fold of a laptop's screen).
      // An offer comes under the buttons: above them it pushed them down as it came, and
      // Accept took the place of the Take back a player was about to click.
      this.seats.black.row, this.seats.white.row, this.moveLimit, this.firstStone, this.resultBox, this.controls, this.offerBox,
      h("h2", {}, "Moves"), this.moves, h("h2", {}, "Room"), this.log, chatForm, this.muteBox);
    const head = h("div", { class: "room-head" }, this.title, this.share,
      h("button", { type: "button", id: "leave", class: "secondary", onclick: () => this.leave() }, "Leave"));
    this.root.replaceChildren(head,
      h("div", { class: "room-body" },
        h("div", { class: "board-col" }, this.boardHost, this.confirmBar, this.status, this.announcer,
          // What the keys do on the board, seen (the board's name says it to a screen
          // reader alone); not on a touch screen, as the review's line.
          this.keysHint = h("p", { class: "hint-text keys-hint" }, "On the board: arrows move, a point typed (h8) goes there, . to the last move, Enter or Space plays, Esc to an offer's answers.")),
        side));
  }

  seatRow(colour) {
    const name = h("span", { class: "name", id: `name-${colour}` });
    const clock = h("span", { class: "clock", id: `clock-${colour}` });
    const presence = h("span", { class: "presence" });
    const row = h("div", { class: `seat ${colour}` },
      // The colour in words for a screen reader; shown too under forced colours (Windows
      // high contrast), where both dots were the same ring (style.css). Seen always, it
      // cut names short on a laptop.
      h("span", { class: `dot ${colour}`, "aria-hidden": "true" }), h("span", { class: "colour" }, colour === "black" ? "Black" : "White"),
      name, presence, clock);
    return { row, name, clock, presence };
  }

  waiting(key) {
    this.clear();
    this.title.textContent = `Room ${key}`;
    this.status.textContent = "Joining…";
  }

  /** Empty the page of the room shown before (its board, result, controls, moves and
   * chat), so that nothing of it shows in the next one. */
  clear() {
    this.root.classList.remove("failed");
    this.roomId = null;
    this.sent = null;
    this.clearRefusal();
    this.board.clear();
    this.keysHint.hidden = true; // (no board, no keys: a code that led nowhere shows none)
    this.confirmBar.hidden = true;
    this.chatInput.value = "";
    this.title.textContent = "";
    this.share.replaceChildren();
    for (const seat of Object.values(this.seats)) {
      seat.name.textContent = "";
      seat.name.title = "";
      seat.clock.textContent = "";
      seat.presence.textContent = "";
      seat.row.classList.remove("to-act");
      seat.clock.classList.remove("running");
    }
    this.controls.replaceChildren();
    this.offerBox.replaceChildren();
    this.offerBox.hidden = true;
    this.resultBox.replaceChildren();
    this.resultBox.hidden = true;
    this.moves.replaceChildren();
    this.log.replaceChildren();
    this.muteList.replaceChildren();
    this.muteBox.open = false;
    this.muteKey = null;
    this.shownRoom = null;
    this.status.textContent = "";
    this.announcer.textContent = "";
    for (const line of [this.moveLimit, this.firstStone]) {
      line.textContent = "";
      line.hidden = true;
    }
    this.claimShown = false;
    this.clockLeft = null; // one's own running clock at the last render (ms)
    this.offerKey = null;
    this.movesShown = -1;
    this.logShown = -1;
  }

  /** A room that could not be entered: its name, why, and the way back; the room's
   * panels (seats, moves, chat) are hidden, having nothing to show. */
  failed(key, why) {
    this.root.classList.add("failed");
    this.title.textContent = `Room ${key}`;
    this.status.replaceChildren(`Could not enter ${key}: ${why} `,
      h("a", { href: "#/" }, "Back to the lobby"));
  }

  get me() {
    return this.app.me ? this.app.me.player : null;
  }

  /** Show a room afresh (a snapshot). */
  show(room) {
    const entering = this.roomId !== room.id;
    if (entering) {
      this.clear();
      this.roomId = room.id;
    }
    this.movesShown = -1;
    this.logShown = -1;
    // A snapshot (a resume) is the room now: an announcement of a move before it is
    // stale (a screen reader read a move made before the drop as the latest).
    this.announcer.textContent = "";
    this.update(room, null);
    this.keysToBoard(room); // (come back to from the header's strip or "Your games" too)
    if (entering) {
      // From the top of the room: a phone kept the lobby's scroll, the header, the title
      // and the opponent's clock above the board out of sight.
      window.scrollTo(0, 0);
      this.announceLastMove(room);
    }
  }

  /** Entering a game one plays (from the lobby, by a link, a rematch), or its start in
   * the room shown (an AI seated, an opponent come): the keys go to the board, where the
   * next action is. They stayed on the room's title (three Tabs away, Leave among them:
   * a point typed did nothing), or after a rematch on the page's body, where arrows
   * scrolled, or on the header's link back. Not when they are elsewhere in the room (the
   * chat's input). On a touch screen, where no key comes and the focus square would stand
   * on the board like a stone's mark, to the room's title instead, where a screen
   * reader's reading starts (a rematch left it on the page's body). */
  keysToBoard(room) {
    const running = room.state === "playing" || room.state === "opening";
    const focused = document.activeElement;
    // (Outside the room, on the link that led here, the header's strip, a hidden lobby: the
    // keys are taken along; a field being typed in keeps them.)
    const lost = !focused || focused === document.body || focused === this.title
      || (!this.root.contains(focused) && !focused.matches("input, textarea, select"));
    if (!(running && lost && room.seatOf(this.me))) return;
    if (!window.matchMedia("(pointer: coarse)").matches) this.board.focus();
    else if (focused !== this.title) {
      this.title.setAttribute("tabindex", "-1");
      this.title.focus({ preventScroll: true });
    }
  }

  /** Entering a running game whose last stone is another's (a rematch the AI opened as
   * Black, a game come back to): say it, as the stones played while one watches are
   * said; "Your move: White." came with no word of where Black's stone was. */
  announceLastMove(room) {
    const last = room.moves.length ? room.moves[room.moves.length - 1] : null;
    if (!last || !(room.state === "playing" || room.state === "opening")) return;
    const colour = room.moves.length % 2 ? "black" : "white";
    const mover = room.state === "opening" ? null : room.players[colour]; // (swap2: the placer's own)
    const words = this.playedWords(mover, colour, last);
    if (words) this.announcer.textContent = words;
  }

  /** "hal (White) played a1." for another's stone (by `mover`, a seat or null when not
   * known, in `color`), null for one's own; `placing`: a swap2 opening's stone, whose
   * placer holds no colour yet ("hal placed a1, a white stone."). */
  playedWords(mover, color, point, placing = false) {
    if (mover && mover.id === this.me) return null;
    const colour = color === "black" ? "Black" : "White"; // as the status says it
    if (placing && mover) return `${mover.name} placed ${point}, a ${color} stone.`;
    return `${mover ? `${mover.name} (${colour})` : colour} played ${point}.`;
  }

  /** Bring the page up to date after an event. */
  update(room, event) {
    if (this.roomId !== room.id) return;
    if (event?.type === "chat" && event.player === this.me && event.text === this.chatSent?.text) {
      this.chatSent = null;
    }
    if (event && this.sent && (this.sent.settles ? this.sent.settles.has(event.type) : !NO_ANSWERS.has(event.type))) {
      this.sent = null;
    }
    const mySeat = room.seatOf(this.me);
    // Without a clock, the move limit from the start (it was said only in its last minute).
    const limit = !room.time && room.moveLimitMs > 0 ? ` (${clockText(room.moveLimitMs)} a move)` : "";
    const bits = [room.rule, `${room.size}×${room.size}`, room.opening === "swap2" ? "swap2" : null,
      timeControlText(room.time) + limit, room.rated ? "rated" : "casual", room.private ? "private" : null];
    this.title.textContent = bits.filter(Boolean).join(" · ");
    if (!this.root.hidden) { // (the page's title: who plays, as the tabs' strip shows it)
      const names = ["black", "white"].map((seat) => room.players[seat]?.name ?? "–");
      const title = `${names[0]} – ${names[1]} · Gomoku Arena`;
      if (document.title !== title) document.title = title; // (not at every stone)
    }
    this.renderShare(room, mySeat);
    this.renderSeats(room);
    this.renderBoard(room, mySeat);
    this.renderControls(room, mySeat);
    this.renderMoves(room);
    this.renderLog(room);
    // A refusal is news only until the game moves on (a chat line or a spectator
    // count does not move it).
    if (event && event.type !== "chat" && event.type !== "spectator_count") this.clearRefusal();
    this.renderStatus(room, mySeat);
    if (event) this.announceEvent(room, mySeat, event);
    if (event?.type === "moved" || event?.type === "undone" || event?.type === "game_over") {
      this.playPremove(room);
    }
    if (event?.type === "game_started") {
      this.keysToBoard(room);
      // The log says the game started; whose move it is only the status line showed.
      if (room.actor === this.me) this.announcer.textContent = this.statusText(room, mySeat);
    }
    this.renderMoveLimit(room, mySeat);
    this.renderFirstStone(room);
    // The board's keys, for one who plays on it now (not a spectator, not after the end).
    this.keysHint.hidden = !(mySeat && (room.state === "playing" || room.state === "opening"));
    const keys = `On the board: arrows move, a point typed (${examplePoint(room.size)}) goes there, . to the last move, Enter or Space plays, Esc to an offer's answers.`;
    if (this.keysHint.textContent !== keys) this.keysHint.textContent = keys;
    if (room.state === "over" && mySeat) this.app.showedEnd(room.id);
    placeToast(); // the result may have come where a toast is
  }

  renderStatus(room, mySeat) {
    const text = this.refusal ?? this.statusText(room, mySeat);
    if (this.status.textContent !== text) this.status.textContent = text;
    this.status.classList.toggle("refusal", Boolean(this.refusal));
  }

  /** Say what a sighted player sees happen: another player's stone (the status line
   * only says whose move it is next), and how the game ended, for you. */
  announceEvent(room, mySeat, event) {
    let text = null;
    if (event.type === "moved") {
      // In a swap2 opening the player placing stones is not the colour's (the opener
      // places White's stone too, the chooser Black's): the one the opening asks.
      const placing = room.state === "opening" && room.swap2 ? room.swap2.to_act : null;
      const mover = placing ? { id: placing, name: room.nameOf(placing) } : room.players[event.color];
      text = this.playedWords(mover, event.color, event.point, Boolean(placing));
    } else if (event.type === "game_over") {
      const winner = room.result && room.result.winner;
      const yours = !mySeat || !winner ? "" : winner === mySeat ? " You win." : " You lose.";
      // One's own rating's change, which the result box shows (it went unsaid).
      const mine = (room.ratings ?? []).find((r) => r.player === this.me);
      const rating = mine ? ` Your rating: ${mine.before} to ${ratingText(mine.after, mine.provisional)} (${changeText(mine)}).` : "";
      text = `${roomResultText(room)}.${yours}${rating}`;
    }
    if (text) this.announcer.textContent = text;
  }

  /** "Move within 0:45, or bob may claim the win.": on your move in a game without a
   * clock, in the last minute of the move limit (said to a screen reader once, as it
   * appears); hidden otherwise. */
  renderMoveLimit(room, mySeat) {
    this.showCountdown(this.moveLimit, this.moveLimitText(room, mySeat));
  }

  /** "Place the first stone within 0:25, or the game is aborted." to Black (the opener,
   * in swap2), "bob has 0:25 to place the first stone, or the game is aborted." to the
   * opponent and spectators: in a game with a clock before its first stone (said to a
   * screen reader once, as it appears); hidden otherwise. */
  renderFirstStone(room) {
    this.showCountdown(this.firstStone, this.firstStoneText(room));
  }

  /** A countdown's line: shown while it has `text`, written only when that changes,
   * and handed to the announcer once as it appears (not each second). */
  showCountdown(line, text) {
    if (text && line.hidden) this.announcer.textContent = line.announced = text;
    // Gone (the stone was placed): nor is it announced any more (a screen reader still
    // read "Place the first stone within 0:30" after it). The line counted down since
    // it was said: it is what was said that goes, unless something else was said since.
    if (!text && !line.hidden && this.announcer.textContent === line.announced) {
      this.announcer.textContent = "";
    }
    if (line.textContent !== text) line.textContent = text;
    line.hidden = !text;
  }

  firstStoneText(room) {
    const left = room.state === "playing" || room.state === "opening" ? room.abortIn() : null;
    if (left === null) return "";
    const black = room.players.black;
    if (black && black.id === this.me) return `Place the first stone within ${clockText(left)}, or the game is aborted.`;
    return `${black ? black.name : "Black"} has ${clockText(left)} to place the first stone, or the game is aborted.`;
  }

  moveLimitText(room, mySeat) {
    const left = mySeat && room.actor === this.me ? room.moveClaimIn() : null;
    if (left === null || left >= MOVE_WARNING_MS) return "";
    const other = opponentOf(room.players, this.me);
    const who = other ? other.name : "your opponent";
    return left > 0 ? `Move within ${clockText(left)}, or ${who} may claim the win.` : `Move now: ${who} may claim the win.`;
  }

  /** Whether this player may claim the win now: the opponent gone past the grace period,
   * or, in a game without a clock, to act past the move limit (connected or not). */
  claimable(room, mySeat) {
    const playing = room.state === "playing" || room.state === "opening";
    const other = mySeat ? opponentOf(room.players, this.me) : null;
    if (!playing || !other) return false;
    return room.claimIn(other) === 0 || (room.actor === other.id && room.moveClaimIn() === 0);
  }

  renderShare(room, mySeat) {
    const link = `${location.origin}${pageFolder(location)}#/room/${room.code ?? room.id}`;
    const watchers = `${room.spectators} watching`;
    const parts = [h("span", { class: "watchers" }, watchers)];
    // A private game's link stays for its players after the start (a rematch's too): the
    // address bar shows the room's id, which a friend who was sent it cannot watch by.
    if (mySeat && (room.state === "waiting" || room.code)) {
      const label = room.state === "waiting" ? "Invite" : "Link to watch";
      parts.push(` · ${label}: `, h("input", { class: "link", id: "share-link", readonly: true, value: link, "aria-label": "Link to this room", onfocus: (e) => e.target.select() }));
      if (room.code) parts.push(" code ", h("strong", { id: "invite-code" }, room.code));
    }
    this.share.replaceChildren(...parts);
  }

  renderSeats(room) {
    const running = room.runningClock;
    const mine = ["black", "white"].find((c) => room.players[c]?.id === this.me);
    for (const colour of ["black", "white"]) {
      const seat = this.seats[colour];
      const p = room.players[colour];
      // The opponent's seat, which a phone held upright shows above the board (style.css).
      seat.row.classList.toggle("across", mine !== undefined && colour !== mine);
      const tags = p ? [p.rating ? ratingText(p.rating, p.provisional) : "", p.bot ? "· AI" : "", p.id === this.me ? "(you)" : ""] : [];
      // After the game a person's name leads to their profile (their games, to review or
      // download: a teacher found no way to a student's finished game); not during it,
      // where a slip of the pointer would leave the board.
      const profile = p && !p.bot && room.state === "over" ? p.id : null;
      this.renderName(seat.name, p ? p.name : "empty seat", tags.filter(Boolean).join(" "), profile);
      seat.row.classList.toggle("to-act", running === colour || (room.actor && p && room.actor === p.id));
      const left = room.clocks ? room.clockMs(colour) : null;
      seat.clock.textContent = left === null ? "" : gameClockText(left);
      const low = left !== null && left < 10000 && room.state !== "over";
      seat.clock.classList.toggle("low", low);
      // Said once as one's own running clock goes under ten seconds (the block is seen).
      if (low && colour === mine && running === colour && this.clockLeft >= 10000) {
        this.announcer.textContent = "Under ten seconds left on your clock.";
      }
      if (colour === mine) this.clockLeft = running === colour ? left : null;
      seat.clock.classList.toggle("running", running === colour);
      // Gone from a finished game is leaving it, not a lost connection (nothing to claim).
      const away = room.state === "over" ? " left" : ` offline${this.deadlineText(room, p)}`;
      seat.presence.textContent = p && !p.online ? away : "";
    }
  }

  /** A seat's player: a long name gives way (cut short, whole in the title), never
   * the rating and tags after it, nor the clock; with `profile`, a link to it. */
  renderName(node, name, tags, profile = null) {
    const title = tags ? `${name} ${tags}` : name;
    if (node.title === title && node.dataset.profile === (profile ?? "")) return;
    node.title = title;
    node.dataset.profile = profile ?? "";
    const shown = profile ? h("a", { href: `#/profile/${encodeURIComponent(profile)}` }, name) : name;
    const parts = [h("span", { class: "player" }, shown)];
    if (tags) parts.push(" ", h("span", { class: "tags" }, tags)); // (replaceChildren writes null as "null")
    node.replaceChildren(...parts);
  }

  deadlineText(room, p) {
    if (room.state === "waiting") { // nothing to claim: the seat is kept a while for them
      const kept = room.awayLeft(p);
      return kept ? ` (seat kept ${clockText(kept)})` : "";
    }
    const left = room.claimIn(p);
    if (left === null) return "";
    return left > 0 ? ` (claimable in ${clockText(left)})` : " (claimable now)";
  }

  interactive(room) {
    return this.app.conn.identified && room.toMove !== null && room.actor === this.me && !this.busy(room);
  }

  /** Whether an action this page sent in the room awaits its answer (its event, or its
   * refusal): meanwhile the page sends nothing more there, so a double click acts once. */
  busy(room) {
    const sent = this.sent;
    return Boolean(sent && sent.room === room.id && this.app.conn.live(sent.id));
  }

  /** Whether this room's action was sent as the link went, and the room has not caught
   * up yet (see caughtUp) to tell whether it got through. */
  inDoubt(room) {
    return this.dropped(this.sent, room);
  }

  /** Send an action of the room (answered by its event: see MOVE_ANSWERS and ACCEPTED);
   * `refused` words its refusal. */
  send(room, message, { move = false, refused = errorText } = {}) {
    if (this.busy(room)) return;
    let id = null; // (not const: offline, the refusal comes before act returns)
    id = this.app.conn.act({ ...message, room: room.id }, (error) => {
      if (this.sent && this.sent.id === id) this.sent = null;
      const current = this.app.rooms.get(room.id);
      if (current && this.roomId === room.id) this.update(current, null);
      this.refuse(refused(error));
    });
    if (id === null) return;
    const accepted = message.type === "answer" && message.accept ? ACCEPTED[message.kind] : null;
    this.sent = { room: room.id, id, settles: move ? MOVE_ANSWERS : accepted, point: move ? message.point : null };
    if (move) {
      this.renderBoard(room);
      this.renderStatus(room, room.seatOf(this.me));
    } else this.renderControls(room, room.seatOf(this.me));
  }

  renderBoard(room, mySeat) {
    const last = room.moves.length ? room.moves[room.moves.length - 1] : null;
    this.board.render({
      size: room.size,
      cells: room.cells(),
      last,
      line: room.result ? room.result.line : null,
      forbidden: room.forbidden(),
      hint: room.hint ? room.hint.point : null,
      interactive: this.interactive(room),
      nextColor: room.toMove,
      // The stone sent, shown until the server's answer: a tap that seemed to vanish
      // while the move was on its way (a slow network) was tapped again.
      // Kept while the link is down too: whether it got through is not known yet.
      sending: (this.busy(room) || this.inDoubt(room)) && this.sent.point ? this.sent.point : null,
      premove: this.premove && this.premove.room === room.id ? this.premove.point : null,
    });
    this.confirmBar.hidden = !this.board.selected;
  }

  statusText(room, mySeat) {
    if (this.busy(room) && this.sent.point) return `Sending ${this.sent.point}…`;
    const text = this.gameText(room, mySeat);
    const live = room.state === "playing" || room.state === "opening";
    // Offline, a click plays nothing: say so where the player looks, not just in the header.
    if (live && mySeat && !this.app.conn.identified) {
      // A move sent just before the link went: it may have reached the server, and
      // "Your move" said otherwise (it was played when the link came back).
      const inFlight = this.sent && this.sent.room === room.id && this.sent.point;
      // What staying away costs, said once (not counted down: a live region is read out
      // at each change): the opponent was told they may claim, the player was not.
      const warning = this.claimWarning(room);
      if (inFlight) return `Not connected: reconnecting… (${this.sent.point} was sent as the link went: it counts if it got through).${warning}`;
      return `Not connected: reconnecting… (${text})${warning}`;
    }
    const offer = room.pending;
    if (live && offer && offer.by !== this.me) {
      // Said where the player looks: on a small phone the offer's box is below the fold;
      // and to a spectator, who may have come after it was made (no chat line for it).
      return `${room.nameOf(offer.by)} ${offerWords(offer.kind)}. ${text}`;
    }
    return text;
  }

  /** " If you are away more than a minute, bob may claim the win.": to a seated
   * player whose page is offline in a running game. */
  claimWarning(room) {
    const other = opponentOf(room.players, this.me);
    const seconds = Math.round(this.claimWaitMs(other) / 1000);
    const away = seconds === 60 ? "a minute" : seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} s`;
    const who = other?.name ?? "your opponent";
    return ` If you are away more than ${away}, ${who} ${other?.bot ? "claims" : "may claim"} the win.`;
  }

  /** How long `other` (the opponent's seat) may wait before claiming the win from this
   * player gone: the grace period; the project's AI waits as long as a move may take (the
   * move limit, if longer: worker/seat.py). */
  claimWaitMs(other) {
    const limits = this.app.me?.limits;
    const graceMs = limits?.grace_ms ?? 60000;
    return other?.bot ? Math.max(graceMs, limits?.untimed_move_ms ?? 0) : graceMs;
  }

  gameText(room, mySeat) {
    if (room.state === "over") return roomResultText(room);
    if (room.hint) return hintText(room.hint.point, room.hint.reason); // until the next move
    if (room.state === "waiting") {
      if (!mySeat) return "Waiting for players.";
      // A rated room has no AI seats (the server refuses them; the page shows no control).
      return room.rated ? "Waiting for an opponent: share the link." : "Waiting for an opponent: share the link, or seat an AI.";
    }
    if (room.swap2) return this.swap2Text(room);
    const colour = room.toMove;
    const actor = room.actor;
    const stone = colour === "black" ? "Black" : "White";
    if (actor === this.me) return `Your move: ${stone}.`;
    return `${room.nameOf(actor)} to move (${stone}).`;
  }

  /** Where a swap2 opening stands, in words that say who does what now and who
   * chooses next (protocol.md, swap2): the opener places stones 1 to 3 and holds the
   * black seat until the colours are chosen; the other player chooses, or places
   * stones 4 and 5 and lets the opener choose. */
  swap2Text(room) {
    const { phase, to_act: actor, choices } = room.swap2;
    if (phase === "choose") {
      const options = choicesText(choices);
      return actor === this.me ? `Swap2: your choice: ${options}.` : `Swap2: ${room.nameOf(actor)} chooses: ${options}.`;
    }
    const stones = phase === "place3" ? 3 : 5;
    const chooser = phase === "place3" ? room.players.white : room.players.black;
    let then = "";
    if (chooser) then = chooser.id === this.me ? ", then you choose" : `, then ${chooser.name} chooses`;
    // All placed, the phase's change still on its way: not "stone 4 of 3".
    if (room.moves.length >= stones) return `Swap2: the ${stones} stones are placed${then}.`;
    const stone = `stone ${room.moves.length + 1} of ${stones}`;
    if (actor === this.me) return `Swap2: place ${stone} (${room.moves.length % 2 ? "White" : "Black"})${then}.`;
    return `Swap2: ${room.nameOf(actor)} places ${stone}${then}.`;
  }

  renderControls(room, mySeat) {
    // The controls are made anew at each change: the focus on one of them (the button
    // just pressed) goes to the same control made again, else to the board, not to the
    // page's body (a keyboard user started again from the top after each action).
    const focused = document.activeElement;
    const hadFocus = this.controls.contains(focused) || this.offerBox.contains(focused);
    const focusedId = hadFocus ? focused.id : null;
    this.fillControls(room, mySeat);
    if (hadFocus && !this.controls.contains(document.activeElement) && !this.offerBox.contains(document.activeElement)) {
      const again = focusedId ? document.getElementById(focusedId) : null;
      if (again && !again.disabled && again.getClientRects().length) again.focus({ preventScroll: true });
      else this.board.focus({ reveal: true }); // (an answer's buttons gone: a phone had scrolled to them)
    }
  }

  /** Why the opponent may be claimed against: away past the grace period, or (here,
   * in a game without a clock) not moving within the move limit. */
  claimReason(room) {
    const other = opponentOf(room.players, this.me);
    const who = other ? other.name : "your opponent";
    return other && !other.online
      ? `${who} has been away past the grace period`
      : `${who} has not moved for ${clockText(room.moveLimitMs)}, the move limit`;
  }

  fillControls(room, mySeat) {
    const parts = [];
    // The room as it is when a button is pressed (the offer's box outlives its render).
    const act = (message) => this.send(this.app.rooms.get(room.id) ?? room, message);
    // An action awaits its answer, or the page is not connected: the buttons wait too
    // (offline, a click only said "not connected").
    const waiting = this.busy(room) || !this.app.conn.identified;
    const claimable = this.claimable(room, mySeat);
    // Why, as the terminal says it: a bare "Claim the win" left a player to guess, and
    // the result then read "ran out of time" in a game with no clock.
    const claim = claimable ? `You may claim the win: ${this.claimReason(room)}.` : null;
    if (claimable && !this.claimShown) { // said once, as the button comes (it came silently)
      this.announcer.textContent = claim;
    }
    this.claimShown = claimable;
    if (room.swap2 && room.swap2.phase === "choose" && room.swap2.to_act === this.me) {
      parts.push(h("div", { class: "choices" }, room.swap2.choices.map((choice) =>
        h("button", { type: "button", dataset: { choice }, disabled: waiting, onclick: () => act({ type: "choose", choice }) }, CHOICE_WORDS[choice] ?? choice))));
    }
    const playing = room.state === "playing" || room.state === "opening";
    if (mySeat && room.state === "waiting" && !room.rated) {
      const level = levelSelect({ "aria-label": "AI level", id: "ai-level" }, this.app.aiLevel);
      parts.push(h("div", { class: "row" }, level,
        h("button", { type: "button", id: "seat-ai", disabled: waiting, onclick: () => act({ type: "seat_ai", level: level.value }) }, "Seat an AI")));
    }
    if (mySeat && playing) {
      const pendingMine = room.pending && room.pending.by === this.me;
      parts.push(h("div", { class: "row" },
        // No draw in swap2's opening (the server refuses it until the colours are chosen).
        h("button", { type: "button", id: "offer-draw", disabled: waiting || Boolean(room.pending) || room.state === "opening", onclick: () => act({ type: "offer", kind: "draw" }) }, "Offer a draw"),
        h("button", { type: "button", id: "offer-takeback", disabled: waiting || Boolean(room.pending) || !room.canTakeBack(this.me), onclick: () => act({ type: "offer", kind: "takeback" }) }, "Take back"),
        h("button", { type: "button", id: "resign", class: "danger", disabled: waiting, onclick: () => { if (window.confirm(resignQuestion(room))) act({ type: "resign" }); } }, "Resign")));
      if (pendingMine) parts.push(h("p", { class: "hint-text" }, `Your ${room.pending.kind} offer is waiting for an answer.`));
      if (this.claimShown) {
        parts.push(h("p", { class: "hint-text", id: "claim-why" }, claim),
          h("button", { type: "button", id: "claim", disabled: waiting, onclick: () => act({ type: "claim" }) }, "Claim the win"));
      }
    }
    const ais = room.players.black?.bot && room.players.white?.bot; // (a hint lasts one of their moves)
    // Not in a swap2 opening: a hint is the strongest stone, the wrong advice for stones
    // placed to leave the choice balanced.
    if (playing && !room.rated && room.toMove && !ais && !room.swap2) {
      // Off while offline, as the game's own buttons are (a tap left a red line that
      // outlived the reconnection).
      const offline = !this.app.conn.identified;
      parts.push(h("button", { type: "button", id: "hint", disabled: offline, onclick: () => this.hint(room) }, "Hint"));
    } else if (playing && room.rated && mySeat) {
      parts.push(h("p", { class: "hint-text" }, "No hints in a rated game."));
    }
    if (room.state === "over") {
      if (mySeat && room.pending && room.pending.by === this.me) {
        parts.push(h("p", { class: "hint-text" }, "Your rematch offer is waiting for an answer."));
      }
      const other = mySeat ? opponentOf(room.players, this.me) : null;
      if (other && !room.pending && !room.rematchRoom) {
        // A rematch needs the opponent in the room to answer it (back, it is offered again).
        if (room.rematchDeclined.has(this.me)) {
          parts.push(h("p", { class: "hint-text", id: "no-rematch" }, `${other.name} declined your rematch.`));
        } else if (other.online) {
          parts.push(h("button", { type: "button", id: "offer-rematch", disabled: waiting, onclick: () => act({ type: "offer", kind: "rematch" }) }, "Rematch"));
        } else if (other.bot) {
          // An AI waits a little for a rematch, then leaves: the same game again is a
          // new room with the colours swapped and an AI of the same level.
          parts.push(h("button", { type: "button", id: "play-ai-again", disabled: this.againSent, onclick: () => this.playAiAgain(room, mySeat, other) }, "Play the AI again"));
        } else {
          parts.push(h("p", { class: "hint-text", id: "no-rematch" }, `${other.name} has left the room: no rematch for now.`));
        }
      }
      if (room.rematchRoom && !mySeat) parts.push(h("a", { class: "button", href: `#/watch/${room.rematchCode ?? room.rematchRoom}` }, "Watch the rematch"));
      if (room.private && !mySeat) {
        // The server keeps a private game's record for its players only: the buttons
        // offered a spectator (a tournament director) a download that was refused.
        parts.push(h("p", { class: "hint-text", id: "no-record" }, "The record of a private game is for its players: ask them for it."));
      } else if (room.moves.length) { // (a game with no stone has nothing to review)
        const downloads = downloadButtons((format) => this.record(room, format));
        parts.push(h("div", { class: "row" },
          h("a", { class: "button", id: "review", href: `#/review/${room.id}` }, "Review"),
          ...downloads.buttons), downloads.note);
      }
    }
    this.controls.replaceChildren(...parts);
    // An offer from the opponent waits for an answer here. The box is an alert, read
    // out whenever it is filled: it is filled again only when the offer changes.
    const offer = room.pending && room.pending.by !== this.me && mySeat ? room.pending : null;
    // (Not rebuilt when an answer is on its way: its buttons are turned off in place; made
    // again, the alert was read out again at each Accept or Decline.)
    const offerKey = offer ? `${offer.kind} ${offer.by}` : null;
    this.offerBox.hidden = !offer;
    if (waiting && this.offerBox.contains(document.activeElement)) this.board.focus(); // (off now)
    for (const button of this.offerBox.querySelectorAll("button")) button.disabled = waiting;
    if (offerKey !== this.offerKey) {
      this.offerKey = offerKey;
      this.offerBox.replaceChildren();
      if (offer) {
        // The answers stay together on one line, after the words or under them.
        this.offerBox.append(h("span", {}, `${room.nameOf(offer.by)} ${offerWords(offer.kind)}.`), " ",
          h("span", { class: "sr-only" }, "Escape from the board to answer. "),
          h("span", { class: "answers" },
            h("button", { type: "button", id: "accept", disabled: waiting, onclick: () => act({ type: "answer", kind: offer.kind, accept: true }) }, "Accept"),
            h("button", { type: "button", id: "decline", class: "secondary", disabled: waiting, onclick: () => act({ type: "answer", kind: offer.kind, accept: false }) }, "Decline")));
      }
    }
    this.resultBox.hidden = room.state !== "over";
    if (room.state === "over") {
      const lines = [h("strong", {}, roomResultText(room))];
      const winner = room.result && room.result.winner ? room.players[room.result.winner] : null;
      if (winner) { // the colours alone leave a player to work out which was theirs (swap2)
        const mine = mySeat === room.result.winner;
        const loser = room.players[room.result.winner === "black" ? "white" : "black"];
        let words = mine ? "You win." : mySeat ? `You lose: ${winner.name} wins.` : `${winner.name} wins.`;
        if (room.result.reason === "timeout" && loser) { // who ran out, as the terminal says it
          // Without a clock a timeout is the move limit's, claimed from one who did not
          // move: "ran out of time" read wrong in a game with no clock.
          const late = room.time ? "ran out of time" : "did not move in time";
          const own = room.time ? "you ran out of time" : "you did not move in time";
          words = mine ? `You win: ${loser.name} ${late}.` : mySeat ? `You lose: ${own}.` : `${loser.name} ${late}: ${winner.name} wins.`;
        }
        lines.push(h("div", { class: "winner" }, words));
      }
      for (const r of room.ratings ?? []) {
        // The name isolated: a right-to-left one turned the figures after it around
        // ("(242+) ?1742 → 1500 :محمد", a winner seen going down).
        lines.push(h("div", { class: "rating-change" }, h("bdi", {}, room.nameOf(r.player)), `: ${r.before} → ${ratingText(r.after, r.provisional)} (${changeText(r)})`));
      }
      const uncounted = room.ratingsPending
        ? "Ratings: not written yet (the server cannot write just now); the profiles show them once it can."
        : room.rated && room.ratingsKnown && !(room.ratings ?? []).length ? uncountedText(room) : null;
      if (uncounted) lines.push(h("div", { class: "rating-change" }, uncounted));
      this.resultBox.replaceChildren(...lines);
    }
  }

  renderMoves(room) {
    if (this.movesShown === room.moves.length && this.moves.childElementCount === room.moves.length) return;
    this.moves.replaceChildren(...room.moves.map((point, i) =>
      // (the colour, which only the list's style shows, to a screen reader)
      h("li", { class: i % 2 ? "white" : "black", "aria-label": `${point}, ${i % 2 ? "White" : "Black"}` }, point)));
    this.movesShown = room.moves.length;
    this.moves.scrollTop = this.moves.scrollHeight;
  }

  /** The mute box: its summary says how many are muted; opened, it lists who may be
   * muted here (the seated players and whoever spoke, not oneself or an AI), and those
   * muted, each with a box to tick. Names are not unique: one is muted by id, and a
   * watcher is named so. */
  renderMute(room) {
    const muted = this.app.muted;
    this.muteSummary.textContent = muted.size ? `Muted: ${muted.size}` : "Mute chat…";
    if (!this.muteBox.open) return;
    const people = new Map(); // id -> {name, watching}
    for (const seat of ["black", "white"]) {
      const p = room.players[seat];
      if (p && !p.bot) people.set(p.id, { name: p.name, watching: false });
    }
    for (const entry of room.log) {
      if (entry.name && !entry.mine) people.set(entry.player, { name: entry.name, watching: entry.watching });
    }
    people.delete(this.me);
    for (const [id, name] of muted) if (!people.has(id)) people.set(id, { name, watching: false });
    // Built again only when someone new is there: a box just ticked keeps its focus.
    const key = JSON.stringify([...people]);
    if (key === this.muteKey && this.muteList.childElementCount) return;
    this.muteKey = key;
    const row = ([id, who]) => {
      const box = h("input", { type: "checkbox" });
      box.checked = muted.has(id);
      box.addEventListener("change", () => this.setMuted(id, who.name, box.checked));
      return h("li", {}, h("label", {}, box, " ", h("bdi", {}, who.name), who.watching ? " (watching)" : ""));
    };
    this.muteList.replaceChildren(...(people.size ? [...people].map(row) : [h("li", { class: "hint-text" }, "Nobody else has spoken here yet.")]));
  }

  setMuted(id, name, on) {
    const muted = this.app.muted;
    if (on) muted.set(id, name);
    else muted.delete(id);
    this.app.muted = muted;
    if (this.shownRoom) this.redrawLog(this.shownRoom);
  }

  /** The log drawn again whole: a line came before those shown (renderLog adds lines
   * at the end only). */
  redrawLog(room) {
    this.logShown = -1;
    this.renderLog(room);
  }

  renderLog(room) {
    this.shownRoom = room;
    this.renderMute(room);
    if (this.logShown === room.log.length) return;
    const muted = this.app.muted;
    const heard = (entry) => !entry.name || !muted.has(entry.player);
    // Each name and text in a <bdi>: a right-to-left one keeps its punctuation and
    // stays after its author, as every other line reads.
    const line = (entry) => entry.name
      ? h("li", { class: "chat" },
        h("b", {}, h("bdi", {}, entry.name), entry.mine ? " (you)" : entry.watching ? " (watching)" : entry.colour ? ` (${entry.colour})` : "", ": "),
        h("bdi", {}, entry.text))
      : h("li", { class: "event", "aria-hidden": entry.quiet ? "true" : null }, entry.text);
    const added = room.log.length - this.logShown;
    // A reader who scrolled up to read stays there: each new line pulled the log back
    // to the newest, so nothing older could be read in a busy room.
    const log = this.log;
    const following = log.scrollHeight - log.scrollTop - log.clientHeight < 24;
    if (this.logShown >= 0 && added > 0 && added <= 200) {
      // New lines are added to the list, not the list made again: it is a live region,
      // and a screen reader read the whole log out at each new line.
      this.log.append(...room.log.slice(-added).filter(heard).map(line));
      while (this.log.childElementCount > 200) this.log.firstElementChild.remove();
    } else {
      this.log.replaceChildren(...room.log.slice(-200).filter(heard).map(line));
    }
    this.logShown = room.log.length;
    if (following) log.scrollTop = log.scrollHeight;
  }

  tick(room) {
    if (this.roomId !== room.id) return;
    this.renderSeats(room);
    const mySeat = room.seatOf(this.me);
    this.renderMoveLimit(room, mySeat);
    this.renderFirstStone(room);
    // A countdown to a claim may have run out: the Claim button appears. (The move
    // limit's runs in every game without a clock: the controls are made again only when
    // the claim opens, not each tick under the pointer.)
    const away = ["black", "white"].some((c) => room.players[c] && !room.players[c].online);
    const claimChanged = this.claimable(room, mySeat) !== this.claimShown;
    if ((away || claimChanged) && room.state !== "over") this.renderControls(room, mySeat);
  }

  /** Say why something was refused: as a toast, and on the status line while the toast
   * shows (or until the game moves on); then the status line says the game's state. */
  refuse(text) {
    this.clearRefusal();
    this.refusal = text;
    this.status.textContent = text;
    this.status.classList.add("refusal");
    toast(text);
    const roomId = this.roomId;
    this.refusalTimer = setTimeout(() => {
      this.refusalTimer = null;
      this.refusal = null;
      const room = this.app.rooms.get(roomId);
      if (room && this.roomId === roomId) this.renderStatus(room, room.seatOf(this.me));
    }, TOAST_MS);
  }

  clearRefusal() {
    clearTimeout(this.refusalTimer);
    this.refusalTimer = null;
    this.refusal = null;
  }

  /** Whether a stone may go on this point as far as the page knows; if not, says why. */
  allowed(point) {
    const room = this.app.rooms.get(this.roomId);
    if (!room) return false;
    const p = parsePoint(point, room.size);
    const foul = p ? room.forbidden().get(`${p.x},${p.y}`) : null;
    if (foul) {
      this.refuse(foulText(point, foul));
      return false;
    }
    return true;
  }

  /** Enter or Space on the board when nothing can be played: say why (it did nothing). */
  blocked(point) {
    const room = this.app.rooms.get(this.roomId);
    if (!room) return;
    const mySeat = room.seatOf(this.me);
    let why = null;
    if (!mySeat) why = "You are watching this game.";
    else if (room.state === "over") why = "The game is over.";
    else if (room.state === "waiting") why = "The game has not started: it waits for an opponent.";
    else if (!this.app.conn.identified) why = "Not connected: reconnecting…";
    else if (this.busy(room)) why = "Your move is on its way.";
    else if (room.swap2 && room.swap2.phase === "choose") why = "A swap2 choice comes first.";
    else if (room.actor !== this.me && room.time && room.state === "playing" && point) {
      // Under a clock a move chosen while the opponent thinks waits for its turn (a
      // premove, as the terminal's); a bullet player's click did nothing.
      if (room.taken(point)) why = `${point} is already taken.`;
      else {
        this.premove = { room: room.id, stones: room.moves.length, point };
        this.renderBoard(room, mySeat);
        toast(`${point} is played as soon as ${room.nameOf(room.actor)} has moved (another point replaces it).`);
        return;
      }
    } else if (room.actor !== this.me) why = `It is not your move: ${room.nameOf(room.actor)} plays.`;
    if (why) this.refuse(why);
  }

  /** The move kept while the opponent thought, once it is our turn in the position
   * after it; dropped when the game went otherwise (its end, a takeback). */
  playPremove(room) {
    const kept = this.premove;
    if (!kept || kept.room !== room.id) return;
    if (room.state !== "playing" || room.moves.length < kept.stones) {
      this.premove = null;
      return;
    }
    if (room.moves.length === kept.stones) return; // the opponent still thinks
    this.premove = null;
    if (room.moves.length !== kept.stones + 1 || room.actor !== this.me) return;
    // Not from a tab out of sight: a premove forgotten in the player's other tab played
    // there, in place of the block the player was choosing in the tab they looked at.
    if (document.hidden) return;
    if (room.taken(kept.point)) {
      this.refuse(`${kept.point} was not played: the opponent's stone took it.`);
      return;
    }
    this.play(kept.point);
  }

  selected(point) {
    this.confirmBar.hidden = !point;
    if (point) this.confirmBar.querySelector("button").textContent = `Place at ${point}`;
  }

  play(point) {
    const room = this.app.rooms.get(this.roomId);
    if (!room || !this.interactive(room)) return;
    if (!parsePoint(point, room.size)) return;
    if (room.taken(point)) {
      this.refuse(`${point} is already taken.`);
      return;
    }
    if (!this.allowed(point)) return;
    this.clearRefusal();
    // move_no: for this position only (a move delivered late is refused, not played).
    this.send(room, { type: "move", point, move_no: room.moves.length + 1 }, {
      move: true,
      refused: (error) => (error.code === "forbidden" ? foulText(point, error.foul) : errorText(error)),
    });
  }

  /** A new room like `room` (rule, size, opening, clock; unrated), the colours swapped,
   * and the AI that left it seated again at its level (the server names an AI seat
   * "AI <level>"; another name gets the default level). One request at a time. */
  async playAiAgain(room, mySeat, ai) {
    if (this.againSent) return;
    // As the terminal client reads it: "AI <level>", any level a worker offers
    // (brain:embryo too); another name gets the default.
    const named = /^AI (\S+)$/.exec(ai.name);
    const level = named ? named[1] : "intermediate";
    this.againSent = true;
    this.renderControls(room, mySeat);
    try {
      await this.app.createRoom({
        type: "create_room", rule: room.rule, size: room.size, opening: room.opening,
        time: room.time, seat: mySeat === "black" ? "white" : "black", rated: false, private: room.private,
      }, level);
    } catch (error) {
      this.refuse(errorText(error));
    } finally {
      this.againSent = false;
      const current = this.app.rooms.get(room.id);
      if (current && this.roomId === room.id) this.update(current, null);
    }
  }

  async hint(room) {
    try {
      const s = await this.app.conn.request({ type: "hint", room: room.id });
      room.hint = { point: s.point, reason: s.reason };
      this.announcer.textContent = hintText(s.point, s.reason); // the status line is not a voice
      this.board.moveCursor(s.point); // the board's Tab stop is the hint, for the keys
      // The hint is the news now: a refusal just before it no longer holds the status
      // line, and its timer's end no longer writes "Your move" over the hint.
      this.clearRefusal();
      this.update(room, null);
    } catch (error) {
      this.refuse(errorText(error));
    }
  }

  chat(event) {
    event.preventDefault();
    const text = this.chatInput.value.trim();
    const roomId = this.roomId;
    if (!text || !roomId) return;
    const wrong = chatProblem(text);
    if (wrong) { // said by the input, where the line is, not by a toast over it
      this.chatInput.setCustomValidity(wrong);
      this.chatInput.reportValidity();
      return;
    }
    this.chatInput.value = "";
    const id = this.app.conn.act({ type: "chat", room: roomId, text }, (error) => {
      // Not said: the line goes back to the input to send again (unless more is typed).
      if (this.chatSent?.id === id) this.chatSent = null;
      if (this.roomId === roomId && !this.chatInput.value) this.chatInput.value = text;
      toast(errorText(error), { refusal: true });
    });
    // Until its line comes back: one sent into a link that was going was lost unsaid.
    if (id !== null) this.chatSent = { id, room: roomId, text };
  }

  /** Whether `sent` (this.sent or this.chatSent) is an action in `room` of a link that
   * dropped: what became of it is not known until the room has caught up. */
  dropped(sent, room) {
    return Boolean(sent && sent.room === room.id && !this.app.conn.live(sent.id));
  }

  /** Whether an action of this page in `room` was sent on a link that dropped, and
   * what became of it is still to be told (see caughtUp). */
  awaitsWord(room) {
    return this.roomId === room.id && (this.dropped(this.sent, room) || this.dropped(this.chatSent, room));
  }

  /** The room caught up after a reconnection (its resume answered): an action of the
   * dropped link is in its events by now, or was lost with it. A lost move is said (the
   * page only said "Your move" again, and the player thought it played), and a lost
   * chat line goes back to the input. Judged no sooner: the page is online a moment
   * before the room's missed events come, and a move that got through read as lost. */
  caughtUp(room) {
    if (this.roomId !== room.id) return;
    const sent = this.sent;
    if (this.dropped(sent, room)) {
      this.sent = null;
      const live = room.state === "playing" || room.state === "opening";
      if (sent.point && live && !room.moves.includes(sent.point)) {
        this.refuse(`${sent.point} did not reach the server: play it again.`);
      }
    }
    const chat = this.chatSent;
    if (this.dropped(chat, room)) {
      this.chatSent = null;
      const mine = this.app.me?.name;
      if (!room.log.some((e) => e.name === mine && e.text === chat.text)) {
        if (!this.chatInput.value) this.chatInput.value = chat.text;
        toast("Your message was not sent: the connection dropped. Send it again.");
      }
    }
    this.update(room, null);
  }

  async record(room, format) {
    try {
      await downloadRecord(this.app.conn, room.id, format, room.players.black?.name, room.players.white?.name);
    } catch (error) {
      toast(errorText(error), { refusal: true });
    }
  }

  /** Escape on the board: the keys to the opponent's offer's Accept, as the terminal's
   * Esc goes to its question (the alert was heard, and then three Tabs stood between the
   * board and the answer). False when no offer waits. */
  toAnswers() {
    const accept = this.offerBox.hidden ? null : this.offerBox.querySelector("#accept");
    if (!accept || accept.disabled) return false;
    accept.focus();
    return true;
  }

  leave() {
    const room = this.app.rooms.get(this.roomId);
    if (room && room.seatOf(this.me) && (room.state === "playing" || room.state === "opening")) {
      // Leaving does not end the game (protocol.md, leave): say what it does.
      const clock = room.clocks ? "your clock runs and " : "";
      const other = opponentOf(room.players, this.me);
      const waitMs = this.claimWaitMs(other);
      const question = other?.bot
        ? `The game goes on without you: ${clock}after ${clockText(waitMs)} away the AI claims the win. Leave anyway?`
        : `The game goes on without you: ${clock}after ${Math.round(waitMs / 1000)} s away your opponent may claim the win. Leave anyway?`;
      if (!window.confirm(question)) return;
    }
    if (this.roomId) this.app.leave(this.roomId);
    else window.location.hash = "#/";
  }
}

/** The question before a resignation; a rated game's before its second stone says that
 * nothing is at stake (lichess offers "abort" then): a player took it for a lost game. */
function resignQuestion(room) {
  const early = room.rated && room.moves.length < RATED_MIN_STONES;
  return early ? "Resign this game? Before its second stone, it is not rated." : "Resign this game?";
}

/** Why a rated game's end changed no rating, by protocol.md's rules ("Ratings and
 * history"; the thresholds are protocol/limits.py's); null when neither applies. */
function uncountedText(room) {
  if (room.moves.length < RATED_MIN_STONES) return "Not rated: the game ended before its second stone.";
  if (aborted(room.result, room.moves.length)) {
    return "Not rated: both players left before each had made two moves.";
  }
  return null;
}
