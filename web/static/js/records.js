// Ratings and finished games: the leaderboard of each rule, a player's profile (ratings
// and games), and a finished game's review, move by move, with its record to download.

import { BoardView } from "./board.js";
import { parsePoint } from "./notation.js";
import { forbiddenMap } from "./renju.js";
import { changeText, gameClockText, resultText, timeControlText } from "./room.js";
import { download, errorText, h, refill, toast } from "./ui.js";

const RULES = ["freestyle", "standard", "renju"];

/** What a record's server facts (its "game" key) say of the clock: its time control,
 * and the time each side had left at the end (none for records kept before they did). */
function clockFacts(game) {
  if (!game || !("time" in game)) return [];
  const facts = [timeControlText(game.time)];
  if (game.clocks) facts.push(`time left: Black ${gameClockText(game.clocks.black_ms)}, White ${gameClockText(game.clocks.white_ms)}`);
  return facts;
}

/**
 * A finished game's record (`get_record`) as text. The server archives a game just
 * after its end, so a game that ended a moment ago may need a second look.
 */
export async function fetchRecord(conn, game, format) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return (await conn.request({ type: "get_record", game, format })).text;
    } catch (error) {
      if (error.code !== "no_such_game" || attempt >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

const EXTENSION = { json: "json", psq: "psq", moves: "txt" };

/** A record's file name: its players and the game (`ann-vs-AI_novice-r-d0d9cd3fd2.psq`):
 * a teacher downloading a class's games had a folder of room ids. */
export function recordFileName(game, format, black, white) {
  const safe = (name) => (name ?? "").normalize("NFC").replace(/[^\p{L}\p{N}_-]+/gu, "_").replace(/^_+|_+$/g, "").slice(0, 24);
  const [b, w] = [safe(black), safe(white)];
  const extension = EXTENSION[format];
  return b && w ? `${b}-vs-${w}-${game}.${extension}` : `${game}.${extension}`;
}

/** Offer a game's record as a file (JSON, PSQ or a move list), named after its players,
 * ending with a newline as the terminal's files do. */
export async function downloadRecord(conn, game, format, black = null, white = null) {
  const text = await fetchRecord(conn, game, format);
  download(recordFileName(game, format, black, white), text.endsWith("\n") ? text : `${text}\n`,
    format === "json" ? "application/json" : "text/plain");
}

/** The download buttons of a finished game, each calling `onDownload(format)`, and the
 * line that says what the formats keep (a PSQ file went out with no word that its rule
 * and result were gone; the terminal's export said so). */
export function downloadButtons(onDownload) {
  const button = (format, label) =>
    h("button", { type: "button", id: `download-${format}`, onclick: () => onDownload(format) }, label);
  return {
    buttons: [button("json", "Download JSON"), button("psq", "Download PSQ"), button("moves", "Download move list")],
    note: h("p", { class: "hint-text", id: "download-note" },
      "JSON keeps everything; PSQ and a move list keep the moves only (not the rule, how the game ended, or a swap2 opening), and a move list not the board's size either."),
  };
}

export class LeaderboardView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
  }

  async load(rule) {
    const tabs = h("nav", { class: "tabs", "aria-label": "Rating lists" }, RULES.map((r) =>
      h("a", { href: `#/leaderboard/${r}`, class: r === rule ? "button current" : "button", "aria-current": r === rule ? "page" : null }, r)));
    const body = h("tbody");
    const unsettled = h("tbody", { class: "unsettled" });
    refill(this.root, h("h1", {}, "Leaderboard"), tabs,
      h("table", { class: "leaderboard" },
        h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "RD", "Games"].map((t) => h("th", { scope: "col" }, t)))), body, unsettled),
      h("p", { class: "hint-text" }, "Players are ranked once their rating settles (RD 110 or less: about 15 to 20 rated games between new players); a rating with ? has not settled yet."));
    if (!this.app.me) return;
    // A player not settled yet has no rank, and their rating reads 1742? as everywhere.
    const row = (e, settled) => h("tr", {},
      h("td", {}, settled ? String(e.rank) : ""), h("td", {}, h("a", { href: `#/profile/${e.player}` }, h("bdi", { class: "name" }, e.name))),
      h("td", {}, settled ? String(e.rating) : `${e.rating}?`), h("td", {}, String(e.rd)), h("td", {}, String(e.games)));
    try {
      const board = await this.app.conn.request({ type: "get_leaderboard", rule, limit: 50 });
      body.replaceChildren(...board.entries.map((e) => row(e, true)));
      if (!board.entries.length) body.append(h("tr", {}, h("td", { colspan: 5 }, "Nobody established yet.")));
      const apart = board.unsettled ?? []; // (an older server sends none)
      if (apart.length) {
        unsettled.replaceChildren(h("tr", {}, h("th", { colspan: 5, scope: "colgroup" }, "Not settled yet")),
          ...apart.map((e) => row(e, false)));
      }
    } catch (error) {
      body.replaceChildren(h("tr", {}, h("td", { colspan: 5 }, errorText(error))));
    }
  }
}

export class ProfileView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
  }

  async load(player) {
    refill(this.root, h("h1", {}, "Profile"), h("p", {}, "Loading…"));
    if (!this.app.me) return;
    try {
      const message = player ? { type: "get_profile", player } : { type: "get_profile" };
      const profile = await this.app.conn.request(message);
      const asked = player ? { type: "list_games", player, limit: GAMES_PAGE } : { type: "list_games", limit: GAMES_PAGE };
      const games = await this.app.conn.request(asked);
      const standings = h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, ["Rule", "Rating", "RD", "Won", "Lost", "Drawn"].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, profile.ratings.map((s) => h("tr", {},
          h("td", {}, s.rule), ratingCell(s), rdCell(s),
          h("td", {}, String(s.wins)), h("td", {}, String(s.losses)), h("td", {}, String(s.draws))))));
      const line = (g) => gameLine(g, profile.player);
      const list = h("ul", { class: "games" }, games.items.map(line));
      // The server gives a page at a time, newest first: older ones on asking (the page
      // listed 20 of 34 games with no word of the rest).
      const older = h("button", { type: "button", id: "older-games", class: "secondary" }, "Older games");
      older.hidden = games.items.length < GAMES_PAGE;
      older.onclick = async () => {
        older.disabled = true;
        try {
          const last = games.items[games.items.length - 1];
          const page = await this.app.conn.request({ ...asked, before_ms: last.ended_ms });
          games.items.push(...page.items);
          list.append(...page.items.map(line));
          older.hidden = page.items.length < GAMES_PAGE;
        } catch (error) {
          toast(errorText(error), { refusal: true });
        } finally {
          older.disabled = false;
        }
      };
      const counted = h("p", { class: "hint-text" }, "Won, lost and drawn count rated games; the list below has them all.");
      refill(this.root, h("h1", {}, profile.name), standings, counted, h("h2", {}, "Finished games"),
        games.items.length ? list : h("p", { class: "hint-text" }, noneText(profile, this.app.me)), older);
    } catch (error) {
      refill(this.root, h("h1", {}, "Profile"), h("p", {}, errorText(error)));
    }
  }
}

/** What a profile without listed games says: another player's rated games counted and
 * none listed were private (their players alone see them), not "yet" to come. */
function noneText(profile, me) {
  const theirs = profile.player !== me?.player;
  if (!theirs || !profile.ratings.some((s) => s.games)) return "No finished games yet.";
  return "No finished games to show: a private room's games are listed to its players only.";
}

/** Finished games asked for at a time (list_games allows 1 to 50). */
const GAMES_PAGE = 20;

/** One finished game in `player`'s profile: the players (to its review), how it went,
 * and what it did to the player's rating. */
function gameLine(g, player) {
  const change = (g.ratings ?? []).find((c) => c.player === player);
  const delta = change ? ` ${changeText(change)}` : ""; // as the game's end says it
  return h("li", {},
    // Each name with its colour: "Black wins" said nothing of who won without it.
    h("a", { href: `#/review/${g.id}` }, h("bdi", { class: "name" }, g.black.name), " (Black) – ",
      h("bdi", { class: "name" }, g.white.name), " (White)"),
    ` · ${g.rule} ${g.size}×${g.size} · ${resultText(g.result, g.moves)} · ${g.moves} move${g.moves === 1 ? "" : "s"}${g.rated ? ` · rated${delta}` : g.rated_room ? " · rated, not counted" : ""} · ${new Date(g.ended_ms).toLocaleString()}`);
}

/** A standing's rating for people: "unrated" before a rated game under the rule, and a
 * provisional rating (RD above 110, protocol.md) said to be one, not marked "?". */
function ratingCell(s) {
  if (!s.games) return h("td", { class: "unrated", title: `No rated ${s.rule} game yet: the rating starts at ${s.rating}.` }, "unrated");
  if (!s.provisional) return h("td", {}, String(s.rating));
  return h("td", { title: `Provisional: ${s.rating} after ${s.games} rated ${s.games === 1 ? "game" : "games"}; it settles with more games (RD ${s.rd}, settled at 110 or less).` },
    String(s.rating), " ", h("span", { class: "provisional" }, "provisional"));
}

function rdCell(s) {
  return s.games ? h("td", {}, String(s.rd)) : h("td", { title: `No rated ${s.rule} game yet.` }, "–");
}

export class ReviewView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.record = null;
    this.step = 0;
    document.addEventListener("keydown", (e) => {
      if (this.root.hidden || !this.record || e.target.closest?.("input, select, textarea")) return;
      const keys = { ArrowLeft: this.step - 1, ArrowRight: this.step + 1, Home: 0, End: this.record.moves.length };
      if (e.key in keys) {
        e.preventDefault();
        this.go(keys[e.key]);
      }
    });
  }

  async load(gameId) {
    this.game = gameId;
    this.record = null;
    refill(this.root, h("h1", {}, "Review"), h("p", {}, "Loading…"));
    if (!this.app.me || !gameId) return;
    try {
      this.record = JSON.parse(await fetchRecord(this.app.conn, gameId, "json"));
    } catch (error) {
      refill(this.root, h("h1", {}, "Review"), h("p", {}, errorText(error)));
      return;
    }
    this.build();
    this.go(this.record.moves.length);
  }

  build() {
    const r = this.record;
    this.boardHost = h("div", { class: "board-host" });
    this.board = new BoardView(this.boardHost, { onPlay: () => {}, onSelect: () => {}, readOnly: true });
    this.position = h("p", { class: "status", id: "review-step", "aria-live": "polite" });
    // One Tab stop in the list, the move shown (go sets it): the arrows step through the
    // rest. Each move was a stop of its own, 120 of them before Download in a long game.
    this.list = h("ol", { class: "moves review-moves" }, r.moves.map((m, i) =>
      h("li", { class: i % 2 ? "white" : "black" }, h("button", { type: "button", class: "link", tabindex: -1, onclick: () => this.go(i + 1) }, m.move))));
    const nav = h("div", { class: "row review-nav" },
      h("button", { type: "button", "aria-label": "First position", onclick: () => this.go(0) }, "|◀"),
      h("button", { type: "button", id: "review-back", "aria-label": "Back one move", onclick: () => this.go(this.step - 1) }, "◀"),
      h("button", { type: "button", id: "review-forward", "aria-label": "Forward one move", onclick: () => this.go(this.step + 1) }, "▶"),
      h("button", { type: "button", "aria-label": "Last position", onclick: () => this.go(r.moves.length) }, "▶|"));
    const players = r.players ?? {};
    const downloads = downloadButtons((format) => this.download(format));
    refill(this.root, 
      h("h1", {}, players.black || players.white
        ? `${players.black ?? "?"} (Black) – ${players.white ?? "?"} (White)`
        : "Black – White"),
      h("p", {}, [r.rule, `${r.size}×${r.size}`, this.opener ? `swap2, ${this.opener.name} opened` : r.opening ?? "free", ...clockFacts(r.game), resultText(r.result, r.moves.length, Boolean(r.game) && "time" in r.game && !r.game.time)].join(" · ")),
      h("div", { class: "room-body" },
        // The steps beside the board, at its top (under it, on a laptop's 800 px the
        // buttons were below the window's edge); under it on a phone, as the side is.
        h("div", { class: "board-col" }, this.boardHost),
        h("aside", { class: "side" }, nav, this.position,
          h("p", { class: "hint-text keys-hint" }, "← → step through the moves, Home and End go to either end."),
          h("h2", {}, "Moves"), this.list,
          h("div", { class: "row" }, ...downloads.buttons), downloads.note)));
  }

  go(step) {
    const r = this.record;
    this.step = Math.max(0, Math.min(r.moves.length, step));
    const cells = new Array(r.size * r.size).fill(0);
    r.moves.slice(0, this.step).forEach((m, i) => {
      const p = parsePoint(m.move, r.size);
      if (p) cells[p.y * r.size + p.x] = i % 2 === 0 ? 1 : 2;
    });
    const end = this.step === r.moves.length;
    // Black's forbidden points while Black is to move, as the live game and the
    // terminal's review mark them (not at the end of a finished game; a record with no
    // result ends with a player to move).
    const blackToPlay = r.rule === "renju" && !(end && r.result) && this.step % 2 === 0;
    const forbidden = blackToPlay ? forbiddenMap(cells, r.size) : new Map();
    this.board.render({
      size: r.size, cells, last: this.step ? r.moves[this.step - 1].move : null,
      line: end && r.result ? r.result.line ?? null : null, forbidden, hint: null,
      interactive: false, nextColor: null,
    });
    [...this.list.children].forEach((li, i) => {
      li.classList.toggle("current", i === this.step - 1);
      li.firstChild.tabIndex = i === Math.max(0, this.step - 1) ? 0 : -1;
    });
    const current = this.list.children[this.step - 1];
    if (current) { // within the list's own scroll, not the page's: the board stays put
      const box = this.list.getBoundingClientRect();
      const at = current.getBoundingClientRect();
      if (at.top < box.top) this.list.scrollTop -= box.top - at.top;
      else if (at.bottom > box.bottom) this.list.scrollTop += at.bottom - box.bottom;
    }
    const colour = this.step % 2 ? "Black" : "White"; // (who played it: a screen reader hears no stone)
    const placer = this.placer(this.step); // a swap2 opening's stone is its placer's
    this.position.textContent = `Move ${this.step} of ${r.moves.length}${this.step ? `: ${r.moves[this.step - 1].move} (${colour})` : ""}${placer ? `, placed by ${placer} in the opening` : ""}`;
  }

  /** Who placed stone `step` (from 1) of a swap2 opening, by the server's record: the
   * opener stones 1 to 3, the other player 4 and 5; null after the opening, or when the
   * record does not say. */
  placer(step) {
    const opening = this.opener;
    if (!opening || step < 1 || step > opening.stones) return null;
    return step <= 3 ? opening.name : opening.other;
  }

  /** A swap2 game's opener as its record tells (`game.swap2`: the colour the opener
   * ended with, null when the game ended before the choice, when Black's seat was the
   * opener's): {name, other, stones}; null for another game. */
  get opener() {
    const r = this.record;
    const story = r?.opening === "swap2" ? r.game?.swap2 : null;
    if (!story) return null;
    const players = r.players ?? {};
    const [mine, theirs] = story.opener === "white" ? ["white", "black"] : ["black", "white"];
    return { name: players[mine] ?? "?", other: players[theirs] ?? "?", stones: story.stones };
  }

  async download(format) {
    try {
      const players = this.record?.players ?? {};
      await downloadRecord(this.app.conn, this.game, format, players.black, players.white);
    } catch (error) {
      this.position.textContent = errorText(error);
    }
  }
}
