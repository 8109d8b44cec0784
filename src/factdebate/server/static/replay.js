// @ts-check
/* A trace (JSONL events from `--trace`) split into its runs, each replayed through the same view that
   draws a debate live, with its own pacing. */

/** @param {any[]} rows */
export function isTrace(rows) {
  return rows.length > 0 && rows.every(r => r && typeof r.event === "string");
}

/** One row per run of the trace, with what the results table shows and the run's events. @param {any[]} events */
export function runs(events) {
  /** @type {Map<string, any>} */
  const byRun = new Map();
  events.forEach(ev => {
    const id = ev.run || "";
    if (!byRun.has(id)) byRun.set(id, { claim: "", label: null, decided_by: "", method: "", events: [] });
    const row = byRun.get(id);
    row.events.push(ev);
    if (ev.event === "run_started") { row.claim = ev.claim; row.method = ev.method; }
    if (ev.event === "run_finished") { row.label = ev.label; row.decided_by = ev.decided_by; }
  });
  // Its rounds and steps counted from its events as the replay counts them, so that the row's wording
  // ("after 2 steps") and the replay's agree.
  [...byRun.values()].forEach(row => {
    const steps = row.events.filter((/** @type {any} */ e) => e.event === "step").map(() => ({}));
    const count = Math.max(row.events.filter((/** @type {any} */ e) => e.event === "round").length, steps.length ? 1 : 0);
    row.rounds = Array.from({ length: count }, (_, i) => ({ round: i + 1, turns: i === 0 && steps.length ? [{ steps }] : [] }));
  });
  return [...byRun.values()];
}

/**
 * Feeds the events to `view` with their own pacing (gaps shortened to at most 0.4 s).
 * @param {import("./verdict-view.js").VerdictView} view @param {any[]} events
 */
export async function play(view, events) {
  const started = events.find(e => e.event === "run_started") || {};
  view.start(started.claim || "", started.method, {});
  let rounds = 0;
  /** @type {number | null} */
  let previous = null;
  for (const ev of events) {
    if (previous !== null && ev.t) {
      const gap = Math.min(400, Math.max(0, (ev.t - previous) * 1000));
      await new Promise(done => setTimeout(done, gap));
    }
    previous = ev.t || previous;
    if (ev.event === "round") rounds += 1;
    if (view.event(ev.event, ev)) continue;
    if (ev.event === "run_finished") view.finished(ev, rounds);
  }
}
