// @ts-check
/* Two or more results files opened together: the paired view of `factdebate compare` (eval/compare/__init__.py),
   computed in the browser as compare computes it (`pairedFigures`, tested against the Python in
   tests/server/page/test_page_statistics.py). Per file: accuracy with its Wilson interval, unparsed and errors
   (both counted wrong). Per pair, on the samples both files hold: who got right what the other got wrong,
   McNemar's exact p and its Holm-adjusted p over all the pairs, Cohen's kappa over the samples both files
   answered with a label (and how many), the accuracy difference with a seeded paired bootstrap. Then the
   verdict in one sentence, and the samples on which the answers differ. Files that do not hold the same
   samples are compared only when asked, on the samples they share. */
import { el, labelChip } from "./dom.js";
import { rowOutcome } from "./results-metrics.js";
import { markPairs, verdictSentence, wilson } from "./stats.js";

/** @typedef {{answer: string, gold: string | null, correct: boolean, failed: boolean, claim: string, row: any}} Outcome */
/** @typedef {{name: string, outcomes: Map<string, Outcome>}} PairedRun */

/** A row read as the results viewer reads it (results-metrics.js, the harness's conventions): its answer is
 * the verdict, UNPARSED or ERROR. @param {any} row @param {import("./results-metrics.js").Normalise} [normLabel]
 * @returns {Outcome} */
function outcomeOf(row, normLabel) {
  const o = rowOutcome(row, normLabel);
  return { answer: o.shown, gold: o.gold, correct: o.correct, failed: o.status !== "ok",
    claim: String(row.claim || row.response || ""), row };
}

/** @param {string} name @param {any[]} rows @param {import("./results-metrics.js").Normalise} [normLabel] the
 * page's (label aliases) @returns {PairedRun} */
export function pairedRun(name, rows, normLabel) {
  const outcomes = new Map();
  rows.forEach((row, i) => outcomes.set(String(row.id ?? i + 1), outcomeOf(row, normLabel)));
  return { name, outcomes };
}

/** Two-sided exact McNemar p (binomial, p = 1/2), summed in log space so large counts do not underflow.
 * @param {number} onlyA @param {number} onlyB */
export function mcnemarExact(onlyA, onlyB) {
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  let logP = -n * Math.LN2;
  let tail = 0;
  for (let k = 0; k <= Math.min(onlyA, onlyB); k++) {
    tail += Math.exp(logP);
    logP += Math.log((n - k) / (k + 1));
  }
  return Math.min(1, 2 * tail);
}

/** @param {string[]} a @param {string[]} b @returns {number | null} null where p_e is 1 (undefined) */
export function cohenKappa(a, b) {
  const n = a.length;
  if (!n) return null;
  /** @type {Map<string, number>} */ const ca = new Map();
  /** @type {Map<string, number>} */ const cb = new Map();
  let agree = 0;
  a.forEach((x, i) => {
    if (x === b[i]) agree += 1;
    ca.set(x, (ca.get(x) || 0) + 1);
    cb.set(b[i], (cb.get(b[i]) || 0) + 1);
  });
  let expected = 0;
  ca.forEach((count, label) => { expected += count * (cb.get(label) || 0); });
  expected /= n * n;
  return expected === 1 ? null : (agree / n - expected) / (1 - expected);
}

/** A small seeded generator (mulberry32): the same files always give the same interval on this page.
 * @param {number} seed */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile interval of accuracy(A) - accuracy(B), claims resampled in pairs.
 * @param {number[]} delta per claim: 1, 0 or -1 @returns {[number, number]} */
export function pairedInterval(delta, resamples = 1000, seed = 0) {
  const n = delta.length;
  if (!n) return [NaN, NaN];
  const next = random(seed);
  /** @type {number[]} */
  const means = [];
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += delta[Math.floor(next() * n)];
    means.push(sum / n);
  }
  means.sort((x, y) => x - y);
  /** @param {number} q */
  const at = q => { const pos = q * (resamples - 1); const lo = Math.floor(pos);
    return means[lo] + (means[Math.min(lo + 1, resamples - 1)] - means[lo]) * (pos - lo); };
  return [at(0.025), at(0.975)];
}

/** The ids every run holds, in the first run's order. @param {PairedRun[]} runs */
export function sharedIds(runs) {
  return [...runs[0].outcomes.keys()].filter(id => runs.every(r => r.outcomes.has(id)));
}

/** @param {number | null | undefined} value @param {number} [digits] */
const num = (value, digits = 3) => (value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits));

/**
 * Every file's accuracy and every pair's statistics on the samples ``ids``, named as compare.json names
 * them (eval/compare/__init__.py ``_run_row``, ``_pair_row``; eval/compare/verdict.py): accuracy's Wilson interval,
 * McNemar's exact p and its Holm adjustment over the pairs, whether a pair differs after it and the
 * difference it could detect, κ over the samples both files answered with a label (``kappa_n`` of them:
 * two runs failing on the same claims do not agree about them), and the verdict sentence.
 * @param {PairedRun[]} runs @param {string[]} ids
 */
export function pairedFigures(runs, ids) {
  const rows = runs.map(r => {
    const got = ids.map(id => /** @type {Outcome} */ (r.outcomes.get(id)));
    const right = got.filter(o => o.correct).length;
    return { name: r.name, n: ids.length, correct: right, accuracy: ids.length ? right / ids.length : NaN,
      ci: wilson(right, ids.length), unparsed: got.filter(o => o.answer === "UNPARSED").length,
      errors: got.filter(o => o.answer === "ERROR").length };
  });
  /** @type {Array<import("./stats.js").PairFigures & {delta: number[], kappa: number | null, kappa_n: number}>} */
  const pairs = [];
  runs.forEach((a, i) => runs.slice(i + 1).forEach(b => {
    const oa = ids.map(id => /** @type {Outcome} */ (a.outcomes.get(id)));
    const ob = ids.map(id => /** @type {Outcome} */ (b.outcomes.get(id)));
    const delta = oa.map((o, k) => Number(o.correct) - Number(ob[k].correct));
    const onlyA = delta.filter(d => d === 1).length, onlyB = delta.filter(d => d === -1).length;
    const both = oa.map((o, k) => [o, ob[k]]).filter(([x, y]) => !x.failed && !y.failed);
    pairs.push({ a: a.name, b: b.name, n: ids.length, only_a: onlyA, only_b: onlyB,
      difference: ids.length ? (onlyA - onlyB) / ids.length : NaN, mcnemar_p: mcnemarExact(onlyA, onlyB),
      kappa: cohenKappa(both.map(([x]) => x.answer), both.map(([, y]) => y.answer)), kappa_n: both.length, delta });
  }));
  markPairs(pairs);
  return { runs: rows, pairs, verdict: verdictSentence(pairs, ids.length) };
}

/** @param {string[]} heads @param {Array<Array<string | Node>>} rows */
function table(heads, rows) {
  const t = el("table", "results stacked"); // on a phone each row a block of "head: value" lines (app.css)
  const head = el("tr");
  heads.forEach(h => head.append(el("th", "", h)));
  t.append(el("thead"), el("tbody"));
  /** @type {HTMLElement} */ (t.tHead).append(head);
  rows.forEach(cells => {
    const tr = el("tr");
    cells.forEach((c, i) => { const td = el("td"); td.dataset.label = heads[i]; td.append(c); tr.append(td); });
    t.tBodies[0].append(tr);
  });
  return t;
}

/**
 * Draws the paired view of ``runs`` into ``host``. ``onOpen(run, outcome)`` shows one answer's debate.
 * @param {PairedRun[]} runs @param {HTMLElement} host @param {(run: PairedRun, o: Outcome) => void} onOpen
 * @param {boolean} [intersection] compare files that hold other samples on the ones they share
 */
export function showPaired(runs, host, onOpen, intersection = false) {
  host.replaceChildren();
  const card = el("div", "card");
  host.append(card);
  const ids = sharedIds(runs);
  const same = runs.every(r => r.outcomes.size === ids.length);
  if (!same && !intersection) {
    const line = el("p", "error", "These files do not hold the same samples (" + runs.map(r => r.name + ": " +
      r.outcomes.size).join(", ") + "; " + ids.length + " shared): a paired comparison needs the same claims. ");
    const again = el("button", "secondary", "Compare on the " + ids.length + " shared samples");
    again.type = "button";
    again.disabled = !ids.length;
    again.addEventListener("click", () => showPaired(runs, host, onOpen, true));
    card.append(el("h2", "", "Paired comparison"), line, again);
    return;
  }
  card.append(el("h2", "", "Paired comparison of " + runs.length + " files on " + ids.length + " samples"));
  if (!same) card.append(el("p", "muted", "Compared on the intersection: the " + ids.length + " samples all the files share."));
  card.append(el("p", "muted", "Unparsed answers and errors count as wrong. Accuracy: 95% Wilson score interval. " +
    "Differences: 95% paired bootstrap, 1000 resamples drawn by this page's own seeded generator (`factdebate " +
    "compare` draws with numpy's, so its intervals can differ slightly). McNemar's p adjusted for the number of " +
    "pairs by Holm's method; Cohen's κ over the samples both files answered with a label (n)."));
  const figures = pairedFigures(runs, ids);
  card.append(table(["file", "n", "correct", "accuracy [95% CI]", "unparsed", "errors"], figures.runs.map(r =>
    [r.name, String(r.n), String(r.correct), num(r.accuracy) + " [" + num(r.ci[0]) + ", " + num(r.ci[1]) + "]",
      String(r.unparsed), String(r.errors)])));
  const pairs = figures.pairs.map(p => {
    const [lo, hi] = pairedInterval(p.delta);
    return [p.a, p.b, String(p.only_a), String(p.only_b), num(p.difference) + " [" + num(lo) + ", " + num(hi) + "]",
      num(p.mcnemar_p), num(p.mcnemar_p_holm), num(p.kappa) + " (n = " + p.kappa_n + ")"];
  });
  card.append(el("h3", "", "Pairs"), table(["A", "B", "A only right", "B only right", "accuracy A − B [95% CI]",
    "McNemar exact p", "p, Holm-adjusted", "Cohen's κ (n)"], pairs));
  card.append(el("p", "paired-verdict", figures.verdict));
  const differ = ids.filter(id => new Set(runs.map(r => /** @type {Outcome} */ (r.outcomes.get(id)).answer)).size > 1);
  card.append(el("h3", "", differ.length + " sample(s) on which the answers differ"));
  if (!differ.length) return;
  card.append(table(["id", "gold", "claim", ...runs.map(r => r.name)], differ.map(id => {
    const first = /** @type {Outcome} */ (runs[0].outcomes.get(id));
    return [id, first.gold ? labelChip(first.gold) : "", first.claim, ...runs.map(r => {
      const o = /** @type {Outcome} */ (r.outcomes.get(id));
      const open = el("button", "secondary", o.answer + (o.correct ? " ✓" : " ✗"));
      open.type = "button";
      open.title = "Show this answer's debate";
      open.addEventListener("click", () => onOpen(r, o));
      return open;
    })];
  })));
}
