// The AI levels the page offers, weakest first: the engine's (engine/ai/levels.py,
// LEVEL_NAMES), which every worker of this project plays. A test keeps the two lists equal.

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
