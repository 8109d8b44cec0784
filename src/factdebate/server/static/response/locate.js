// @ts-check
/* Finding a claim's words in the answer it was extracted from. The extractor rewrites claims to stand alone
   ("It stands in Paris." becomes "The Eiffel Tower stands in Paris."), so a claim not found word for word is
   aligned to the sentence of the answer that shares most of its content words: no checked claim, least of
   all a refuted one, is left unmarked because it was reworded. */

/** @typedef {{start: number, end: number}} Span */

/* Where `claim` appears in `text`, case and spacing aside (a final full stop optional), not overlapping
   `taken`; null if it is not there word for word. */
/** @param {string} text @param {string} claim @param {Span[]} taken @returns {Span | null} */
export function locate(text, claim, taken) {
  const words = claim.trim().replace(/[.!?]+$/, "").split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const pattern = new RegExp(words.map(w => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+") + "[.!?]?", "gi");
  let match;
  while ((match = pattern.exec(text)) !== null) {
    const start = match.index;
    const end = start + match[0].length;
    if (!taken.some(s => start < s.end && s.start < end)) return { start, end };
    pattern.lastIndex = start + 1;
  }
  return null;
}

/* Words that say nothing of what a sentence is about: a reworded claim trades "it" for a name, and keeps
   the rest. */
const STOP = new Set(("a an and are as at be been but by did do does for from had has have he her his i if in " +
  "into is it its of on or our she so than that the their them then there these they this those to was we " +
  "were which while who will with you also not").split(" "));

/** The content words of a text, lower-cased. @param {string} text @returns {Set<string>} */
export function contentWords(text) {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []).filter(w => !STOP.has(w) && (w.length > 1 || /\d/.test(w))));
}

/** The sentences of `text` with their offsets (the final punctuation included, surrounding spaces not).
 * @param {string} text @returns {Span[]} */
export function sentences(text) {
  /** @type {Span[]} */
  const found = [];
  const pattern = /[^.!?\n]+(?:[.!?]+|$)/g;
  let match;
  while ((match = pattern.exec(text)) !== null) {
    const lead = match[0].length - match[0].trimStart().length;
    const start = match.index + lead;
    const end = match.index + match[0].trimEnd().length;
    if (end > start) found.push({ start, end });
    if (match[0].length === 0) pattern.lastIndex += 1;
  }
  return found;
}

/** Least share of a sentence's (or the claim's, whichever has fewer) content words the two must have in common. */
export const MIN_OVERLAP = 0.5;

/* The sentence of `text` a reworded claim came from: the one sharing the largest share of content words
   (of the claim's or the sentence's, whichever has fewer), at least MIN_OVERLAP of them and two words (one
   when either side has only one); a sentence not in `taken` wins a tie. Null when no sentence is close. */
/** @param {string} text @param {string} claim @param {Span[]} taken
 * @returns {{start: number, end: number, score: number} | null} */
export function align(text, claim, taken) {
  const words = contentWords(claim);
  if (!words.size) return null;
  /** @type {{start: number, end: number, score: number} | null} */
  let best = null;
  let bestFree = false;
  sentences(text).forEach(span => {
    const own = contentWords(text.slice(span.start, span.end));
    if (!own.size) return;
    const shared = [...own].filter(w => words.has(w)).length;
    const fewest = Math.min(own.size, words.size);
    const score = shared / fewest;
    if (score < MIN_OVERLAP || shared < Math.min(2, fewest)) return;
    const free = !taken.some(s => span.start < s.end && s.start < span.end);
    if (!best || score > best.score || (score === best.score && free && !bestFree)) {
      best = { ...span, score };
      bestFree = free;
    }
  });
  return best;
}
