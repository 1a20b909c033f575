// What each rule, opening, renju foul and hint's reason means, in words for a player
// choosing or meeting one: the terminal client's (client/state/words.py: RULE_WORDS,
// OPENING_WORDS, FOUL_WORDS, HINT_REASONS), which a test keeps these equal to.

// The game's rules for one who has never played, a paragraph each: the terminal's
// (client/state/words.py, HOW_TO_PLAY), which a test keeps these equal to.
export const HOW_TO_PLAY = [
  "Two players take turns putting one stone of their colour on an empty point, where two lines cross; Black plays first. A stone stays where it is put: none is moved or taken.",
  "The first to have five of their stones in a row, with no gap, across, up and down or on a diagonal, wins. A full board with no five is a draw.",
  "Freestyle: five or more in a row wins. Standard: exactly five wins (six or more does not). Renju: Black may not make six or more, nor two threes or two fours with one stone (those points are marked as forbidden); White wins with five or more.",
  "Swap2, an opening that evens the game out: the first player places three stones; the other chooses a colour, or places two more and lets the first choose.",
];

const RULE_WORDS = {
  freestyle: "five or more wins",
  standard: "exactly five wins",
  renju: "Black has forbidden points",
};

const OPENING_WORDS = {
  free: "Black plays first",
  swap2: "Black's seat places 3, the other picks a colour or places 2 more",
};

const FOUL_WORDS = {
  "double-three": "two open threes at once",
  "double-four": "two fours at once",
  overline: "six or more in a row",
};

const HINT_REASONS = {
  win: "it wins by force",
  block: "it stops a threat",
  threat: "it makes a threat",
  positional: "a good shape",
  lost: "the position is lost: it holds out longest",
};

const label = (name, words) => `${name[0].toUpperCase()}${name.slice(1)} (${words})`;

/** [value, label] pairs for a form's list: "Renju (Black has forbidden points)". */
export const RULES = Object.entries(RULE_WORDS).map(([rule, words]) => [rule, label(rule, words)]);
export const OPENINGS = Object.entries(OPENING_WORDS).map(([o, words]) => [o, label(o, words)]);

/** "i8 is forbidden for Black in renju (double-three: two open threes at once)." */
export function foulText(point, foul) {
  const words = FOUL_WORDS[foul];
  return `${point} is forbidden for Black in renju (${foul}${words ? `: ${words}` : ""}).`;
}

/** "Hint: i9 (it stops a threat)." (a reason the page has no words for is said as sent). */
export function hintText(point, reason) {
  return `Hint: ${point} (${HINT_REASONS[reason] ?? reason}).`;
}
