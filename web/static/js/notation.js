// Board points as the wire writes them ("h8": column letter from the left, row number
// from the bottom) and as the board draws them (x from the left, y from the top).

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** "h8" on a board of `size` -> {x, y} (0-based, y from the top), or null. */
export function parsePoint(text, size) {
  const m = /^([a-z])([1-9][0-9]?)$/.exec(text);
  if (!m) return null;
  const x = LETTERS.indexOf(m[1]);
  const row = Number(m[2]);
  if (x >= size || row < 1 || row > size) return null;
  return { x, y: size - row };
}

export function pointName(x, y, size) {
  return `${LETTERS[x]}${size - y}`;
}

export function columnLetter(x) {
  return LETTERS[x];
}

/** The star points drawn on a board of `size`: corners' 4-4 (3-3 on small boards) and the centre. */
export function starPoints(size) {
  if (size < 9) return size % 2 ? [[(size - 1) / 2, (size - 1) / 2]] : [];
  const edge = size >= 13 ? 3 : 2;
  const far = size - 1 - edge;
  const points = [[edge, edge], [edge, far], [far, edge], [far, far]];
  if (size % 2) {
    const mid = (size - 1) / 2;
    points.push([mid, mid]);
    if (size >= 19) points.push([edge, mid], [far, mid], [mid, edge], [mid, far]);
  }
  return points;
}
