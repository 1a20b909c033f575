// What a display name and a chat line may hold: the server's rules (protocol.md,
// `hello` and `chat`; protocol/text.py), so that the page says why before sending
// rather than show the server's refusal. A browser test checks both give the same
// verdicts. Lengths are counted in code points, as the server counts them (an input's
// maxlength counts UTF-16 units: an emoji is two).

export const NAME_MAX = 24;
export const CHAT_MAX = 300;
const MAX_MARKS = 3;
// How the terminal client's events and questions begin: a name that did made its chat
// lines read as the server's.
const MARKER_STARTS = new Set(["• ", "▶ ", "* ", "> "]);
// What the clients write a player's part in after a name ("(you)", "[away]"): judged on
// the name's NFKC form, so full-width and small brackets count too.
const BRACKETS = /[()[\]]/u;
const BLANK_FILLERS = new Set(["\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"]);
// Marks that draw as nothing on a letter; variation selectors only vary a symbol or an
// ideograph (the characters VARIED matches) and draw as nothing after anything else.
const SILENT_MARKS = new Set(["\u034f", "\u17b4", "\u17b5", "\u180b", "\u180c", "\u180d", "\u180f"]);
const VARIATION_SELECTOR = /[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;
const VARIED = /[\p{So}\p{Sm}\p{Sk}\p{Nd}\p{Po}\p{Lo}]/u;
const REORDERING = /[\u202a-\u202e\u2066-\u2069]/u;
const NEVER = /[\p{Cc}\p{Cs}\p{Co}\p{Zl}\p{Zp}]/u;
const MARK = /\p{M}/u;
const EMOJI_TAILS = new Set(["\ufe0f", "\u{1f3fb}", "\u{1f3fc}", "\u{1f3fd}", "\u{1f3fe}", "\u{1f3ff}"]);
const ZWJ = "\u200d";

const hex = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
const blank = (c) => BLANK_FILLERS.has(c) || /[\p{Z}\p{Cc}\p{Cf}\p{M}]/u.test(c);
const isSymbol = (c) => /\p{So}/u.test(c);

/** The form the server keeps a name in (NFC). */
export function normalName(name) {
  return name.normalize("NFC");
}

/** Why the server would refuse `name`, in words, or null. */
export function nameProblem(name) {
  const chars = [...normalName(name)];
  if (!chars.length || chars.every(blank)) return "A name needs a character one can see.";
  if (chars.length > NAME_MAX) return `A name is at most ${NAME_MAX} characters (emoji and accents may count as several).`;
  if (chars[0] === " " || chars[chars.length - 1] === " ") return "A name may not start or end with a space.";
  if (BRACKETS.test(chars.join("").normalize("NFKC"))) return "A name may not hold brackets: the clients mark players with them, as (you).";
  const start = chars.slice(0, 2).join("");
  if (MARKER_STARTS.has(start)) return `A name may not start with '${start}': the terminal client marks events so.`;
  let marks = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === ZWJ && i > 0 && i < chars.length - 1 && isSymbol(chars[i + 1])
        && (isSymbol(chars[i - 1]) || EMOJI_TAILS.has(chars[i - 1]))) {
      marks = 0;
      continue;
    }
    if (NEVER.test(c) || /\p{Cf}/u.test(c) || (/\p{Zs}/u.test(c) && c !== " ")) {
      return `A name may not hold invisible or control characters (zero-width joiners, direction marks, special spaces: ${hex(c)}).`;
    }
    if (BLANK_FILLERS.has(c) || SILENT_MARKS.has(c)
        || (VARIATION_SELECTOR.test(c) && !(i > 0 && VARIED.test(chars[i - 1])))) {
      return `A name may not hold characters that show as blank (${hex(c)}).`;
    }
    if (MARK.test(c)) {
      marks += 1;
      if (i === 0) return "A name may not start with an accent on nothing.";
      if (marks > MAX_MARKS) return `A name may carry at most ${MAX_MARKS} accents on one character.`;
    } else {
      marks = 0;
    }
  }
  return null;
}

/** Why the server would refuse `text` as a chat line, in words, or null. */
export function chatProblem(text) {
  const chars = [...text];
  if (chars.length > CHAT_MAX) return `A chat line is at most ${CHAT_MAX} characters.`;
  for (const c of chars) {
    if (REORDERING.test(c)) return `A chat line may not hold direction controls (${hex(c)}).`;
    if (NEVER.test(c)) return `A chat line is one line, without control characters (${hex(c)}).`;
  }
  if (chars.every(blank)) return "A chat line needs a character one can see.";
  return null;
}
