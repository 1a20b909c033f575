// The AI levels the page offers, weakest first: the engine's (engine/ai/levels.py,
// LEVEL_NAMES), which every worker of this project plays. A test keeps the two lists equal.
// A worker of someone else's offers levels of its own ("brain:embryo", "wbn-simple"):
// each list ends with "Other level…", which asks for one by name and keeps it in the
// lists from then on (this browser's storage), as the terminal's "or level name" does.

import { h, option } from "./ui.js";

export const LEVELS = ["beginner", "novice", "intermediate", "advanced", "master"];

// What each level plays like, in a few words a player choosing one can use: the engine's
// own (engine/ai/levels.py, Level.words), which a test keeps these equal to.
const LEVEL_WORDS = {
  beginner: "first games: misses threats",
  novice: "blocks fours, sees shapes",
  intermediate: "reads two moves ahead",
  advanced: "finds forced wins",
  master: "full strength",
};

/** "beginner (first games: misses threats)": a level as its choices show it. */
export function levelLabel(level) {
  return LEVEL_WORDS[level] ? `${level} (${LEVEL_WORDS[level]})` : level;
}

const OTHER = "";
const KEPT = "gomoku.levels"; // the levels named here before (localStorage)
// As protocol.md's bot_ready says a level is named.
const LEVEL_NAME = /^[a-z0-9_.:+-]{1,40}$/;

/** The levels named with "Other level…" on this browser, oldest first. */
export function otherLevels() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) ?? "[]");
    return Array.isArray(kept) ? kept.filter((l) => typeof l === "string" && LEVEL_NAME.test(l) && !LEVELS.includes(l)) : [];
  } catch {
    return [];
  }
}

/** Every level a list offers: the engine's, then the ones named here. */
export function allLevels() {
  return [...LEVELS, ...otherLevels()];
}

/** The choices of a list of AI levels, `chosen` chosen: every level, then "Other level…". */
function levelOptions(chosen) {
  return [...allLevels().map((l) => option(l, levelLabel(l), l === chosen)), option(OTHER, "Other level…")];
}

/** A list of AI levels (`attrs`: its name or id and label) with `chosen` chosen, and
 * "Other level…" last, which asks for a level by name and adds it to every list. */
export function levelSelect(attrs, chosen) {
  const list = h("select", { ...attrs, dataset: { level: "" } }, levelOptions(chosen));
  let before = list.value;
  // Arrows on a closed list change its value at each press: passing over "Other level…"
  // asked for a name at once. Chosen with the keys, it asks on Enter or Space, or when
  // the keys leave the list with it still chosen; with a pointer, at once.
  let browsing = false;
  let asking = false; // (the question's own dialog may take the focus: asked once)
  list.addEventListener("pointerdown", () => { browsing = false; });
  list.addEventListener("keydown", (e) => {
    if ((e.key === "Enter" || e.key === " ") && list.value === OTHER) {
      e.preventDefault();
      ask();
      return;
    }
    browsing = !e.altKey && !e.ctrlKey && !e.metaKey && e.key !== "Tab";
  });
  list.addEventListener("blur", () => { if (list.value === OTHER) ask(); });
  list.addEventListener("focus", () => { before = list.value; });
  list.addEventListener("change", () => {
    if (list.value !== OTHER) {
      before = list.value;
      return;
    }
    if (!browsing) ask();
  });
  function ask() {
    if (asking) return;
    asking = true;
    let typed;
    try {
      typed = (window.prompt("The level's name, as the AI worker offers it (like brain:embryo):") ?? "").trim().toLowerCase();
    } finally {
      asking = false;
    }
    browsing = false;
    if (!LEVEL_NAME.test(typed)) {
      list.value = before; // (cancelled, or no level name: a-z 0-9 _ . : + -, at most 40)
      return;
    }
    if (!allLevels().includes(typed)) {
      localStorage.setItem(KEPT, JSON.stringify([...otherLevels(), typed]));
      for (const other of document.querySelectorAll("select[data-level]")) {
        other.replaceChildren(...levelOptions(other.value));
      }
    }
    list.value = typed;
    before = typed;
  }
  return list;
}
