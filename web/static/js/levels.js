// The AI levels the page offers, weakest first: the engine's (engine/ai/levels.py,
// LEVEL_NAMES), which every worker of this project plays. A test keeps the two lists equal.

export const LEVELS = ["beginner", "novice", "intermediate", "advanced", "master"];
