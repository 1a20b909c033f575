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

export function option(value, label, selected = false) {
  return h("option", { value, selected }, label);
}

let toastTimer = null;

/** How long a toast stays up (ms). */
export const TOAST_MS = 6000;

/** Show a message for a few seconds in the page's alert area. */
export function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, TOAST_MS);
}

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
  not_your_turn: "It is not your turn.",
  occupied: "That point already has a stone.",
  off_board: "That point is off the board.",
  room_full: "That room has no free seat.",
  no_such_room: "That room does not exist (any more).",
  game_over: "The game is over.",
  rate_limited: "Slow down a little.",
  chat_rate_limited: "Too many chat lines; wait a moment.",
  hint_not_allowed: "No hints in a rated game.",
  ai_not_allowed: "Rated games are for people: no AI seat.",
  no_ai_available: "No AI is available right now.",
  offline: "Not connected to the server right now.",
  unavailable: "The server cannot reach its store; try again in a moment.",
};

/** A refusal from the server in words for people. */
export function errorText(error) {
  if (error.code === "forbidden") return `Forbidden for Black: ${error.foul ?? "a foul"}.`;
  return ERROR_WORDS[error.code] ?? error.message ?? String(error);
}
