// @ts-check
/* Finding a claim's words in the answer it was extracted from. */

/* Where `claim` appears in `text`, case and spacing aside (a final full stop optional), not overlapping
   `taken`; null if it is not there word for word. */
/** @param {string} text @param {string} claim @param {Array<{start: number, end: number}>} taken
 * @returns {{start: number, end: number} | null} */
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
