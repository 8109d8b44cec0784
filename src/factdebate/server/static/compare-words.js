// @ts-check
/* The comparison's words, kept apart from the page so that they can be tested under Node: how far the
   methods agree, and how long a method took (or that the cache answered it all). */

/** The methods' agreement in a sentence, from the verdicts that have arrived (a run stopped, by the user or a
 * reload, is not counted as failed). @param {Array<{verdict: any, error: string, stopped?: boolean}>} all */
export function agreementText(all) {
  /** @type {Record<string, number>} */
  const labels = {};
  all.forEach(e => { if (e.verdict) { const k = e.verdict.label || "no label"; labels[k] = (labels[k] || 0) + 1; } });
  const ranked = Object.entries(labels).sort((a, b) => b[1] - a[1]);
  if (!ranked.length) return "";
  const open = all.filter(e => !e.verdict && !e.error).length;
  const stopped = all.filter(e => e.error && e.stopped).length;
  const failed = all.filter(e => e.error && !e.stopped).length;
  const [top, n] = ranked[0];
  const head = n === all.length ? "All " + n + " methods say " + top :
    ranked.length > 1 && ranked[1][1] === n ? "The methods disagree: " + ranked.map(([k, c]) => c + " say " + k).join(", ") :
    n + " of " + all.length + " methods say " + top;
  return head + (open ? " (" + open + " still checking)" : "") + (stopped ? " (" + stopped + " stopped)" : "") +
    (failed ? " (" + failed + " failed)" : "") + ".";
}

/** A method's time on its card: "cached" when every model call came from the cache (its seconds say nothing
 * of the method then), else the seconds. @param {any} usage */
export function secondsText(usage) {
  const u = usage || {};
  return u.llm_calls > 0 && u.cached_calls === u.llm_calls ? "cached" : Number(u.seconds || 0).toFixed(1);
}
