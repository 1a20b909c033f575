// Small DOM helpers: build elements, show a short message, play a click on a move.

/**
 * h("button", {class: "x", onclick: f}, "text", child...) -> an element. Attributes
 * starting with "on" become listeners; `true`/`false` toggle boolean attributes.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Focus the first heading of `root` that shows (not a screen reader's alone: a
 * keyboard user saw no focus on the lobby's 1-pixel one), as a view's starting place. */
export function focusHeading(root) {
  const heading = [...root.querySelectorAll("h1, h2")]
    .find((e) => !e.classList.contains("sr-only") && e.getClientRects().length);
  if (!heading) return;
  heading.setAttribute("tabindex", "-1");
  heading.focus({ preventScroll: true });
}

/** Replace `root`'s children, keeping a keyboard user's place: focus that was in `root`
 * (on something now gone), in a view just hidden, or fallen to the page's body goes to
 * the new heading. A view that loads draws "Loading…" and then its content: the focus
 * went to the body. */
export function refill(root, ...children) {
  const focused = document.activeElement;
  const lost = !focused || focused === document.body || root.contains(focused)
    || Boolean(focused.closest("[hidden]"));
  root.replaceChildren(...children);
  const now = document.activeElement;
  if (lost && !root.hidden && (!now || now === document.body || now.closest("[hidden]"))) {
    focusHeading(root);
  }
}

export function option(value, label, selected = false) {
  return h("option", { value, selected }, label);
}

let toastTimer = null;

/** How long a toast stays up (ms). */
export const TOAST_MS = 6000;

/** Show a message for a few seconds in the page's alert area. */
export function toast(text, { refusal = false } = {}) {
  const box = document.getElementById("toast");
  box.textContent = text;
  // A refusal is told by a sign too (style.css), not only by its words: it looked like
  // any notice.
  box.classList.toggle("refusal", refusal);
  box.hidden = false;
  placeToast();
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, TOAST_MS);
}

/**
 * Keep a toast off what it must not hide (elements marked `data-toast-clear`: a game's
 * status line and result): at the foot of the window, or at its top when that would
 * cover one of them. Called again when the page scrolls or changes under it.
 */
export function placeToast() {
  const box = document.getElementById("toast");
  if (!box || box.hidden) return;
  const keep = [...document.querySelectorAll("[data-toast-clear]")]
    .map((node) => node.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.height > 0);
  const covers = () => {
    const t = box.getBoundingClientRect();
    return keep.some((r) => r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom);
  };
  box.classList.remove("top");
  if (covers()) {
    box.classList.add("top");
    if (covers()) box.classList.remove("top"); // both ways: the foot, as usual
  }
}

window.addEventListener("scroll", placeToast, { passive: true });
window.addEventListener("resize", placeToast);

let audio = null;

/** A short click for a stone (Web Audio; nothing is downloaded). */
export function clickSound() {
  try {
    audio = audio ?? new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.08);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.09);
  } catch {
    // No audio on this device: moves stay silent.
  }
}

/** Offer `text` as a file download named `name`. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const ERROR_WORDS = {
  not_in_room: "You are not in that room.",
  not_your_turn: "It is not your turn.",
  stale_move: "The game had moved on: that move was not played.",
  occupied: "That point already has a stone.",
  off_board: "That point is off the board.",
  room_full: "That room has no free seat.",
  no_such_room: "That room does not exist (any more), or it is private: a private game opens with its invite link or code.",
  game_over: "The game is over.",
  offer_pending: "An offer is already waiting for an answer.",
  no_offer: "That offer is no longer open.",
  not_claimable: "Your opponent is back, or was within the grace period: no win to claim yet.",
  already_queued: "You are already waiting for a quick match.",
  not_queued: "You are not waiting for a quick match.",
  rate_limited: "Slow down a little.",
  hint_not_allowed: "No hints in a rated game.",
  ai_not_allowed: "Rated games are for people: no AI seat.",
  offline: "Not connected to the server right now.",
  too_long: "Not sent: too long for the server.", // the page's own (net.js), as offline
  unavailable: "The server cannot reach its store; try again in a moment.",
  internal: "Something went wrong on the server; try again.",
  no_such_game: "There is no record of that game here (it may still be running, or be a private game of other players).",
  no_such_player: "That player has not finished a game here.",
};

// Codes whose message says what stands in the way ("bob has left the room", "wait 5 s
// before asking again"): it is kept (as written: it may begin with a name).
const NOT_NOW = new Set(["wrong_phase", "throttled"]);
// Codes whose message says it all, in the server's words: the chat limit and the wait.
const AS_SAID = new Set(["chat_rate_limited"]);
// Codes whose message is the whole story, under a heading of the page's.
// The server's message says which (no worker, that level offered by none, all busy).
const HEADED = { too_many_rooms: "No new room", no_ai_available: "No AI available" };

/** A refusal from the server in words for people: the page's own words for its code,
 * else the server's message in a sentence. */
export function errorText(error) {
  if (error.code === "forbidden") return `Forbidden for Black: ${error.foul ?? "a foul"}.`;
  if (ERROR_WORDS[error.code]) return ERROR_WORDS[error.code];
  const message = String(error.message ?? error).replace(/[.\s]+$/, "");
  if (HEADED[error.code]) return `${HEADED[error.code]}: ${message}.`;
  if (AS_SAID.has(error.code)) return `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
  return NOT_NOW.has(error.code) ? `Not now: ${message}.` : `The server refused: ${message}.`;
}
