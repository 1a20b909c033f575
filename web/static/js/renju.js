// Renju fouls for Black (double-three, double-four, overline), for drawing Black's
// forbidden points and refusing a click on one before it reaches the server. The
// server decides (it judges every move with the engine); this is the same judgement
// as engine/renju.py, line by line, so the points drawn are the ones it refuses, and
// tests/test_web_browser.py checks the two agree on random positions.
//
// Every line through a point is read as an 11-cell window (the point and five cells
// each side). What one line tells on its own (five, overline, fours, the stones that
// turn a three into a straight four) depends only on that window and is memoized.
// Only a point with two or more candidate threes needs the recursive check: a three
// counts only if some stone that makes it a straight four neither makes a five (RIF:
// a five wins, it makes no straight four) nor is itself forbidden.

const EMPTY = 0;
const BLACK = 1;
const BLOCK = 3; // a White stone or the edge, as Black sees a line
const REACH = 5;
const WIDTH = 2 * REACH + 1;
const THREE = 1;
const FOUR = 10;
const OVERLINE = 100;
const FIVE = 1000;
const DIRECTIONS = [[1, 0], [0, 1], [1, 1], [-1, 1]];
const memo = new Map();

function normalise(window) {
  const line = window.slice();
  line[REACH] = BLACK;
  for (const step of [1, -1]) {
    let blocked = false;
    for (let k = REACH + step; k >= 0 && k < WIDTH; k += step) {
      if (blocked || (line[k] !== EMPTY && line[k] !== BLACK)) {
        blocked = true;
        line[k] = BLOCK;
      }
    }
  }
  return line;
}

function run(line, at) {
  let lo = at;
  while (lo > 0 && line[lo - 1] === BLACK) lo -= 1;
  let hi = at;
  while (hi < WIDTH - 1 && line[hi + 1] === BLACK) hi += 1;
  return [lo, hi];
}

function makesFive(line, at) {
  if (at < 0 || at >= WIDTH || line[at] !== EMPTY) return false;
  line[at] = BLACK;
  const [lo, hi] = run(line, at);
  line[at] = EMPTY;
  return hi - lo === 4 && lo <= REACH && REACH <= hi;
}

function classify(window) {
  const line = normalise(window);
  let [lo, hi] = run(line, REACH);
  const length = hi - lo + 1;
  if (length === 5) return { value: FIVE, completions: [] };
  if (length > 5) return { value: OVERLINE, completions: [] };
  const fivePoints = [];
  for (let q = 1; q < WIDTH - 1; q += 1) if (makesFive(line, q)) fivePoints.push(q);
  // Two five points five apart are the two ends of one straight four.
  const fours = fivePoints.length - fivePoints.filter((q) => fivePoints.includes(q + 5)).length;
  const completions = [];
  for (let r = REACH - 3; r < REACH + 4; r += 1) {
    if (line[r] !== EMPTY) continue;
    line[r] = BLACK;
    [lo, hi] = run(line, REACH);
    if (hi - lo === 3 && lo <= r && r <= hi && makesFive(line, lo - 1) && makesFive(line, hi + 1)) {
      completions.push(r - REACH);
    }
    line[r] = EMPTY;
  }
  return { value: fours * FOUR + (completions.length ? THREE : 0), completions };
}

function lineInfo(cells, size, x, y, dx, dy) {
  const window = [];
  for (let k = -REACH; k <= REACH; k += 1) {
    const cx = x + k * dx;
    const cy = y + k * dy;
    window.push(cx < 0 || cy < 0 || cx >= size || cy >= size ? BLOCK : cells[cy * size + cx]);
  }
  const key = window.join("");
  let info = memo.get(key);
  if (info === undefined) {
    if (memo.size > 100000) memo.clear();
    info = classify(window);
    memo.set(key, info);
  }
  return info;
}

/**
 * The foul a black stone on the empty point (x, y) would be: "double-three",
 * "double-four", "overline", or null. `cells` is size*size, row by row from the top:
 * 0 empty, 1 black, 2 white. It is changed during the call and restored.
 */
export function foulAt(cells, size, x, y) {
  const found = verdict(cells, size, x, y);
  return found === "five" ? null : found;
}

// As foulAt, but "five" for a stone that makes five (legal, and not a straight four).
function verdict(cells, size, x, y) {
  let total = 0;
  const lines = [];
  for (const [dx, dy] of DIRECTIONS) {
    const info = lineInfo(cells, size, x, y, dx, dy);
    total += info.value;
    if (info.completions.length) lines.push([info.completions, dx, dy]);
  }
  if (total < 2 * THREE) return null;
  if (total >= FIVE) return "five";
  if (total >= OVERLINE) return "overline";
  if (total >= 2 * FOUR) return "double-four";
  if (total % FOUR < 2) return null;
  const index = y * size + x;
  cells[index] = BLACK;
  try {
    let real = 0;
    for (let n = 0; n < lines.length; n += 1) {
      const [completions, dx, dy] = lines[n];
      if (completions.some((off) => verdict(cells, size, x + off * dx, y + off * dy) === null)) {
        real += 1;
        if (real === 2) return "double-three";
      } else if (real + lines.length - (n + 1) < 2) {
        return null;
      }
    }
    return null;
  } finally {
    cells[index] = EMPTY;
  }
}

/** Black's forbidden points as the board draws them: a Map from "x,y" to the foul. */
export function forbiddenMap(cells, size) {
  return new Map(forbiddenPoints(cells, size).map((f) => [`${f.x},${f.y}`, f.foul]));
}

/** Every empty point where Black may not play: [{x, y, foul}], row by row from the top. */
export function forbiddenPoints(cells, size) {
  const found = [];
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      if (cells[y * size + x] !== EMPTY) continue;
      const foul = foulAt(cells, size, x, y);
      if (foul !== null) found.push({ x, y, foul });
    }
  }
  return found;
}
