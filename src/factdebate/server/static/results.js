// @ts-check
/* The results viewer: a results JSONL (verify --output, an evaluation, a batch), one saved verdict, or a
   trace (replayed as it was drawn live). Files are read in the browser; only rows of an older schema are
   sent to the server, which owns their upgrade. A file with gold labels is analysed as the evaluation
   harness does (results-metrics.js): accuracy, a confusion matrix whose cells open their rows, per-label
   precision, recall and F1, and the cost of each row. */
import { errorText, headers } from "./api.js";
import { comparisonKind, showCompareJson } from "./compare-file.js";
import { byId, el, input, labelChip } from "./dom.js";
import * as history from "./history.js";
import { pairedRun, showPaired } from "./paired.js";
import { isTrace, play, runs } from "./replay.js";
import { showSavedResponse } from "./response/response-form.js";
import { ERROR, UNPARSED, callsOf, cost, datasetLabels, metrics, rowOutcome, secondsOf, sortedBy, tokensOf } from "./results-metrics.js";
import { VerdictView } from "./verdict-view.js";
import { describe, normLabel, upgraded, viewOf } from "./views.js";

/** @typedef {import("./results-metrics.js").RowOutcome} RowOutcome */
/** @typedef {{row: any, index: number, outcome: RowOutcome}} Item */
/** @typedef {"ascending" | "descending"} Direction */
/** @typedef {{key: string, title: string, numeric?: boolean, value: (item: Item) => string | number | null}} Column */

const viewer = new VerdictView(byId("results-debate"));
/** @type {Item[]} */
let items = [];
let filter = "all";
/** @type {{gold: string, shown: string} | null} a confusion cell whose rows are shown */
let cell = null;
/** @type {{key: string, direction: Direction} | null} */
let sort = null;
let openedIndex = -1; // the row whose debate is shown, kept marked through sorting and filtering

const RESULT_ORDER = { correct: 0, wrong: 1, error: 2, unknown: 3 };
const FILTER_WORDS = { correct: "Correct", wrong: "Wrong", error: "Errors" };

/** @param {Item} item @returns {"correct" | "wrong" | "error" | "unknown"} */
function result(item) {
  const o = item.outcome;
  if (o.status === "error") return "error";
  if (o.gold === null) return "unknown";
  return o.correct ? "correct" : "wrong";
}

/** @param {any} row a response's row shows its answer */
const claimOf = row => String(row.claim || row.response || "");

/** How the verdict was reached, in its method's words (the error, for a row that failed). @param {any} row */
function howOf(row) {
  if (row.error) return String(row.error);
  return row.decided_by ? describe(viewOf(row.method), row) : "";
}

/** @param {(u: import("./results-metrics.js").Usage) => number} pick @returns {(item: Item) => number | null} */
const usageColumn = pick => item => (item.outcome.usage ? pick(item.outcome.usage) : null);

/** @type {Column[]} */
const COLUMNS = [
  { key: "n", title: "#", numeric: true, value: item => item.index + 1 },
  { key: "claim", title: "Claim", value: item => claimOf(item.row) },
  { key: "gold", title: "Gold", value: item => item.outcome.gold },
  { key: "verdict", title: "Verdict", value: item => item.outcome.shown },
  { key: "how", title: "How", value: item => howOf(item.row) },
  { key: "method", title: "Method", value: item => item.row.method ? String(item.row.method) : null },
  { key: "calls", title: "Model calls", numeric: true, value: usageColumn(callsOf) },
  { key: "tokens", title: "Tokens", numeric: true, value: usageColumn(tokensOf) },
  { key: "seconds", title: "Seconds", numeric: true, value: usageColumn(secondsOf) },
  { key: "result", title: "Result", value: item => RESULT_ORDER[result(item)] },
];

/** @param {string} text */
function parseJsonl(text) {
  /** @type {any[]} */
  const out = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try { out.push(JSON.parse(line)); } catch (_) { throw new Error("line " + (i + 1) + " is not valid JSON"); }
  });
  return out;
}

/** @param {string} message */
function showError(message) { const p = byId("results-error"); p.textContent = message; p.hidden = false; }

/** @param {number} value @param {number} [digits] */
const num = (value, digits = 3) => (Number.isNaN(value) ? "n/a" : value.toFixed(digits));
/** @param {number} n @param {string} one @param {string} [many] */
const plural = (n, one, many = one + "s") => n + " " + (n === 1 ? one : many);
/** The matrix's name for a failed prediction. @param {string} shown */
const shownWord = shown => (shown === UNPARSED ? "unparsed" : shown === ERROR ? "error" : shown);
/** @type {Record<string, string>} what a phone's narrow matrix shows instead */
const SHORT = { "SUPPORTS": "SUP", "REFUTES": "REF", "NOT ENOUGH INFO": "NEI", "CONFLICTING EVIDENCE/CHERRYPICKING": "CON", [UNPARSED]: "unp.", [ERROR]: "err." };

/** A label in the metric tables: in full, or shortened on a phone (app.css); read out in full either way.
 * @template {HTMLElement} T @param {T} node @param {string} name a label, UNPARSED or ERROR @returns {T} */
function named(node, name) {
  const word = shownWord(name);
  return twoWidths(node, word, SHORT[name] || word.slice(0, 4));
}

/** @template {HTMLElement} T @param {T} node @param {string} long @param {string} short @returns {T} */
function twoWidths(node, long, short) {
  const brief = el("span", "short", short);
  brief.setAttribute("aria-hidden", "true");
  brief.title = long;
  node.replaceChildren(el("span", "long", long), brief);
  return node;
}

/** Where the labels macro-F1 averages over come from, in words. @param {import("./results-metrics.js").Metrics} m */
const labelWords = m => (m.labelsFrom === "dataset" ? "the dataset's " + plural(m.labels.length, "label")
  : "the " + plural(m.labels.length, "label") + " seen as gold or verdict");

/** @param {any[]} parsed @param {string[] | null} [labels] the dataset's, from its run.json or summary.json */
function showResults(parsed, labels = null) {
  byId("results-error").hidden = true;
  items = parsed.filter(r => r && typeof r === "object").map((row, index) => ({ row, index, outcome: rowOutcome(row, normLabel) }));
  cell = null;
  sort = null;
  openedIndex = -1;
  byId("results-panel").hidden = false;
  byId("results-response").hidden = true;
  byId("results-opened").hidden = true;
  viewer.clear();
  const outcomes = items.map(i => i.outcome);
  const m = metrics(outcomes, labels);
  const summary = byId("results-summary");
  summary.replaceChildren(el("strong", "", plural(items.length, "claim")));
  if (m.n) {
    const [lo, hi] = m.accuracyCi;
    summary.append(el("span", "accuracy-line", " · accuracy " + (100 * m.accuracy).toFixed(1) + "% [" + (100 * lo).toFixed(1) +
      ", " + (100 * hi).toFixed(1) + "] (" + m.correct + "/" + m.n + ", 95% Wilson interval)"),
    el("span", "", " · macro-F1 " + num(m.macroF1)));
    if (m.n < items.length) summary.append(el("span", "muted", " · " + (items.length - m.n) + " without a gold label, not counted"));
    if (m.labelsFrom === "seen") {  // the figure can differ from the summary's: say so where it is read
      summary.append(el("p", "muted labels-note", "Macro-F1 averages over " + labelWords(m) + ": this file does not " +
        "name its dataset's labels. Open it together with its run.json or summary.json to average over the dataset's " +
        "labels, as the evaluation's summary does."));
    }
  } else summary.append(el("span", "muted", " · no gold labels (gold / label_gold) to compare with"));
  const unparsed = outcomes.filter(o => o.status === "unparsed").length;
  const errors = outcomes.filter(o => o.status === "error").length;
  if (unparsed) summary.append(el("span", "", " · " + unparsed + " unparsed"));
  if (errors) summary.append(el("span", "", " · " + plural(errors, "error")));
  drawMetrics(m, cost(outcomes));
  drawHead();
  drawRows();
}

/** The confusion matrix, the per-label table and the cost line.
 * @param {import("./results-metrics.js").Metrics} m @param {ReturnType<typeof cost>} spent */
function drawMetrics(m, spent) {
  const host = byId("results-metrics");
  host.replaceChildren();
  if (m.n) {
    const grid = el("div", "metric-tables");
    // Each table scrolls sideways on its own where the screen is narrower (a phone), never the page.
    [confusionTable(m), perLabelTable(m)].forEach(t => { const box = el("div", "table-scroll"); box.append(t); grid.append(box); });
    host.append(grid);
  }
  if (spent.withUsage) {
    const c = spent.calls, t = spent.tokens, s = spent.seconds;
    host.append(el("p", "cost-line muted", "Cost per claim (mean of the " + spent.withUsage + " rows with recorded usage" +
      (spent.erroredIncluded ? ", the spend of " + plural(spent.erroredIncluded, "errored row") + " before it failed included" : "") +
      "): " + num(c.mean, 1) + " model calls, " + Math.round(t.mean) + " tokens, " + num(s.mean, 1) + " s · in all: " +
      plural(c.total, "model call") + ", " + plural(t.total, "token") + ", " + num(s.total, 1) + " s." +
      (spent.erroredWithout ? " " + plural(spent.erroredWithout, "errored row") + " recorded no usage: not counted." : "")));
  }
}

/** Rows: gold labels; columns: the verdicts, then unparsed and error, so failing never hides. A cell's
 * count shows its rows. @param {import("./results-metrics.js").Metrics} m */
function confusionTable(m) {
  const { gold, predicted, matrix } = m.confusion;
  const t = el("table", "confusion");
  t.id = "results-confusion";
  t.createCaption().textContent = "Confusion matrix: gold label (rows) × verdict (columns)";
  const head = el("tr");
  head.append(el("th", "corner", "gold \\ verdict"));
  predicted.forEach(p => {
    const th = named(el("th", p === UNPARSED || p === ERROR ? "failed-col" : ""), p);
    th.scope = "col";
    head.append(th);
  });
  const thead = t.createTHead();
  thead.append(head);
  const body = t.createTBody();
  gold.forEach((g, r) => {
    const tr = el("tr");
    const th = named(el("th"), g);
    th.scope = "row";
    tr.append(th);
    predicted.forEach((p, c) => {
      const count = matrix[r][c];
      const kind = p === g ? "hit" : p === UNPARSED || p === ERROR ? "failed" : "miss";
      const td = el("td", kind + (count ? "" : " zero"));
      td.dataset.gold = g;
      td.dataset.verdict = shownWord(p);
      if (count) {
        const open = el("button", "cell-btn", count);
        open.type = "button";
        open.setAttribute("aria-label", plural(count, "row") + " with gold " + g + " and verdict " + shownWord(p) + ": show them");
        open.addEventListener("click", () => { cell = { gold: g, shown: p }; drawRows(); });
        td.append(open);
      } else td.textContent = "0";
      tr.append(td);
    });
    body.append(tr);
  });
  return t;
}

/** @param {import("./results-metrics.js").Metrics} m */
function perLabelTable(m) {
  const t = el("table", "per-label");
  t.id = "results-per-label";
  t.createCaption().textContent = "Per label (unparsed and errors count as wrong)";
  const head = el("tr");
  [["label", "label"], ["precision", "P"], ["recall", "R"], ["F1", "F1"], ["gold", "gold"], ["predicted", "pred."]].forEach(([long, short]) => {
    const th = twoWidths(el("th"), long, short);
    th.scope = "col";
    head.append(th);
  });
  t.createTHead().append(head);
  const body = t.createTBody();
  m.labels.forEach(label => {
    const p = m.perClass[label];
    const tr = el("tr");
    tr.dataset.label = label;
    const th = el("th", "");
    th.scope = "row";
    th.append(named(labelChip(label), label));
    tr.append(th, el("td", "num", num(p.precision)), el("td", "num", num(p.recall)), el("td", "num", num(p.f1)),
      el("td", "num", p.support), el("td", "num", p.predicted));
    body.append(tr);
  });
  const foot = t.createTFoot();
  const macro = el("tr");
  const mth = el("th", "", "macro-F1");
  mth.scope = "row";
  macro.append(mth, el("td", "num macro-f1", num(m.macroF1)), el("td", "muted", "mean F1 of " + labelWords(m)));
  /** @type {HTMLElement} */ (macro.lastElementChild).setAttribute("colspan", "4");
  const acc = el("tr");
  const ath = el("th", "", "accuracy");
  ath.scope = "row";
  acc.append(ath, el("td", "num accuracy", num(m.accuracy)), el("td", "muted", m.correct + " of " + m.n + " right, 95% Wilson [" +
    num(m.accuracyCi[0]) + ", " + num(m.accuracyCi[1]) + "]"));
  /** @type {HTMLElement} */ (acc.lastElementChild).setAttribute("colspan", "4");
  foot.append(macro, acc);
  return t;
}

/** Column headers are buttons: a click (or Enter / Space) sorts by the column, again reverses it. */
function drawHead() {
  const tr = el("tr");
  COLUMNS.forEach(column => {
    const th = el("th", (column.numeric ? "num " : "") + "col-" + column.key);
    th.scope = "col";
    th.dataset.key = column.key;
    if (sort && sort.key === column.key) th.setAttribute("aria-sort", sort.direction);
    const button = el("button", "sort-btn", column.title);
    button.type = "button";
    button.append(el("span", "sort-mark", sort && sort.key === column.key ? (sort.direction === "ascending" ? " ▲" : " ▼") : ""));
    /** @type {HTMLElement} */ (button.lastElementChild).setAttribute("aria-hidden", "true");
    button.addEventListener("click", () => {
      sort = { key: column.key, direction: sort && sort.key === column.key && sort.direction === "ascending" ? "descending" : "ascending" };
      drawHead();
      drawRows();
      /** @type {HTMLElement | null} */ (byId("results-head").querySelector("th[data-key=" + column.key + "] button"))?.focus();
    });
    th.append(button);
    tr.append(th);
  });
  byId("results-head").replaceChildren(tr);
}

/** @param {number | null} value @param {number} digits */
const usageCell = (value, digits) => el("td", "num", value === null ? "—" : value.toFixed(digits));

function drawRows() {
  const body = byId("results-body");
  body.replaceChildren();
  const query = input("results-search").value.trim().toLowerCase();
  let shown = items.filter(item => (filter === "all" || result(item) === filter) &&
    (!cell || (item.outcome.gold === cell.gold && item.outcome.shown === cell.shown)) &&
    (!query || claimOf(item.row).toLowerCase().includes(query)));
  const column = sort && COLUMNS.find(c => c.key === /** @type {{key: string}} */ (sort).key);
  if (sort && column) shown = sortedBy(shown, column.value, sort.direction);
  shown.forEach(item => body.append(rowOf(item)));
  drawCellChip();
  const empty = byId("results-empty");
  empty.hidden = shown.length > 0 || items.length === 0;
  if (!empty.hidden) {
    const why = [];
    if (filter !== "all") why.push("the filter “" + FILTER_WORDS[/** @type {"correct" | "wrong" | "error"} */ (filter)] + "”");
    if (cell) why.push("gold " + cell.gold + " × verdict " + shownWord(cell.shown));
    if (query) why.push("claims containing “" + query + "”");
    empty.replaceChildren(el("span", "", "No rows match " + why.join(" and ") + " (of " + plural(items.length, "row") + "). "));
    const reset = el("button", "secondary", "Show all rows");
    reset.type = "button";
    reset.addEventListener("click", showAll);
    empty.append(reset);
  }
}

function showAll() {
  cell = null;
  input("results-search").value = "";
  document.querySelectorAll(".chip-btn").forEach(b => b.classList.toggle("active", /** @type {HTMLElement} */ (b).dataset.filter === "all"));
  filter = "all";
  drawRows();
}

/** The confusion cell whose rows are shown, with a way back to all of them. */
function drawCellChip() {
  const chip = byId("results-cell");
  chip.hidden = !cell;
  chip.replaceChildren();
  if (!cell) return;
  const clear = el("button", "chip-btn active", "gold " + cell.gold + " × verdict " + shownWord(cell.shown) + " ✕");
  clear.type = "button";
  clear.setAttribute("aria-label", "Stop showing only gold " + cell.gold + " and verdict " + shownWord(cell.shown));
  clear.addEventListener("click", () => { cell = null; drawRows(); });
  chip.append(clear);
}

/** A row: reachable with Tab, opened by a click, Enter or Space. @param {Item} item */
function rowOf(item) {
  const { row, outcome } = item;
  const kind = result(item);
  const tr = el("tr", "row-" + kind);
  tr.tabIndex = 0;
  tr.dataset.index = String(item.index + 1);
  tr.title = "Open this row's debate (Enter)";
  if (item.index === openedIndex) { tr.classList.add("selected"); tr.setAttribute("aria-current", "true"); }
  const gold = el("td");
  if (outcome.gold !== null) gold.append(labelChip(outcome.gold));
  const pred = el("td");
  pred.append(outcome.status === "error" ? el("span", "label failed", "error") : labelChip(outcome.status === "ok" ? outcome.shown : null));
  const mark = { correct: "✓", wrong: "✗", error: "!", unknown: "" }[kind];
  const u = outcome.usage;
  tr.append(el("td", "num muted", item.index + 1), el("td", "claim-cell", claimOf(row)), gold, pred,
    el("td", "muted col-how", howOf(row)), el("td", "muted", row.method || ""),
    usageCell(u && callsOf(u), 0), usageCell(u && tokensOf(u), 0), usageCell(u && secondsOf(u), 1),
    el("td", "mark " + kind, mark));
  tr.addEventListener("click", () => open(item, tr));
  tr.addEventListener("keydown", e => {
    if (e.target !== tr || (e.key !== "Enter" && e.key !== " ")) return;
    e.preventDefault(); // Space would scroll the page
    open(item, tr);
  });
  return tr;
}

/** Draws a row's debate below the table and brings it into view, clear of the sticky header (html's
 * scroll-padding-top, sticky.js); focus goes to its "back to the row" button. @param {Item} item @param {HTMLElement} tr */
function open(item, tr) {
  const body = byId("results-body");
  body.querySelectorAll("tr.selected").forEach(t => { t.classList.remove("selected"); t.removeAttribute("aria-current"); });
  tr.classList.add("selected");
  tr.setAttribute("aria-current", "true");
  openedIndex = item.index;
  const bar = byId("results-opened");
  bar.hidden = false;
  bar.replaceChildren(el("span", "muted", "Row " + (item.index + 1) + ": "), el("span", "opened-claim", claimOf(item.row)));
  const back = el("button", "secondary", "Back to row " + (item.index + 1));
  back.type = "button";
  back.addEventListener("click", () => {
    const find = () => /** @type {HTMLElement | null} */ (body.querySelector("tr[data-index='" + (item.index + 1) + "']"));
    if (!find()) showAll(); // filtered away since: every row again, this one among them
    const again = find();
    if (!again) return;
    again.scrollIntoView({ block: "start" });
    again.focus({ preventScroll: true });
  });
  bar.append(back);
  if (item.row.kind === "response") { viewer.clear(); openResponse(item.row); }
  else {
    byId("results-response").hidden = true;
    if (item.row.events) play(viewer, item.row.events); else viewer.render(item.row);
  }
  bar.scrollIntoView({ behavior: "smooth", block: "start" });
  back.focus({ preventScroll: true });
}

/** A response's verdict is drawn by the response view, below the results. @param {any} verdict */
function openResponse(verdict) {
  byId("results-response").hidden = false;
  showSavedResponse(verdict, byId("results-response"));
}

/** What the viewer opens, for the message on a file it cannot read. */
const READS = "results rows (JSONL: verify --output, an evaluation's results.jsonl, a batch), a claim's verdict " +
  "(verify --json), a response's verdict (check-response --json), a trace (--trace), a comparison " +
  "(compare.json from factdebate compare, or the Compare tab's Download JSON)";

/** A comparison: compare.json is drawn here; the Compare tab's download is drawn by the Compare tab, as it
 * was when it ran. @param {"compare-json" | "comparison"} kind @param {any} data */
async function openComparison(kind, data) {
  byId("results-error").hidden = true;
  byId("results-panel").hidden = true;
  byId("results-response").hidden = true;
  const host = byId("results-paired");
  if (kind === "compare-json") { host.hidden = false; showCompareJson(data, host); return; }
  const verdicts = data.verdicts.filter(/** @param {any} v */ v => v && typeof v === "object");
  if (!verdicts.length || !verdicts.every(/** @param {any} v */ v => typeof v.method === "string" && typeof v.claim === "string")) {
    throw new Error("This comparison holds no verdicts with a method and a claim each: it cannot be drawn.");
  }
  history.open({ kind: "compare", claim: String(data.claim ?? verdicts[0].claim), label: null, decided_by: "",
    verdicts: await upgraded(verdicts) });
}

/** A results file, one saved verdict (pretty-printed or not), a trace, or a comparison. @param {string} text */
async function openFile(text) {
  /** @type {any[]} */
  let parsed;
  try { parsed = [JSON.parse(text)]; } catch (_) { parsed = parseJsonl(text); }
  const compared = parsed.length === 1 ? comparisonKind(parsed[0]) : null;
  if (compared) { await openComparison(compared, parsed[0]); return; }
  byId("results-paired").hidden = true;
  if (isTrace(parsed)) parsed = runs(parsed);
  /** @param {any} r */
  const isResponse = r => r && typeof r === "object" && r.kind === "response";
  if (!text.trim()) throw new Error("The file is empty: it holds no result to show.");
  if (parsed.length === 1 && datasetLabels(parsed[0])) {
    throw new Error("This is an evaluation's run.json or summary.json: it holds no rows. Open it together with the " +
      "run's results.jsonl (select both) to see the results with the dataset's labels.");
  }
  if (!parsed.some(r => isResponse(r) || (r && typeof r === "object" && typeof r.claim === "string"))) {
    const keys = parsed.length === 1 && parsed[0] && typeof parsed[0] === "object" && !Array.isArray(parsed[0])
      ? " (its keys: " + Object.keys(parsed[0]).slice(0, 8).join(", ") + ")" : "";
    throw new Error("The viewer does not know this file's shape" + keys + ": it opens " + READS + ".");
  }
  parsed = await upgraded(parsed);
  if (parsed.length === 1 && isResponse(parsed[0])) {
    byId("results-panel").hidden = true;
    byId("results-error").hidden = true;
    openResponse(parsed[0]);
    return;
  }
  showResults(parsed);
}

/** Two or more files: a results file with its run.json or summary.json (the dataset's labels, which
 * macro-F1 averages over), or two or more results files, the paired view; an answer's button shows its
 * file and its debate. @param {File[]} files */
async function openFiles(files) {
  const opened = [];
  /** @type {any[][]} */
  const rowSets = [];
  /** @type {string[] | null} */
  let labels = null;
  const paired = "Two or more files open as one paired comparison of results files (one method each, the same samples): ";
  for (const file of files) {
    const text = await file.text();
    let whole = null;
    try { whole = JSON.parse(text); } catch (_) { /* JSONL: read below */ }
    if (comparisonKind(whole)) {  // a comparison already: it is drawn on its own, not paired with others
      throw new Error(paired + file.name + " is a comparison itself (compare.json, or the Compare tab's download): " +
        "open it alone to see it drawn.");
    }
    const given = datasetLabels(whole);
    if (given) { labels = given; continue; }  // run.json or summary.json: it names the dataset's labels
    let parsed;
    try { parsed = parseJsonl(text); } catch (err) {
      throw new Error(paired + file.name + ": " + /** @type {Error} */ (err).message);
    }
    if (!parsed.some(r => r && typeof r === "object" && typeof r.claim === "string")) {
      throw new Error(paired + file.name + " holds no results rows (JSONL with a claim each).");
    }
    const rows = await upgraded(parsed.filter(r => r && typeof r === "object"));
    rowSets.push(rows);
    const methods = new Set(rows.map(/** @param {any} r */ r => r.method).filter(Boolean));  // an evaluation's file: its method names it
    opened.push(pairedRun(methods.size === 1 ? String([...methods][0]) : file.name, rows, normLabel));
  }
  if (rowSets.length === 1) { byId("results-paired").hidden = true; showResults(rowSets[0], labels); return; }
  if (!rowSets.length) throw new Error("These files hold no results rows: open a results file (JSONL) with its run.json or summary.json.");
  const seen = new Map();
  opened.forEach(run => {  // two files of one method (two models, say): told apart by their order
    const n = (seen.get(run.name) || 0) + 1;
    seen.set(run.name, n);
    if (n > 1) run.name += " (" + n + ")";
  });
  byId("results-error").hidden = true;
  byId("results-panel").hidden = true;
  byId("results-response").hidden = true;
  const host = byId("results-paired");
  host.hidden = false;
  showPaired(opened, host, (run, chosen) => {
    showResults([...run.outcomes.values()].map(o => o.row), labels);
    if (chosen.row.events) play(viewer, chosen.row.events); else viewer.render(chosen.row);
    byId("results-debate").scrollIntoView({ behavior: "smooth", block: "start" });
  });
}

input("results-file").addEventListener("change", async () => {
  const files = [...(input("results-file").files || [])];
  if (!files.length) return;
  try {
    if (files.length > 1) { await openFiles(files); return; }
    await openFile(await files[0].text());
  } catch (err) { showError(/** @type {Error} */ (err).message); }
});

byId("load-batch").addEventListener("click", async () => {
  const id = input("batch-id").value.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(id)) { showError("Enter a batch id."); return; }
  const r = await fetch("/v1/batches/" + id + "/results", { headers: headers() });
  if (!r.ok) { showError(await errorText(r)); return; }
  try { showResults(await upgraded(parseJsonl(await r.text()))); } catch (err) { showError(/** @type {Error} */ (err).message); }
});

document.querySelectorAll(".chip-btn").forEach(btn => btn.addEventListener("click", () => {
  document.querySelectorAll(".chip-btn").forEach(b => b.classList.toggle("active", b === btn));
  filter = /** @type {HTMLElement} */ (btn).dataset.filter || "all";
  drawRows();
}));
input("results-search").addEventListener("input", drawRows);
