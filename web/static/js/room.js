// One room as the client knows it: the snapshot the server sent, brought up to date
// by the room's events in order (seq). Pure state: no DOM here.

import { parsePoint } from "./notation.js";
import { forbiddenMap } from "./renju.js";

export class RoomState {
  /**
   * @param {object} view a RoomView from a snapshot
   * @param {number} moveLimitMs the server's move limit in a game without a clock
   *   (welcome.limits.untimed_move_ms; 0: none), started again at each turn
   * @param {number} firstStoneMs the time a game with a clock has for its first stone
   *   before the server aborts it (welcome.limits.first_stone_ms; 0: none), counted
   *   from the start and from a takeback to the empty board
   * @param {string|null} me this page's player id (its own chat lines are marked)
   */
  constructor(view, moveLimitMs = 0, firstStoneMs = 0, me = null) {
    Object.assign(this, structuredClone(view));
    this.me = me;
    this.moveLimitMs = moveLimitMs;
    this.firstStoneMs = firstStoneMs;
    // When (performance.now()) the opponent of the player to act may claim the win
    // for their not acting, in a game without a clock; null: no such time.
    this.moveDeadlineAt = view.move_deadline_ms == null ? null : performance.now() + view.move_deadline_ms;
    // When (performance.now()) the server aborts a game with a clock whose first stone
    // has not come; null: none due (a stone is down, no clock, no game running).
    this.abortAt = view.abort_in_ms == null ? null : performance.now() + view.abort_in_ms;
    // {text} for what happened, {name, text} for chat lines: first what was said before
    // the snapshot (its last chat lines), as if one had been there.
    this.log = (view.chat ?? []).map((line) => this.chatEntry(line.player, line.name, line.text));
    if (["opening", "playing"].includes(view.state)) {
      // Who joins a room starts its game (the snapshot is all that player is sent of
      // it); who comes in later, or back after a reload, is told how far it is.
      const played = view.moves.length;
      const plural = played === 1 ? "" : "s";
      this.log.push({
        text: played === 0 ? "The game has started" : `The game is on: ${played} move${plural} played so far`,
      });
      // And where a swap2 opening stands, as those there at its start were told.
      if (view.swap2) this.log.push({ text: this.openingLine(view.swap2) });
    }
    this.ratings = null;
    this.ratingsKnown = false;
    this.ratingsPending = false;
    this.clocksAt = performance.now();
    this.presenceAt = performance.now();
    this.hint = null;
    this.cache = null;
    // Stones of a swap2 opening, which no takeback removes (3 or 5): the snapshot says,
    // and the choice that ends the opening sets them live.
    this.openingStones = view.opening_stones;
    // A rematch begun before this snapshot (its event came before one came in).
    this.rematchRoom = view.rematch_room ?? null;
    this.rematchCode = view.rematch_code ?? null;
    // Players whose rematch offer was declined here: the server takes no other from them
    // (a reload forgets it, and the server's refusal says so instead).
    this.rematchDeclined = new Set();
  }

  /** What a swap2 opening's phase (`phase`, `to_act`, `choices`) asks, for the log. */
  openingLine(swap2) {
    return swap2.phase === "choose"
      ? `${this.nameOf(swap2.to_act)} is to choose: ${choicesText(swap2.choices)}`
      : `${this.nameOf(swap2.to_act)} places ${swap2.phase === "place3" ? "three" : "two"} stones`;
  }

  /** A chat line for the log: a spectator's says so ("cy (watching)"), and one's own
   * ("ann (you)"): names are not unique, and one named as a player, or an opponent who
   * took one's own name, could otherwise speak for them. Two players of one name are
   * told apart by their colour ("kim (black)") for those watching them. */
  chatEntry(player, name, text) {
    const seat = ["black", "white"].find((s) => this.players[s]?.id === player) ?? null;
    const watchingThem = !["black", "white"].some((s) => this.players[s]?.id === this.me);
    const other = seat && this.players[seat === "black" ? "white" : "black"];
    const colour = watchingThem && other?.name === name ? seat : null;
    return { player, name, text, watching: !seat, mine: player === this.me, colour };
  }

  /** Apply one room event; returns a line for the room's log, or null. */
  apply(event) {
    this.cache = null;
    switch (event.type) {
      case "player_joined":
        this.players[event.seat] = {
          id: event.player, name: event.name, rating: event.rating, provisional: event.provisional,
          bot: event.bot, online: true, deadline_ms: null,
        };
        // In swap2 a seat is a role until the opening's choice settles the colours (the
        // terminal client's "colours to be chosen"): "sat down as white" misled.
        if (this.opening === "swap2") return `${event.name} sat down as ${event.seat === "black" ? "the opener" : "the second player"}`;
        return `${event.name} sat down as ${event.seat === "black" ? "Black" : "White"}`; // as the page says colours
      case "player_left": {
        const name = this.nameOf(event.player); // before the seat is emptied ("a spectator left")
        this.players[event.seat] = null;
        this.state = "waiting";
        return `${name} left the ${event.seat} seat`;
      }
      case "spectator_count":
        this.spectators = event.count;
        return null;
      case "game_started":
        this.state = this.opening === "swap2" ? "opening" : "playing";
        this.clocks = event.time ? { black_ms: event.time.base_ms, white_ms: event.time.base_ms } : null;
        this.clocksAt = performance.now();
        if (this.opening === "swap2" && !this.swap2) {
          this.swap2 = { phase: "place3", to_act: event.black, choices: [] };
        }
        this.restartMoveLimit(event.time);
        this.restartFirstStone(event.time);
        return "The game has started";
      case "moved":
        this.moves.push(event.point);
        this.clocks = event.clocks;
        this.clocksAt = performance.now();
        this.hint = null;
        this.restartMoveLimit();
        this.abortAt = null; // the game has begun
        // Six in a row goes on in standard rules: said, as a player who made six read
        // no word of why the game did not end (the terminal says it alike).
        if (this.rule === "standard" && runThrough(this.cells(), this.size, event.point) > 5) {
          return `${event.point}: six or more in a row do not win in standard rules, only exactly five.`;
        }
        return null;
      case "opening":
        this.state = "opening";
        this.swap2 = { phase: event.phase, to_act: event.to_act, choices: event.choices };
        return this.openingLine(event);
      case "chose": {
        const line = `${this.nameOf(event.player)} chose ${event.choice === "place2" ? "to place two more stones" : event.choice}`;
        if (event.clocks) {
          // By the colours after the choice: a player taking the other colour keeps their time.
          this.clocks = event.clocks;
          this.clocksAt = performance.now();
        }
        if (event.black && event.white) {
          const byId = {};
          for (const seat of ["black", "white"]) if (this.players[seat]) byId[this.players[seat].id] = this.players[seat];
          this.players = { black: byId[event.black] ?? this.players.black, white: byId[event.white] ?? this.players.white };
          this.swap2 = null;
          this.state = "playing";
          this.openingStones = this.moves.length;
        }
        this.restartMoveLimit();
        return line;
      }
      case "offered":
        this.pending = { kind: event.kind, by: event.by };
        return `${this.nameOf(event.by)} ${offerWords(event.kind)}`;
      case "answered": {
        // Answered by the one who asked: they moved on, which withdraws a takeback request.
        const asked = this.pending;
        const withdrawn = asked && asked.by === event.by;
        this.pending = null;
        if (withdrawn) return `${this.nameOf(event.by)} moved on: the ${event.kind} request is withdrawn`;
        if (event.kind === "rematch" && !event.accept && asked) this.rematchDeclined.add(asked.by);
        return `${this.nameOf(event.by)} ${event.accept ? "accepted" : "declined"} the ${event.kind}`;
      }
      case "undone":
        for (const _ of event.points) this.moves.pop();
        this.hint = null; // it was for the position taken back
        this.clocks = event.clocks;
        this.clocksAt = performance.now();
        this.restartMoveLimit();
        if (this.moves.length === 0) this.restartFirstStone(); // the server's count starts again
        return `Taken back: ${event.points.join(", ")}`;
      case "game_over":
        this.state = "over";
        this.moveDeadlineAt = null;
        this.abortAt = null;
        this.hint = null; // no move is left to play
        this.result = { winner: event.winner, reason: event.reason, line: event.line };
        this.ratings = event.ratings ?? null;
        this.ratingsKnown = true; // a snapshot of a finished game does not carry them
        this.ratingsPending = Boolean(event.ratings_pending); // (a full disk: written later)
        for (const change of this.ratings ?? []) { // the seats show the ratings after the game
          for (const p of [this.players.black, this.players.white]) {
            if (p && p.id === change.player) Object.assign(p, { rating: change.after, provisional: change.provisional });
          }
        }
        if (event.clocks) {
          // The times left at the end, the last turn charged: the clocks stop there.
          this.clocks = event.clocks;
          this.clocksAt = performance.now();
        }
        this.pending = null;
        this.swap2 = null;
        return roomResultText(this);
      case "presence":
        for (const seat of ["black", "white"]) {
          const p = this.players[seat];
          if (p && p.id === event.player) {
            p.online = event.online;
            p.deadline_ms = event.deadline_ms;
          }
        }
        this.presenceAt = performance.now();
        // After the game nothing is claimed: a player going away has just left.
        if (event.online) return `${this.nameOf(event.player)} is back`;
        return `${this.nameOf(event.player)} ${this.state === "over" ? "left" : "is offline"}`; // (or left the page)
      case "chat":
        return null; // the log keeps chat lines with their author
      case "rematch":
        this.rematchRoom = event.room;
        this.rematchCode = event.code ?? null; // a private rematch is watched by its code
        return "A rematch was agreed";
      default:
        return null; // an event type from a newer server: ignored, as protocol.md says
    }
  }

  nameOf(playerId) {
    for (const seat of ["black", "white"]) {
      if (this.players[seat] && this.players[seat].id === playerId) return this.players[seat].name;
    }
    return "a spectator";
  }

  seatOf(playerId) {
    for (const seat of ["black", "white"]) {
      if (this.players[seat] && this.players[seat].id === playerId) return seat;
    }
    return null;
  }

  /** Ms left before the opponent may claim the win against this offline player (0: they
   * may now), or null: no claim (online, or no game running). */
  claimIn(player) {
    const running = this.state === "playing" || this.state === "opening";
    return running ? this.awayLeft(player) : null;
  }

  /** How long an offline player has left to come back before a claim may be made
   * against them (a running game) or their seat is given up (a waiting room); null
   * if there is no such time. */
  awayLeft(player) {
    if (!player || player.online || player.deadline_ms === null || player.deadline_ms === undefined) return null;
    return Math.max(0, player.deadline_ms - (performance.now() - this.presenceAt));
  }

  /** The move limit counted again from now: a stone, a choice, a takeback or the game's
   * start hands a turn over (the server counts from then too, and sends no snapshot).
   * Only in a game without a clock (`time`: the game's, the room's by default). */
  restartMoveLimit(time = this.time) {
    const running = this.state === "playing" || this.state === "opening";
    this.moveDeadlineAt = running && !time && this.moveLimitMs > 0 ? performance.now() + this.moveLimitMs : null;
  }

  /** Ms left before the opponent of the player to act may claim the win because they
   * have not acted (0: they may now), in a game without a clock; null: no such limit
   * (a clock, nobody to act, a server without it). */
  moveClaimIn() {
    if (this.moveDeadlineAt === null || this.actor === null) return null;
    return Math.max(0, this.moveDeadlineAt - performance.now());
  }

  /** The first stone's time counted from now: at the start of a game with a clock and
   * after a takeback to its empty board (the server counts from then too, and sends no
   * snapshot). `time`: the game's, the room's by default. */
  restartFirstStone(time = this.time) {
    const running = this.state === "playing" || this.state === "opening";
    this.abortAt = running && time && this.firstStoneMs > 0 ? performance.now() + this.firstStoneMs : null;
  }

  /** Ms left before the server aborts a game with a clock whose first stone has not
   * come (0: it is due now; the server's game_over comes next); null: none is due. */
  abortIn() {
    if (this.abortAt === null) return null;
    return Math.max(0, this.abortAt - performance.now());
  }

  /** Whether a takeback by this player has a stone of theirs to remove: one of the
   * last two stones is their colour (and not an opening stone), as the server counts. */
  canTakeBack(playerId) {
    const seat = this.seatOf(playerId);
    if (!seat || this.swap2) return false;
    const mine = seat === "black" ? 0 : 1;
    for (const back of [1, 2]) {
      const index = this.moves.length - back;
      if (index < this.openingStones) return false;
      if (index % 2 === mine) return true;
    }
    return false;
  }

  /** The colour of the next stone, or null when no stone is expected. */
  get toMove() {
    if (this.state !== "playing" && this.state !== "opening") return null;
    if (this.swap2 && this.swap2.phase === "choose") return null;
    return this.moves.length % 2 === 0 ? "black" : "white";
  }

  /** The player id who must act now (place a stone or choose), or null. */
  get actor() {
    if (this.state !== "playing" && this.state !== "opening") return null;
    if (this.swap2) return this.swap2.to_act;
    const seat = this.players[this.toMove];
    return seat ? seat.id : null;
  }

  /** The seat whose clock runs: the actor's, from the first stone on. */
  get runningClock() {
    if (!this.clocks || this.moves.length === 0 || this.actor === null) return null;
    return this.seatOf(this.actor);
  }

  /** Remaining ms of a seat's clock now (counting down locally from the last value). */
  clockMs(seat) {
    if (!this.clocks) return null;
    const base = this.clocks[`${seat}_ms`];
    if (this.runningClock !== seat) return base;
    return Math.max(0, base - (performance.now() - this.clocksAt));
  }

  /** Whether a stone stands on `point` (a name like "h8"). */
  taken(point) {
    const p = parsePoint(point, this.size);
    return Boolean(p && this.cells()[p.y * this.size + p.x]);
  }

  /** The stones: a size*size array (0 empty, 1 black, 2 white), moves alternating from Black. */
  cells(upTo = this.moves.length) {
    const cells = new Array(this.size * this.size).fill(0);
    this.moves.slice(0, upTo).forEach((point, index) => {
      const p = parsePoint(point, this.size);
      if (p) cells[p.y * this.size + p.x] = index % 2 === 0 ? 1 : 2;
    });
    return cells;
  }

  /** Black's forbidden points now (renju, Black to move), as {point name: foul}. */
  forbidden() {
    if (this.rule !== "renju" || this.toMove !== "black") return new Map();
    if (!this.cache) this.cache = forbiddenMap(this.cells(), this.size);
    return this.cache;
  }
}

const OFFER_WORDS = {
  draw: "offers a draw",
  takeback: "asks to take back a move",
  rematch: "offers a rematch (colours swapped)", // as the terminal client says it
};

/** What an offer of `kind` is, after its maker's name: "offers a draw". */
export function offerWords(kind) {
  return OFFER_WORDS[kind] ?? `offers ${kind}`;
}

const REASONS = {
  five: "five in a row",
  overline: "an overline",
  "board-full": "board full", // as the terminal says it (and protocol.md's reason)
  resign: "resignation",
  timeout: "time",
  agreement: "agreement",
  abandon: "abandonment",
};

const SWAP2_CHOICES = { black: "Black", white: "White", place2: "two more stones" };

/** The choices open in a swap2 choice, in short: "Black, White or two more stones". */
export function choicesText(choices) {
  const words = choices.map((choice) => SWAP2_CHOICES[choice] ?? choice);
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}` : words.join("");
}

/** Below this many stones a game both players left (or nobody began) is aborted, not
 * drawn, and counts for nothing (protocol/limits.py's ABORTED_BELOW_STONES). */
export const ABORTED_BELOW_STONES = 4;
/** And below this many a rated game does not count (RATED_MIN_STONES). */
export const RATED_MIN_STONES = 2;

/** Whether a game that ended with `result` and `stones` on the board was aborted:
 * "abandon" with no winner before each player had made two moves (protocol.md). */
export function aborted(result, stones) {
  return result?.reason === "abandon" && result.winner === null && stones < ABORTED_BELOW_STONES;
}

/** How a game ended; `stones`: how many it had, null when not known (then an aborted
 * game reads as the draw by abandonment it would be with more stones). */
/** The seated player of `players` (a room's, or a lobby line's) who is not `me`. */
export function opponentOf(players, me) {
  return [players.black, players.white].find((p) => p && p.id !== me);
}

/** How the game in `room` ended: as resultText, but a game that ended in a swap2
 * opening, before anyone chose a colour, names its players, not colours nobody had
 * ("Black wins by resignation" read as if the opener had played Black). */
export function roomResultText(room) {
  const result = room.result;
  if (result?.winner && room.opening === "swap2" && !room.openingStones) {
    const won = room.players[result.winner]?.name ?? "?";
    const lost = room.players[result.winner === "black" ? "white" : "black"]?.name ?? "?";
    const why = {
      resign: `${lost} resigned`,
      timeout: `${lost} did not place or choose in time`,
      abandon: `${lost} was away and did not come back`,
    }[result.reason] ?? REASONS[result.reason] ?? result.reason;
    return `${won} wins: ${why} during the swap2 opening`;
  }
  return resultText(result, room.moves.length, !room.time);
}

export function resultText(result, stones = null, untimed = false) {
  if (!result) return "";
  if (stones !== null && aborted(result, stones)) {
    return stones === 0 ? "Aborted before its first stone" : "Aborted: both players left";
  }
  const why = REASONS[result.reason] ?? result.reason;
  if (result.winner === null && result.reason === "abandon") return "Draw: both players left"; // (as the terminal says it)
  if (result.winner === null) return `Draw (${why})`;
  const colour = result.winner === "black" ? "Black" : "White";
  // As the terminal client says it: where the line is, found without seeing its colour.
  const row = ROWS[result.reason];
  if (row) return `${colour} wins with ${row}${lineEnds(result.line)}`;
  if (result.reason === "timeout") { // (not "by time"; without a clock, the move limit's)
    return untimed ? `${colour} wins: ${colour === "Black" ? "White" : "Black"} did not move in time` : `${colour} wins on time`;
  }
  if (result.reason === "abandon") {
    // "by abandonment" read wrong to a player whose network dropped (as "left" did).
    return `${colour} wins: ${colour === "Black" ? "White" : "Black"} did not come back in time`;
  }
  return `${colour} wins by ${why}`;
}

const ROWS = { five: "five in a row", overline: "six or more in a row" };

/** " from e8 to i8": a winning line's ends, left to right (up the board in a column),
 * as the terminal client orders them; "" without a line. */
function lineEnds(line) {
  if (!line || line.length < 2) return "";
  const key = (point) => [point.charCodeAt(0), Number(point.slice(1))];
  const sorted = [...line].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] - kb[0] || ka[1] - kb[1];
  });
  return ` from ${sorted[0]} to ${sorted[sorted.length - 1]}`;
}

/** A rating as a seat or the lobby shows it: "1742", or "1500?" while provisional. */
export function ratingText(rating, provisional) {
  return provisional ? `${rating}?` : String(rating);
}

/** What a game did to a rating, signed: "+16", "-16", "+0". */
export function changeText(change) {
  const diff = change.after - change.before;
  return `${diff >= 0 ? "+" : ""}${diff}`;
}

/** A game clock: as clockText, with tenths in the last ten seconds ("0:04.2", as the
 * terminal client shows them), when a second is a move. */
export function gameClockText(ms) {
  if (ms === null || ms === undefined || ms >= 10000) return clockText(ms);
  const left = Math.max(0, ms);
  return `0:${String(Math.floor(left / 1000)).padStart(2, "0")}.${Math.floor((left % 1000) / 100)}`;
}

export function clockText(ms) {
  if (ms === null || ms === undefined) return "–";
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

const MIN_BASE_MS = 1000; // as the terminal client (client/present.py); the wire takes 1 ms
const MAX_BASE_MS = 24 * 3600000; // protocol/limits.py
const MAX_INC_MS = 3600000;

/**
 * A clock as players write it, read as the terminal client reads it: "5+3" is five
 * minutes and three seconds more per move (decimals allowed, "0,5" too), "10" is 10+0, "30s" is
 * thirty seconds + 0 (as timeControlText writes a base under a minute), "" or "none"
 * is no clock (null). Throws an Error saying what is wrong.
 */
export function parseTimeControl(text) {
  // Full-width digits (a CJK keyboard's) read as plain ones, a decimal comma as a point.
  const cleaned = text.normalize("NFKC").trim().toLowerCase().replace(/,/g, ".");
  if (["", "none", "-", "no", "unlimited"].includes(cleaned)) return null;
  const plus = cleaned.indexOf("+");
  const baseText = plus < 0 ? cleaned : cleaned.slice(0, plus);
  const incText = (plus < 0 ? "" : cleaned.slice(plus + 1)).trim() || "0"; // "5+" is 5+0
  // No sign, no exponent, no "Infinity"; an "s" after it: seconds.
  const number = /^\s*(\d+\.?\d*|\.\d+)\s*(s?)\s*$/;
  const base = number.exec(baseText);
  const clock = /^\s*(\d+):([0-5]\d)\s*$/.exec(baseText); // 0:30, as a clock shows it
  const inc = number.exec(incText);
  if ((!base && !clock) || !inc) {
    throw new Error(`"${text.trim()}" is not a clock like 5+3 (minutes + seconds a move), 30s+0 or 0:30+0 (seconds), or none`);
  }
  const base_ms = clock
    ? (Number(clock[1]) * 60 + Number(clock[2])) * 1000
    : Math.round(Number(base[1]) * (base[2] ? 1000 : 60000));
  const inc_ms = Math.round(Number(inc[1]) * 1000);
  if (base_ms < MIN_BASE_MS || base_ms > MAX_BASE_MS || inc_ms > MAX_INC_MS) {
    throw new Error(`"${text.trim()}" is out of range (1 s to 24 h, and up to 1 h a move)`);
  }
  return { base_ms, inc_ms };
}

/**
 * "5+3": minutes + seconds a move. A base under a minute, or one that is no short
 * decimal of minutes, is in seconds ("30s+0"), as the terminal client writes it.
 */
export function timeControlText(time) {
  if (!time) return "no clock";
  const inc = (time.inc_ms ?? 0) / 1000;
  if (time.base_ms < 60000 || time.base_ms % 600) return `${time.base_ms / 1000}s+${inc}`;
  return `${time.base_ms / 60000}+${inc}`;
}

/** The most stones of the colour at ``point`` in a row through it, along any line (0
 * for an empty point); ``cells`` as Room.cells gives them. */
export function runThrough(cells, size, point) {
  const p = parsePoint(point, size);
  const colour = p ? cells[p.y * size + p.x] : 0;
  if (!colour) return 0;
  let longest = 0;
  for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
    let run = 1;
    for (const sign of [1, -1]) {
      let x = p.x + sign * dx, y = p.y + sign * dy;
      while (x >= 0 && y >= 0 && x < size && y < size && cells[y * size + x] === colour) {
        run += 1;
        x += sign * dx;
        y += sign * dy;
      }
    }
    longest = Math.max(longest, run);
  }
  return longest;
}
