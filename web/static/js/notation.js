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

/** The point the help texts give as an example: the centre ("h8" on 15x15, "c3" on 5x5,
 * where h8 is no point), as the terminal's cursor starts. */
export function examplePoint(size) {
  const mid = Math.floor(size / 2);
  return pointName(mid, mid, size);
}

/** Why a point typed on the board was not read: off this board (t19 on 19x19, whose
 * letters end at s), or not a letter and a row at all. */
export function unreadText(typed, size) {
  if (/^[a-z][0-9]{1,2}$/.test(typed)) {
    return `${typed} is not on this ${size}x${size} board (columns a-${LETTERS[size - 1]}, rows 1-${size}).`;
  }
  return `${typed} is no point of this board: type its letter and row, as ${examplePoint(size)}.`;
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
