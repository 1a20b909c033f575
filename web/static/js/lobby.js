// The lobby: quick match (with a visible wait and cancel), a new room with every option
// the protocol has, a game against the AI, an AI-vs-AI game, joining by invite code, and
// the live list of rooms to join or watch.

import { levelSelect } from "./levels.js";
import { HOW_TO_PLAY, OPENINGS, RULES } from "./rules.js";
import { clockText, opponentOf, parseTimeControl, ratingText, resultText, timeControlText } from "./room.js";
import { errorText, focusHeading, h, option, toast } from "./ui.js";

// The usual clocks, as players write them (parseTimeControl reads them): quick match's
// choices, and the New room field's list.
const CLOCKS = ["30s+0", "1+0", "3+2", "5+3", "10+5", "15+10", "30+0"];

function select(name, label, options, value) {
  return h("label", {}, label, " ",
    h("select", { name }, options.map(([v, l]) => option(v, l, v === value))));
}

const STATE_ORDER = { waiting: 0, opening: 1, playing: 2 };

export class LobbyView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.sending = new Set(); // forms whose request awaits its answer
    this.build();
  }

  build() {
    const app = this.app;
    // The wait: said once as it begins ("Waiting for an opponent"), its counter not (a
    // screen reader read it out each second), and its Cancel made once (made again each
    // second, it lost a keyboard's focus before Enter could reach it).
    this.queueSaid = h("span", { class: "sr-only", role: "status" });
    this.queueTime = h("span", { "aria-hidden": "true" });
    this.queueBox = h("div", { class: "queue-status", hidden: true }, this.queueTime, " ",
      h("button", { type: "button", id: "cancel-queue", onclick: () => this.cancel() }, "Cancel"));
    // Each form is named by its heading: a screen reader's list of fields told three
    // "Rule" apart by nothing.
    const quick = h("form", { class: "card", id: "quick-form", "aria-labelledby": "quick-form-title", onsubmit: (e) => this.quickMatch(e) },
      h("h2", { id: "quick-form-title" }, "Quick match"),
      h("p", { class: "hint-text" }, "Rated, 15×15, colours drawn at random (casual if the AI steps in)."),
      select("rule", "Rule", RULES, "freestyle"),
      select("time", "Clock", [["", "No clock"], ...CLOCKS.map((c) => [c, c])], "5+3"),
      h("label", {}, h("input", { type: "checkbox", name: "ai" }), " Play the AI if nobody comes within ",
        h("input", { type: "number", name: "ai_after", min: 5, max: 3600, value: 30, class: "short", "aria-label": "Seconds before the AI steps in" }), " s"),
      h("label", {}, "AI level ", levelSelect({ name: "ai_level" }, app.aiLevel)),
      h("button", { type: "submit", id: "quick-button" }, "Find an opponent"),
      this.queueSaid, this.queueBox);
    const create = h("form", { class: "card", id: "create-form", "aria-labelledby": "create-form-title", onsubmit: (e) => this.create(e) },
      h("h2", { id: "create-form-title" }, "New room"),
      select("rule", "Rule", RULES, "freestyle"),
      h("label", {}, "Board ", h("input", { type: "number", name: "size", min: 5, max: 26, value: 15, class: "short" })),
      select("opening", "Opening", OPENINGS, "free"),
      h("label", {}, "Clock ",
        h("input", {
          name: "time", list: "clock-presets", class: "clock-field", autocomplete: "off", placeholder: "none",
          title: "Minutes + seconds added after each move, like 5+3 or 1+2; empty for no clock",
          oninput: (e) => e.target.setCustomValidity(""),
        }),
        h("datalist", { id: "clock-presets" }, CLOCKS.map((c) => option(c, c)))),
      select("seat", "Your seat", [["random", "Random"], ["black", "Black (swap2: the opener)"], ["white", "White (swap2: the other)"]], "random"),
      h("label", {}, h("input", { type: "checkbox", name: "rated" }), " Rated"),
      h("label", {}, h("input", { type: "checkbox", name: "private" }), " Private (join by invite code)"),
      h("div", { class: "buttons" },
        h("button", { type: "submit", name: "people", id: "create-button" }, "Create room"),
        h("span", {}, " or against the AI: "),
        levelSelect({ name: "level", "aria-label": "AI level" }, app.aiLevel),
        h("button", { type: "submit", name: "ai", id: "play-ai-button" }, "Play the AI")));
    const aivai = h("form", { class: "card", id: "aivai-form", "aria-labelledby": "aivai-form-title", onsubmit: (e) => this.aiGame(e) },
      h("h2", { id: "aivai-form-title" }, "AI vs AI"),
      h("label", {}, "Black ", levelSelect({ name: "black" }, "novice")),
      h("label", {}, "White ", levelSelect({ name: "white" }, "intermediate")),
      select("rule", "Rule", RULES, "freestyle"),
      h("label", {}, "Board ", h("input", { type: "number", name: "size", min: 5, max: 26, value: 15, class: "short" })),
      h("button", { type: "submit" }, "Start and watch"));
    const code = h("form", { class: "card", id: "code-form", "aria-labelledby": "code-form-title", onsubmit: (e) => this.joinCode(e) },
      h("h2", { id: "code-form-title" }, "Join by invite code"),
      h("label", {}, "Code ", h("input", { name: "code", maxlength: 32, autocomplete: "off", class: "code", required: true })),
      h("button", { type: "submit" }, "Join"));
    this.resumeBox = h("div", { class: "card resume", hidden: true });
    // What the player must not miss on coming back to the lobby (a game of theirs lost
    // with the server): it stays until dismissed, where a toast was gone in 6 s.
    this.noticeBox = h("div", { class: "card notice", id: "lobby-notice", role: "status", hidden: true });
    this.table = h("tbody");
    this.empty = h("p", { class: "hint-text" }, "No open rooms yet: create one, or use quick match.");
    // How many, and whether the list is held (below): said beside the heading.
    this.count = h("span", { class: "room-count hint-text" });
    const list = h("section", { class: "card rooms", id: "rooms" },
      h("h2", {}, "Rooms ", this.count),
      h("table", { class: "room-list" },
        h("thead", {}, h("tr", {}, ["Rule", "Size", "Clock", "Black", "White", "Watching", "State"].map((t) => h("th", { scope: "col" }, t)),
          h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")))),
        this.table),
      this.empty);
    const sound = h("label", { class: "sound" },
      h("input", { type: "checkbox", id: "sound-toggle", checked: app.sound, onchange: (e) => { app.sound = e.target.checked; } }),
      " Sound on moves");
    // A mouse over the list holds it as it is (lichess's lobby does the same): each
    // change made it again, and a room coming or going above moved every row under a
    // still pointer, so a click aimed at a game's Watch joined the rated room that had
    // slid under it. It shows the changes once the pointer leaves it.
    // (:hover as well: a list hidden under the pointer, a room joined by a click,
    // never hears the pointer leave.)
    this.list = list;
    list.addEventListener("pointerenter", (e) => { this.mouseOver = e.pointerType === "mouse"; });
    list.addEventListener("pointerleave", () => {
      this.mouseOver = false;
      if (this.heldChanges) this.update();
    });
    // The forms first: under a busy evening's hundred rooms they were sixteen screens
    // down on a phone.
    // On a phone the forms take four screens: a way past them to the rooms, for the keys
    // too (the list's heading takes them: the next Tab is the first room's Join; they
    // stayed on the button, 24 Tabs of forms from the first room).
    const toList = () => {
      const heading = list.querySelector("h2");
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: true });
      list.scrollIntoView();
    };
    this.toRooms = h("button", { type: "button", class: "secondary to-rooms", onclick: toList }, "Rooms ↓");
    // The rules, for one who has never played (nothing taught them): closed, one line.
    const howTo = h("details", { class: "card how-to-play", id: "how-to-play" }, h("summary", {}, "How to play"),
      ...HOW_TO_PLAY.map((text) => h("p", {}, text)));
    this.root.replaceChildren(h("h1", { class: "sr-only" }, "Lobby"), this.noticeBox, this.resumeBox,
      this.toRooms, howTo, h("div", { class: "lobby-grid" }, quick, create, aivai, code), list, sound);
  }

  /** Say `text` at the top of the lobby until the player dismisses it. */
  notice(text) {
    this.noticeBox.replaceChildren(h("p", {}, text),
      h("button", { type: "button", onclick: () => { this.noticeBox.hidden = true; } }, "OK"));
    this.noticeBox.hidden = false;
  }

  /** The AI level last played, offered again by both forms (quick match kept the one
   * of the lobby's first showing). */
  offerLevel() {
    for (const select of this.root.querySelectorAll("select[name=ai_level], select[name=level]")) {
      select.value = this.app.aiLevel;
    }
  }

  update() {
    const app = this.app;
    // Rooms waiting for a player first, then games being played, each by id (the
    // server's order, random to a person: waiting and playing rooms were mixed).
    const rank = (room) => STATE_ORDER[room.state] ?? 3;
    const rows = [...app.lobby.values()].sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
    const waiting = rows.filter((room) => room.state === "waiting").length;
    const held = this.mouseOver && this.list.matches(":hover");
    this.heldChanges = held && this.table.childElementCount > 0;
    const counted = rows.length ? `· ${rows.length} listed, ${waiting} waiting for a player` : "";
    this.count.textContent = this.heldChanges ? `${counted} · changes show when the pointer leaves the list` : counted;
    this.toRooms.textContent = rows.length ? `Rooms ↓ (${waiting} waiting for a player)` : "Rooms ↓";
    if (this.heldChanges) {
      this.keepingFocus(() => this.renderGames());
      this.tick();
      return;
    }
    this.keepingFocus(() => {
      this.table.replaceChildren(...rows.map((room) => this.row(room)));
      this.empty.hidden = rows.length > 0;
      this.renderGames();
    });
    this.tick();
  }

  /** Run `rebuild` (the rooms' rows and "Your games", made anew at each change) with a
   * keyboard user's focus kept: on a room's Join, Watch or game link it goes to the same
   * one made again, or, the room gone (or the focus on a heading made again, as "Your
   * games" is), to the lobby's first heading. It fell to the page's body whenever any
   * room anywhere changed, and on leaving a running game, whose heading the page had
   * just focused. */
  keepingFocus(rebuild) {
    const focused = document.activeElement;
    const inside = Boolean(focused && focused !== document.body && this.root.contains(focused));
    const holder = inside ? focused.closest("[data-room]") : null;
    const place = holder
      ? { room: holder.dataset.room, kind: focused.className, inGames: this.resumeBox.contains(holder) }
      : null;
    rebuild();
    if (!inside || (document.activeElement && document.activeElement !== document.body)) return;
    const box = place?.inGames ? this.resumeBox : this.table;
    const again = !place ? null : [...box.querySelectorAll("[data-room]")]
      .filter((e) => e.dataset.room === place.room)
      .map((e) => (e.className === place.kind ? e : [...e.querySelectorAll("a, button")].find((c) => c.className === place.kind)))
      .find((e) => e && e.getClientRects().length);
    if (again) again.focus({ preventScroll: true });
    else focusHeading(this.root);
  }

  /** "Your games": each with the opponent and where it stands. */
  renderGames() {
    const mine = this.app.myGames();
    this.resumeBox.hidden = mine.length === 0;
    this.resumeBox.replaceChildren(h("h2", {}, "Your games"),
      h("div", { class: "buttons" }, mine.map((id) =>
        h("a", { href: `#/room/${id}`, class: "button", dataset: { room: id } }, this.gameText(id)))));
  }

  /** A game of this player's in words: the opponent, and whose turn it is (from the room
   * if the page has it, else from its lobby line) or how it ended. */
  gameText(id) {
    const me = this.app.me?.player;
    const room = this.app.rooms.get(id) ?? this.app.lobby.get(id);
    if (!room) {
      const name = this.app.opponents.get(id);
      const ended = this.app.endedAway.get(id);
      if (name && ended) return `Your game with ${name} is over: ${resultText(ended)}`;
      return name ? `Your game with ${name}` : "Return to your game";
    }
    if (room.state === "waiting") return "Your room: waiting for an opponent";
    const other = opponentOf(room.players, me);
    const game = `Your game with ${other?.name ?? "an opponent"}`;
    if (room.state === "over") return `${game} is over: ${resultText(room.result, room.moves?.length ?? null, !room.time)}`;
    // The opponent away is said: a player coming back to the lobby saw only whose turn
    // it was, when the win may already have been theirs to claim.
    const away = other && other.online === false ? ` (${other.name} is away)` : "";
    if (!("actor" in room)) return game + away;
    return `${game}: ${room.actor === me ? "your turn" : `${other?.name ?? "the opponent"}'s turn`}${away}`;
  }

  row(room) {
    // The game page's words for an AI seat ("· AI"): an emoji needs a font many systems lack.
    // The name in a <bdi>: a right-to-left one stays before its rating.
    // A player offline (their seat kept a while, a waiting room's too) says so: one who
    // joins their room may wait for them.
    // An empty seat is a dash to see and "empty seat" to hear.
    const empty = [h("span", { "aria-hidden": "true" }, "—"), h("span", { class: "sr-only" }, "empty seat")];
    const player = (p) => (p ? [h("bdi", { class: "name" }, p.name), `${p.rating ? ` (${ratingText(p.rating, p.provisional)})` : ""}${p.bot ? " · AI" : ""}${p.online === false ? " · away" : ""}`] : empty);
    // Each room's links say whose room (a screen reader's list of links read "Join,
    // Watch, Join, Watch").
    const names = [room.players.black, room.players.white].filter(Boolean).map((p) => p.name).join(" and ");
    const whose = `${names || "nobody yet"}, ${room.rule}`;
    const free = room.state === "waiting";
    // The player's own room: back into it (its game, not a spectator's view of it).
    const me = this.app.me?.player;
    const mine = Boolean(me) && (room.players.black?.id === me || room.players.white?.id === me);
    return h("tr", { dataset: { room: room.id } },
      h("td", {}, room.rule, room.opening === "swap2" ? " (swap2)" : "", room.rated ? " · rated" : ""),
      h("td", {}, `${room.size}×${room.size}`),
      h("td", {}, timeControlText(room.time)),
      h("td", {}, "● ", player(room.players.black)),
      h("td", {}, "○ ", player(room.players.white)),
      h("td", {}, `${room.spectators} watching`),
      h("td", {}, room.state),
      h("td", { class: "actions" }, mine
        ? h("a", { href: `#/room/${room.id}`, class: "button mine" }, "Your game")
        : [free ? h("a", { href: `#/room/${room.id}`, class: "button join", "aria-label": `Join ${whose}` }, "Join") : null,
          h("a", { href: `#/watch/${room.id}`, class: "button watch", "aria-label": `Watch ${whose}` }, "Watch")]));
  }

  tick() {
    const q = this.app.queued;
    const button = this.root.querySelector("#quick-button");
    button.disabled = Boolean(q) || this.sending.has(button.form);
    if (!q) {
      if (!this.queueBox.hidden && this.queueBox.contains(document.activeElement)) button.focus();
      this.queueBox.hidden = true;
      this.queueSaid.textContent = "";
      return;
    }
    const waited = performance.now() - q.since;
    // Still waiting past ai_after_ms: no AI was free then; the server tries again.
    const aiLate = q.ai_after_ms && waited > q.ai_after_ms + 1000;
    const ai = !q.ai_after_ms ? "" : aiLate ? " (the AI comes when one is free)" : ` (the AI comes after ${clockText(q.ai_after_ms)})`;
    // Quick match pairs players who search, not rooms: rooms with the same rule and
    // clock waiting in the list are said (a player waited with three of them below).
    const me = this.app.me?.player;
    const sameTime = (a, b) => (a ?? null) === null ? (b ?? null) === null : Boolean(b) && a.base_ms === b.base_ms && a.inc_ms === b.inc_ms;
    const alike = [...this.app.lobby.values()].filter((room) => {
      const seated = [room.players.black, room.players.white].filter(Boolean);
      return room.state === "waiting" && room.rule === q.rule && sameTime(room.time, q.time)
        && seated.length === 1 && seated[0].id !== me;
    }).length;
    const open = alike ? ` · ${alike} such room${alike > 1 ? "s" : ""} open in the list` : "";
    const text = `Waiting for an opponent: ${clockText(waited)}${ai}${open}`;
    if (this.queueTime.textContent !== text) this.queueTime.textContent = text;
    const said = `Waiting for an opponent${ai}.`;
    if (this.queueSaid.textContent !== said) this.queueSaid.textContent = said;
    if (this.queueBox.hidden) {
      this.queueBox.hidden = false;
      this.cancelWanted = true;
    }
    // The pressed button is off while queued: the keys go to Cancel, not the body (once
    // the form's buttons are on again: they wait for the queue's answer).
    const cancel = this.queueBox.querySelector("#cancel-queue");
    if (this.cancelWanted && !cancel.disabled) {
      this.cancelWanted = false;
      const at = document.activeElement;
      if (!at || at === document.body || at === button) cancel.focus();
    }
  }

  /** Send a form's request once: its buttons wait for the answer, and a second submit
   * meanwhile (a double click, Enter again) sends nothing. */
  async once(form, send) {
    if (this.sending.has(form)) return;
    this.sending.add(form);
    const buttons = [...form.querySelectorAll("button")];
    for (const button of buttons) button.disabled = true;
    try {
      await send();
    } catch (error) {
      toast(errorText(error), { refusal: true });
    } finally {
      this.sending.delete(form);
      for (const button of buttons) button.disabled = false;
      this.tick(); // the quick-match button stays off while queued
    }
  }

  quickMatch(event) {
    event.preventDefault();
    const f = event.target.elements;
    const message = { type: "queue", rule: f.rule.value, time: parseTimeControl(f.time.value) };
    if (f.ai.checked) {
      message.ai_after_ms = Math.round(Number(f.ai_after.value) * 1000);
      message.ai_level = f.ai_level.value;
    }
    this.app.searching = message; // asked again on a new connection (App.onWelcome)
    return this.once(event.target, () => this.app.conn.request(message));
  }

  async cancel() {
    try {
      await this.app.conn.request({ type: "unqueue" });
    } catch (error) {
      if (error.code !== "not_queued") toast(errorText(error), { refusal: true });
    }
    this.app.queued = null;
    this.update();
  }

  create(event) {
    event.preventDefault();
    const f = event.target.elements;
    const withAi = event.submitter?.name === "ai";
    let time;
    try {
      time = parseTimeControl(f.time.value);
    } catch (error) { // said by the field itself, like any field the browser checks
      f.time.setCustomValidity(error.message);
      f.time.reportValidity();
      return undefined;
    }
    const message = {
      type: "create_room",
      rule: f.rule.value,
      size: Number(f.size.value),
      opening: f.opening.value,
      time,
      seat: f.seat.value,
      rated: withAi ? false : f.rated.checked,
      private: f.private.checked,
    };
    if (withAi && f.rated.checked) toast("A game against the AI is not rated: this one is casual.");
    if (withAi) this.app.aiLevel = f.level.value;
    return this.once(event.target, () => this.app.createRoom(message, withAi ? f.level.value : null));
  }

  aiGame(event) {
    event.preventDefault();
    const f = event.target.elements;
    return this.once(event.target, async () => {
      const snap = await this.app.conn.request({
        type: "create_ai_game", rule: f.rule.value, black: f.black.value, white: f.white.value,
        size: Number(f.size.value),
      });
      this.app.open(this.app.rooms.get(snap.room.id));
    });
  }

  joinCode(event) {
    event.preventDefault();
    const code = event.target.elements.code.value.trim().toUpperCase();
    if (code) window.location.hash = `#/room/${encodeURIComponent(code)}`;
  }
}
