// @ts-check
/* Comparison files in the results viewer. `factdebate compare` writes compare.json (eval/compare/__init__.py): its
   statistics were computed by the harness, so the page draws them as they are and computes nothing: each
   run's accuracy and macro-F1 with their intervals, its cost (errored samples' spend included) and its
   confusion matrix, each pair's paired differences, McNemar's p with its Holm adjustment, Cohen's kappa
   over the samples both runs labelled (and how many), the cost ratio, the verdict in one sentence, the
   cost/accuracy Pareto front with the runs not distinguishable from it, the settings that differ and the
   samples the runs disagree on. A compare.json written before a field existed shows "n/a" for it. The Compare tab's own download ({"kind": "comparison"}) holds verdicts instead, which the
   Compare tab draws (results.js hands it over). The functions that read the figures use no DOM (Node tests
   them); `showCompareJson` draws them. */
import { el, labelChip } from "./dom.js";
import { dollarsText } from "./stats.js";

/** @typedef {"compare-json" | "comparison"} ComparisonKind */
/** @typedef {{heads: string[], rows: string[][]}} Table */

/** What a parsed JSON value is, if it is a comparison. @param {unknown} value @returns {ComparisonKind | null} */
export function comparisonKind(value) {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const v = /** @type {Record<string, any>} */ (value);
  if (v.kind === "comparison" && Array.isArray(v.verdicts)) return "comparison";
  if (Array.isArray(v.runs) && Array.isArray(v.pairs) && v.pareto && typeof v.pareto === "object") return "compare-json";
  return null;
}

/** @param {number | null | undefined} value @param {number} [digits] */
const num = (value, digits = 3) => (value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(digits));

/** "0.429 [0.214, 0.714]": a figure with its 95% interval. @param {number | null | undefined} value
 * @param {Array<number | null> | null | undefined} interval @param {number} [digits] */
export function withInterval(value, interval, digits = 3) {
  const ci = Array.isArray(interval) && interval.length === 2 ? " [" + num(interval[0], digits) + ", " + num(interval[1], digits) + "]" : "";
  return num(value, digits) + ci;
}

/** Model calls, tokens and, where prices were given, dollars: per claim or per correct verdict.
 * @param {Record<string, number | null>} per @param {number | null | undefined} dollars */
function spend(per, dollars) {
  if (!per) return "n/a";
  const tokens = per.prompt_tokens === null || per.prompt_tokens === undefined ? null
    : Number(per.prompt_tokens) + Number(per.completion_tokens || 0);
  const parts = [num(per.llm_calls, 2) + " calls", (tokens === null ? "n/a" : Math.round(tokens)) + " tokens"];
  if (dollars !== null && dollars !== undefined) parts.push("$" + dollarsText(dollars));
  return parts.join(" · ");
}

/** The per-run table: a row per run, as compare.md's. @param {any} data compare.json @returns {Table} */
export function runTable(data) {
  const front = new Set((data.pareto && data.pareto.front) || []);
  return {
    heads: ["run", "method", "n", "correct", "accuracy [95% CI]", "macro-F1 [95% CI]", "unparsed", "errors",
      "per claim", "per correct verdict", "errored, spend not recorded", "Pareto front"],
    rows: data.runs.map(/** @param {any} r */ r => {
      const c = r.cost || {};
      return [String(r.name), String(r.method ?? ""), String(r.n), String(r.correct),
        withInterval(r.accuracy, r.ci && r.ci.accuracy), withInterval(r.macro_f1, r.ci && r.ci.macro_f1),
        String((r.unparsed || []).length), String(Object.keys(r.errored || {}).length),
        spend(c.per_claim, c.dollars_per_claim), r.correct ? spend(c.per_correct, c.dollars_per_correct) : "n/a (none right)",
        c.errored_without_usage === undefined ? "n/a" : String(c.errored_without_usage), frontMark(data, r.name)];
    }),
  };
}

/** A run's place by the Pareto front. @param {any} data compare.json @param {string} name */
function frontMark(data, name) {
  const pareto = data.pareto || {};
  if ((pareto.front || []).includes(name)) return "on the front";
  return (pareto.not_distinguishable || []).includes(name) ? "not distinguishable from the front" : "";
}

/** κ with the number of samples it is over (both runs answered with a label). @param {any} p */
const kappaText = p => num(p.kappa) + (p.kappa_n === undefined ? "" : " (n = " + p.kappa_n + ")");

/** A's cost per claim over B's with its interval, on the cost axis. @param {any} p */
function ratioText(p) {
  const r = p.cost_ratio;
  return r && r.ratio !== null && r.ratio !== undefined ? withInterval(r.ratio, r.ci, 2) : "n/a";
}

/** The pairs table: A − B on the samples both hold. @param {any} data compare.json @returns {Table} */
export function pairTable(data) {
  return {
    heads: ["A", "B", "n", "A only right", "B only right", "accuracy A − B [95% CI]", "macro-F1 A − B [95% CI]",
      "McNemar exact p", "p, Holm-adjusted", "differs at 0.05 after Holm", "Cohen's κ (n)", "cost A / B [95% CI]"],
    rows: data.pairs.map(/** @param {any} p */ p => [String(p.a), String(p.b), String(p.n), String(p.only_a),
      String(p.only_b), withInterval(p.difference, p.ci), withInterval(p.macro_f1_difference, p.macro_f1_ci),
      num(p.mcnemar_p), num(p.mcnemar_p_holm), p.differs === undefined ? "n/a" : p.differs ? "yes" : "no",
      kappaText(p), ratioText(p)]),
  };
}

/** The answers a confusion matrix counts as failures, not labels. */
const FAILED = new Set(["UNPARSED", "ERROR"]);

/** One run's confusion matrix as compare.json holds it: gold labels (rows) by answers (columns, UNPARSED
 * and ERROR last, so failing never hides). Each cell says whether it is a hit, a miss or a failure.
 * @param {any} run a run of compare.json @returns {{heads: string[], rows: Array<{gold: string,
 * cells: Array<{count: number, kind: "hit" | "miss" | "failed"}>}>} | null} null: the run holds none */
export function confusionOf(run) {
  const c = run && run.confusion;
  if (!c || !Array.isArray(c.gold) || !Array.isArray(c.predicted) || !Array.isArray(c.matrix)) return null;
  /** @type {string[]} */
  const heads = c.predicted.map(String);
  return {
    heads,
    rows: c.gold.map(/** @param {any} g @param {number} i */ (g, i) => ({
      gold: String(g),
      cells: heads.map((p, j) => ({ count: Number((c.matrix[i] || [])[j] || 0),
        kind: /** @type {"hit" | "miss" | "failed"} */ (FAILED.has(p) ? "failed" : p === String(g) ? "hit" : "miss") })),
    })),
  };
}

/** Every run's confusion matrix, a small table each, side by side where they fit. @param {any} data */
function confusionPart(data) {
  const part = el("div", "metric-tables compare-file-confusions");
  data.runs.forEach(/** @param {any} r @param {number} i */ (r, i) => {
    const m = confusionOf(r);
    if (!m) return;
    const table = el("table", "confusion");
    table.id = "compare-file-confusion-" + i;
    table.dataset.run = String(r.name);
    table.createCaption().textContent = String(r.name) + ": gold label (rows) × answer (columns)";
    const head = el("tr");
    head.append(el("th", "corner", "gold \\ answer"));
    m.heads.forEach(p => { const th = el("th", FAILED.has(p) ? "failed-col" : "", p); th.scope = "col"; head.append(th); });
    table.createTHead().append(head);
    const body = table.createTBody();
    m.rows.forEach(row => {
      const tr = el("tr");
      const th = el("th", "", row.gold);
      th.scope = "row";
      tr.append(th);
      row.cells.forEach(c => tr.append(el("td", c.kind + (c.count ? "" : " zero"), String(c.count))));
      body.append(tr);
    });
    const box = el("div", "table-scroll");
    box.append(table);
    part.append(box);
  });
  return part;
}

/** What the cost axis of the Pareto front measures, in words. @param {string} axis */
export function axisWords(axis) {
  return { dollars: "dollars per claim", tokens: "tokens per claim", calls: "model calls per claim",
    seconds: "seconds per claim" }[axis] || axis + " per claim";
}

/** The Pareto front in a sentence. @param {any} data compare.json */
export function paretoText(data) {
  const front = (data.pareto && data.pareto.front) || [];
  const axis = axisWords(String((data.pareto && data.pareto.cost_axis) || "tokens"));
  if (!front.length) return "No run has a cost on the axis (" + axis + "), so there is no Pareto front.";
  const close = (data.pareto && data.pareto.not_distinguishable) || [];
  return "Cost axis: " + axis + ". On the front (no other run is both cheaper and more accurate): " +
    front.join(", ") + "." + (close.length ? " Not distinguishable from the front (no front run that beats it is " +
    "significantly more accurate after Holm's correction): " + close.join(", ") + "." : "");
}

/** What each interval is, as compare.json names it. @param {any} data */
export function intervalsText(data) {
  const boot = data.bootstrap || {};
  const kinds = data.intervals || {};
  const described = Object.keys(kinds).length ? Object.entries(kinds).map(([what, how]) => what.replace("_", "-") + ": " + how).join("; ")
    : "bootstrap intervals";  // a compare.json written before compare named them
  return "95% intervals (" + described + "; " + (boot.resamples ?? "?") + " resamples, seed " + (boot.seed ?? "?") + ")";
}

/** @param {Table} t @param {string} id @param {string} caption */
function tableOf(t, id, caption) {
  const table = el("table", "results compare-file-table");
  table.id = id;
  table.createCaption().textContent = caption;
  const head = el("tr");
  t.heads.forEach(h => { const th = el("th", "", h); th.scope = "col"; head.append(th); });
  table.createTHead().append(head);
  const body = table.createTBody();
  t.rows.forEach(cells => {
    const tr = el("tr");
    cells.forEach(c => tr.append(el("td", "", c)));
    body.append(tr);
  });
  const box = el("div", "table-scroll");
  box.append(table);
  return box;
}

/** The settings that differ between the runs, a row each with every run's value; the shared ones folded.
 * @param {any} data */
function settingsPart(data) {
  const s = data.settings || {};
  const part = el("div");
  const differ = Object.entries(s.differ || {});
  const names = data.runs.map(/** @param {any} r */ r => String(r.name));
  /** @param {unknown} v */
  const shown = v => (typeof v === "string" ? v : JSON.stringify(v) ?? "—");
  if (differ.length) {
    part.append(tableOf({ heads: ["setting", ...names],
      rows: differ.map(([key, values]) => [key, ...names.map(/** @param {string} n */ n => shown(/** @type {any} */ (values)[n]))]) },
    "compare-file-settings", "Settings that differ between the runs"));
  } else part.append(el("p", "muted", "Every run has the same settings outside its method's own."));
  const same = Object.entries(s.same || {});
  if (same.length) {
    const fold = el("details");
    fold.append(el("summary", "", same.length + " settings the runs share"));
    const list = el("dl", "compare-file-same");
    same.forEach(([key, value]) => list.append(el("dt", "", key), el("dd", "", shown(value))));
    fold.append(list);
    part.append(fold);
  }
  return part;
}

/** The samples the runs answer differently: gold, claim, every run's answer (✓ right, ✗ wrong). @param {any} data */
function disagreementsPart(data) {
  const rows = data.disagreements || [];
  const names = data.runs.map(/** @param {any} r */ r => String(r.name));
  const part = el("div");
  part.append(el("h3", "", rows.length + (rows.length === 1 ? " sample" : " samples") + " on which the answers differ"));
  if (!rows.length) return part;
  const table = el("table", "results compare-file-table");
  table.id = "compare-file-disagreements";
  const head = el("tr");
  ["id", "gold", "claim", ...names].forEach(h => { const th = el("th", "", h); th.scope = "col"; head.append(th); });
  table.createTHead().append(head);
  const body = table.createTBody();
  rows.forEach(/** @param {any} d */ d => {
    const tr = el("tr");
    const gold = el("td");
    if (d.gold) gold.append(labelChip(d.gold));
    tr.append(el("td", "", d.id), gold, el("td", "claim-cell", d.claim || ""));
    names.forEach(/** @param {string} n */ n => {
      const a = (d.answers || {})[n];
      const td = el("td", a ? (a.correct ? "mark correct" : "mark wrong") : "muted", a ? a.answer + (a.correct ? " ✓" : " ✗") : "—");
      if (a && a.record) td.title = "its record: " + a.record + " (relative to the comparison's folder)";
      tr.append(td);
    });
    body.append(tr);
  });
  const box = el("div", "table-scroll");
  box.append(table);
  part.append(box);
  return part;
}

/** Draws compare.json into ``host``. @param {any} data @param {HTMLElement} host */
export function showCompareJson(data, host) {
  const card = el("div", "card compare-file");
  card.id = "compare-file";
  const samples = data.samples || {};
  card.append(el("h2", "", "Comparison of " + data.runs.length + " runs" + (data.dataset ? " on " + data.dataset : "") +
    (samples.n !== undefined ? " (" + samples.n + " samples)" : "")));
  card.append(el("p", "muted", (samples.note ? samples.note + ". " : "") + (samples.denominator ? samples.denominator + ". " : "") +
    "Figures as `factdebate compare` computed them: unparsed answers and errors count as wrong; " + intervalsText(data) +
    ". Costs include what errored samples spent before failing, where their records carry it."));
  if (data.verdict) card.append(el("p", "compare-file-verdict", String(data.verdict)));
  card.append(tableOf(runTable(data), "compare-file-runs", "Runs"));
  card.append(el("h3", "", "Confusion matrices"), confusionPart(data));
  card.append(el("h3", "", "Pareto front"), el("p", "compare-file-pareto", paretoText(data)));
  card.append(el("h3", "", "Pairs"), tableOf(pairTable(data), "compare-file-pairs", "Paired differences, A − B"));
  card.append(el("h3", "", "Settings"), settingsPart(data));
  card.append(disagreementsPart(data));
  const nulls = Object.entries(data.null_reasons || {});
  if (nulls.length) card.append(el("p", "muted", "n/a: " + nulls.map(([k, why]) => k + " (" + why + ")").join("; ")));
  host.replaceChildren(card);
}
