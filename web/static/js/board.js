// The board, drawn in SVG: grid, coordinates, star points, stones, the last move, the
// winning five, Black's forbidden points (renju), a hint, and a preview of the next
// stone. Every point is a focusable element with an accessible label; arrow keys move
// between points and Enter or Space plays. With a mouse a click plays (hovering shows
// where); with a finger the first tap previews and a second tap on the same point (or
// the Confirm button the room shows) plays.

import { columnLetter, examplePoint, parsePoint, pointName, starPoints } from "./notation.js";

const TYPED_MS = 1500; // a point's digits typed within this of its letter go on with it

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.append(node);
  return node;
}

export class BoardView {
  /**
   * @param {HTMLElement} host where the board goes
   * @param {{onPlay: (point: string) => void, onSelect: (point: string|null) => void,
   *          allowed?: (point: string) => boolean, blocked?: (point: string) => void,
   *          readOnly?: boolean}} hooks (allowed: false when the page refuses that point
   *          itself, having said why; blocked: Enter or Space where nothing can be played
   *          now, to say why rather than do nothing; readOnly: a board to look at, whose
   *          arrow keys are left to the page, as the review's steps are)
   */
  constructor(host, hooks) {
    this.host = host;
    this.hooks = hooks;
    this.size = 0;
    this.cursor = null; // [x, y] of the focused point
    this.selected = null; // a point previewed by a tap, waiting for confirmation
    this.hover = null;
    this.state = null;
    this.typed = ""; // the point being typed (see typePoint)
    this.typedAt = 0;
  }

  build(size) {
    this.size = size;
    // A new board (another room, another size): nothing of the old one's cursor, hover
    // or preview carries over, since its points may not exist here.
    this.cursor = null;
    this.hover = null;
    this.selected = null;
    this.host.replaceChildren();
    const svg = el("svg", {
      viewBox: `0 0 ${size + 1} ${size + 1}`,
      class: "board",
      role: "grid",
      "aria-label": this.hooks.readOnly
        ? `Board, ${size} by ${size}. Left and Right arrows step through the moves.`
        : `Board, ${size} by ${size}. Arrow keys move, a point typed (${examplePoint(size)}) goes there, a full stop to the last move, Enter or Space plays, Escape to an offer's answers.`,
      tabindex: -1, // one Tab stop for the board: its cursor's point (it was two)
    });
    this.svg = svg;
    el("rect", { x: 0, y: 0, width: size + 1, height: size + 1, class: "wood" }, svg);
    const grid = el("g", { class: "grid" }, svg);
    for (let i = 1; i <= size; i += 1) {
      el("line", { x1: 1, y1: i, x2: size, y2: i }, grid);
      el("line", { x1: i, y1: 1, x2: i, y2: size }, grid);
    }
    for (const [x, y] of starPoints(size)) el("circle", { cx: x + 1, cy: y + 1, r: 0.1, class: "star" }, svg);
    const labels = el("g", { class: "coords", "aria-hidden": "true" }, svg);
    for (let i = 0; i < size; i += 1) {
      // Centred in the margin (the style sets a central baseline), whatever their size.
      const col = el("text", { x: i + 1, y: size + 0.75 }, labels);
      col.textContent = columnLetter(i);
      const row = el("text", { x: 0.27, y: i + 1 }, labels);
      row.textContent = String(size - i);
    }
    this.marks = el("g", { class: "marks" }, svg);
    const targets = el("g", { class: "targets" }, svg);
    this.targets = [];
    for (let y = 0; y < size; y += 1) {
      // Named by its number: a row was named by all its points' names run together.
      const row = el("g", { role: "row", "aria-label": `Row ${pointName(0, y, size).slice(1)}` }, targets);
      for (let x = 0; x < size; x += 1) {
        const name = pointName(x, y, size);
        const target = el("rect", {
          x: x + 0.5, y: y + 0.5, width: 1, height: 1, class: "point",
          "data-point": name, role: "gridcell", tabindex: -1,
        }, row);
        this.targets.push(target);
      }
    }
    svg.addEventListener("pointermove", (e) => this.onHover(e));
    svg.addEventListener("pointerleave", () => { this.hover = null; this.draw(); });
    svg.addEventListener("click", (e) => this.onClick(e));
    svg.addEventListener("keydown", (e) => this.onKey(e));
    svg.addEventListener("focusin", (e) => {
      // A point clicked takes focus too: it becomes the cursor, the board's one Tab
      // stop (set straight to it, each point clicked stayed a Tab stop of its own).
      const name = e.target.getAttribute?.("data-point");
      if (name) this.setCursor(...this.xyOf(e.target), false);
      this.draw();
    });
    this.host.append(svg);
    this.setCursor(Math.floor(size / 2), Math.floor(size / 2), false);
  }

  xyOf(target) {
    const index = this.targets.indexOf(target);
    return [index % this.size, Math.floor(index / this.size)];
  }

  setCursor(x, y, focus) {
    const size = this.size;
    x = Math.max(0, Math.min(size - 1, x));
    y = Math.max(0, Math.min(size - 1, y));
    const previous = this.cursor ? this.targets[this.cursor[1] * size + this.cursor[0]] : null;
    if (previous) previous.setAttribute("tabindex", "-1");
    this.cursor = [x, y];
    const target = this.targets[y * size + x];
    target.setAttribute("tabindex", "0");
    if (focus) target.focus();
  }

  /** Forget the board on show (the page is about to show another room). */
  clear() {
    this.host.replaceChildren();
    this.size = 0;
    this.targets = [];
    this.state = null;
    this.cursor = null;
    this.hover = null;
    this.selected = null;
  }

  /**
   * Draw a position.
   * @param {{size: number, cells: number[], last: string|null, line: string[]|null,
   *          forbidden: Map<string, string>, hint: string|null, interactive: boolean,
   *          nextColor: string|null}} state
   */
  render(state) {
    if (state.size !== this.size) this.build(state.size);
    if (!state.interactive) this.selected = null;
    this.state = state;
    this.draw();
  }

  draw() {
    const state = this.state;
    if (!state) return;
    const { size, cells } = state;
    const marks = this.marks;
    marks.replaceChildren();
    const winning = new Set(state.line ?? []);
    for (let y = 0; y < size; y += 1) {
      for (let x = 0; x < size; x += 1) {
        const name = pointName(x, y, size);
        const stone = cells[y * size + x];
        const target = this.targets[y * size + x];
        const foul = state.forbidden.get(`${x},${y}`);
        let label = `${name}, empty`;
        if (stone) {
          const colour = stone === 1 ? "black" : "white";
          label = `${name}, ${colour} stone${name === state.last ? ", last move" : ""}${winning.has(name) ? ", winning five" : ""}`;
          el("circle", {
            cx: x + 1, cy: y + 1, r: 0.46,
            class: `stone ${colour}${winning.has(name) ? " win" : ""}`,
          }, marks);
          if (name === state.last) {
            el("circle", { cx: x + 1, cy: y + 1, r: 0.13, class: `last on-${colour}` }, marks);
          }
        } else if (foul) {
          label = `${name}, forbidden for Black (${foul})`;
          // Each mark twice, a dark edge under a lighter stroke: it shows on light and
          // dark wood alike (the red alone was 1.5:1 on the dark scheme's).
          const g = el("g", { class: "forbidden" }, marks);
          for (const edge of [true, false]) {
            const cls = edge ? { class: "edge" } : {};
            el("line", { x1: x + 0.75, y1: y + 0.75, x2: x + 1.25, y2: y + 1.25, ...cls }, g);
            el("line", { x1: x + 1.25, y1: y + 0.75, x2: x + 0.75, y2: y + 1.25, ...cls }, g);
          }
        }
        if (!stone && name === state.hint) {
          label = `${name}, empty, suggested by the hint`;
          const g = el("g", { class: "hint", transform: `rotate(45 ${x + 1} ${y + 1})` }, marks);
          for (const edge of [true, false]) {
            el("rect", { x: x + 0.72, y: y + 0.72, width: 0.56, height: 0.56, ...(edge ? { class: "edge" } : {}) }, g);
          }
        }
        target.setAttribute("aria-label", label);
        target.classList.toggle("playable", state.interactive && !stone);
      }
    }
    // The winning five's line over its stones, dark under light: it shows on the wood and
    // on stones of either colour (under them, and red, it was hidden, or lost to a
    // red-green colour-blind eye).
    if (state.line && state.line.length > 1) {
      const ends = [state.line[0], state.line[state.line.length - 1]].map((n) => this.xyOfName(n));
      if (ends[0] && ends[1]) {
        const g = el("g", { class: "winline" }, marks);
        const at = { x1: ends[0][0] + 1, y1: ends[0][1] + 1, x2: ends[1][0] + 1, y2: ends[1][1] + 1 };
        el("line", { ...at, class: "edge" }, g);
        el("line", at, g);
      }
    }
    if (state.sending && state.nextColor) {
      const xy = this.xyOfName(state.sending);
      if (xy && !cells[xy[1] * size + xy[0]]) {
        el("circle", { cx: xy[0] + 1, cy: xy[1] + 1, r: 0.42, class: `sending ${state.nextColor}` }, marks);
      }
    }
    if (state.premove) {
      // A move kept to be played when the opponent has moved: a dashed ring, no stone.
      const xy = this.xyOfName(state.premove);
      if (xy && !cells[xy[1] * size + xy[0]]) {
        el("circle", { cx: xy[0] + 1, cy: xy[1] + 1, r: 0.38, class: "premove" }, marks);
      }
    }
    const ghost = this.selected ?? this.hover;
    if (state.interactive && ghost && state.nextColor) {
      const [x, y] = ghost;
      if (!cells[y * size + x]) {
        el("circle", {
          cx: x + 1, cy: y + 1, r: 0.42,
          class: `preview ${state.nextColor}${this.selected ? " selected" : ""}`,
        }, marks);
      }
    }
  }

  xyOfName(name) {
    const index = this.targets.findIndex((t) => t.getAttribute("data-point") === name);
    return index < 0 ? null : [index % this.size, Math.floor(index / this.size)];
  }

  onHover(event) {
    if (event.pointerType !== "mouse") return;
    const name = event.target.getAttribute?.("data-point");
    const xy = name ? this.xyOf(event.target) : null;
    if (String(xy) !== String(this.hover)) {
      this.hover = xy;
      this.draw();
    }
  }

  onClick(event) {
    const name = event.target.getAttribute?.("data-point");
    if (!name || !this.state) return;
    // A finger gets a preview first; pointerType is "" for synthetic clicks (keyboard).
    const touch = event.pointerType === "touch" || event.pointerType === "pen";
    // A mouse's second click of a double click is never a move: a double-clicked "Play
    // the AI" opens this board under the pointer, and its second click played a stone
    // there. (A finger's double tap plays the point its first tap showed.) Nor does it
    // say why nothing was played: the first click's move is on its way.
    if (!touch && event.detail > 1) return;
    if (!this.state.interactive) {
      this.hooks.blocked?.(name); // says why (the move on its way, not your move...)
      return;
    }
    const xy = this.xyOf(event.target);
    this.setCursor(xy[0], xy[1], false);
    if (this.state.cells[xy[1] * this.size + xy[0]]) {
      this.select(null); // a stone is there: nothing to play, nor to preview
      this.hooks.onPlay(name); // which says so, as Enter on it does
      return;
    }
    if (touch && String(this.selected) !== String(xy)) {
      // A point the page already knows is refused (Black's forbidden point in renju)
      // is refused at the first tap, as a click would be, rather than previewed.
      if (this.hooks.allowed && !this.hooks.allowed(name)) {
        this.select(null);
        return;
      }
      this.select(xy);
      return;
    }
    this.select(null);
    this.hooks.onPlay(name);
  }

  select(xy) {
    this.selected = xy;
    this.hooks.onSelect(xy ? pointName(xy[0], xy[1], this.size) : null);
    this.draw();
  }

  /** Play the point a tap selected (the Confirm button). */
  confirm() {
    if (!this.selected) return;
    const name = pointName(this.selected[0], this.selected[1], this.size);
    this.select(null);
    this.hooks.onPlay(name);
  }

  /** Put the cursor (the board's Tab stop) on the point named `name`, without focus. */
  moveCursor(name) {
    const p = parsePoint(name, this.size);
    if (p && this.targets.length) this.setCursor(p.x, p.y, false);
  }

  /** Focus the board's point under its cursor (where a keyboard user plays next). */
  /** The keys to the cursor's point, where they stand (``reveal``: scrolled into sight,
   * for keys coming back from elsewhere on a page scrolled away from the board). */
  focus({ reveal = false } = {}) {
    const target = this.cursor ? this.targets[this.cursor[1] * this.size + this.cursor[0]] : null;
    if (!target) return;
    target.focus({ preventScroll: true });
    if (reveal) target.scrollIntoView({ block: "nearest" });
  }

  onKey(event) {
    if (!this.cursor || this.hooks.readOnly) return;
    if (event.key === "Escape" && this.hooks.escape) { // (to an offer's answers: the terminal's Esc)
      if (this.hooks.escape()) event.preventDefault();
      return;
    }
    if (this.typePoint(event)) return;
    const last = event.key === "." && this.state?.last ? parsePoint(this.state.last, this.size) : null;
    if (last) { // to the last move, as in the terminal
      event.preventDefault();
      this.setCursor(last.x, last.y, true);
      return;
    }
    const [x, y] = this.cursor;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[event.key]) {
      event.preventDefault();
      this.typed = ""; // (the cursor is the keys' again)
      const [dx, dy] = moves[event.key];
      this.setCursor(x + dx, y + dy, true);
      this.hover = this.cursor;
      this.draw();
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      const typed = this.typed;
      this.typed = "";
      if (typed && !parsePoint(typed, this.size) && performance.now() - this.typedAt <= 2 * TYPED_MS) {
        // A point begun and not finished (h, or h with a key that is no digit): said, not
        // the cursor's point played instead.
        if (this.hooks.unread) this.hooks.unread(typed);
        return;
      }
      const name = pointName(x, y, this.size);
      if (this.state && this.state.interactive) this.hooks.onPlay(name);
      else if (this.hooks.blocked) this.hooks.blocked(name);
    }
  }

  /** A point typed on the board (h8, j10) takes the cursor there, for Enter to play, as
   * typing a point does in the terminal: one arrow press a step took 28 from corner to
   * corner. A letter begins a point; digits typed after it (within TYPED_MS) go on with
   * it. True when the key was such a part of a point. */
  typePoint(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return false;
    const now = performance.now();
    const going = Boolean(this.typed) && now - this.typedAt <= TYPED_MS;
    const key = event.key.length === 1 ? event.key.toLowerCase() : "";
    // A French keyboard's digit row types & é " ' ( - è _ ç à without Shift: the key's
    // place says the digit meant (h_ left the cursor where it was, and Enter played it).
    const place = /^(?:Digit|Numpad)(\d)$/.exec(event.code ?? "");
    const digit = /^[0-9]$/.test(key) ? key : going && place ? place[1] : null;
    if (!digit && !/^[a-z]$/.test(key)) return false;
    if (digit && !going) return false;
    this.typed = digit ? this.typed + digit : key;
    this.typedAt = now;
    event.preventDefault();
    const p = parsePoint(this.typed, this.size);
    if (p) {
      this.setCursor(p.x, p.y, true);
      this.hover = this.cursor;
      this.draw();
    }
    return true;
  }
}
