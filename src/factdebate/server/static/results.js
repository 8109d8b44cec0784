// @ts-check
/* The results viewer: a results JSONL (verify --output, an evaluation, a batch), one saved verdict, or a
   trace (replayed as it was drawn live). Files are read in the browser; only rows of an older schema are
   sent to the server, which owns their upgrade. */
import { errorText, headers } from "./api.js";
import { byId, el, input, labelChip } from "./dom.js";
import { pairedRun, showPaired } from "./paired.js";
import { isTrace, play, runs } from "./replay.js";
import { showSavedResponse } from "./response/response-form.js";
import { VerdictView } from "./verdict-view.js";
import { normLabel, upgraded } from "./views.js";

const viewer = new VerdictView(byId("results-debate"));
/** @type {any[]} */
let rows = [];
let filter = "all";

/** @param {any} row */
function goldOf(row) {
  const gold = row.gold ?? row.label_gold ?? row.gold_label;
  return gold === undefined ? null : normLabel(gold);
}

/** @param {any} row @returns {"correct" | "wrong" | "error" | "unknown"} */
function outcome(row) {
  if (row.error) return "error";
  const gold = goldOf(row);
  if (gold === null) return "unknown";
  return normLabel(row.label) === gold ? "correct" : "wrong";
}

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

/** @param {any[]} parsed */
function showResults(parsed) {
  byId("results-error").hidden = true;
  rows = parsed.filter(r => r && typeof r === "object");
  byId("results-panel").hidden = false;
  byId("results-response").hidden = true;
  viewer.clear();
  const counts = { correct: 0, wrong: 0, error: 0, unknown: 0 };
  rows.forEach(r => { counts[outcome(r)] += 1; });
  const scored = counts.correct + counts.wrong;
  const summary = byId("results-summary");
  summary.replaceChildren(el("strong", "", rows.length + " claims"));
  summary.append(scored ? el("span", "", " · accuracy " + (100 * counts.correct / scored).toFixed(1) + "% (" +
    counts.correct + "/" + scored + ")") : el("span", "muted", " · no gold labels (gold / label_gold) to compare with"));
  if (counts.error) summary.append(el("span", "", " · " + counts.error + " errors"));
  drawRows();
}

function drawRows() {
  const body = byId("results-body");
  body.replaceChildren();
  const query = input("results-search").value.trim().toLowerCase();
  rows.forEach((row, i) => {
    const result = outcome(row);
    if (filter !== "all" && result !== filter) return;
    const claim = String(row.claim || row.response || ""); // a response's row: its answer
    if (query && !claim.toLowerCase().includes(query)) return;
    const tr = el("tr", "row-" + result);
    tr.append(el("td", "muted", i + 1), el("td", "claim-cell", claim));
    const gold = el("td");
    if (goldOf(row)) gold.append(labelChip(goldOf(row)));
    const pred = el("td");
    pred.append(row.error ? el("span", "label failed", "error") : labelChip(row.label));
    const mark = { correct: "✓", wrong: "✗", error: "!", unknown: "" }[result];
    tr.append(gold, pred, el("td", "muted", row.error ? row.error : row.decided_by || ""), el("td", "mark " + result, mark));
    tr.addEventListener("click", () => {
      body.querySelectorAll("tr.selected").forEach(t => t.classList.remove("selected"));
      tr.classList.add("selected");
      if (row.kind === "response") { viewer.clear(); openResponse(row); return; }
      byId("results-response").hidden = true;
      if (row.events) play(viewer, row.events); else viewer.render(row);
      byId("results-debate").scrollIntoView({ behavior: "smooth", block: "start" });
    });
    body.append(tr);
  });
}

/** A response's verdict is drawn by the response view, below the results. @param {any} verdict */
function openResponse(verdict) {
  byId("results-response").hidden = false;
  showSavedResponse(verdict, byId("results-response"));
}

/** A results file, one saved verdict (pretty-printed or not), or a trace. @param {string} text */
async function openFile(text) {
  /** @type {any[]} */
  let parsed;
  try { parsed = [JSON.parse(text)]; } catch (_) { parsed = parseJsonl(text); }
  if (isTrace(parsed)) parsed = runs(parsed);
  /** @param {any} r */
  const isResponse = r => r && typeof r === "object" && r.kind === "response";
  if (!parsed.some(r => isResponse(r) || (r && typeof r === "object" && typeof r.claim === "string"))) {
    throw new Error("This file is neither a claim's verdict (factdebate verify --json), a response's verdict " +
      "(factdebate check-response --json), results rows (JSONL) nor a trace: nothing in it names a claim.");
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

/** Two or more results files: the paired view; an answer's button shows its file and its debate.
 * @param {File[]} files */
async function openFiles(files) {
  const opened = [];
  for (const file of files) {
    let parsed;
    try { parsed = parseJsonl(await file.text()); } catch (err) {
      throw new Error(file.name + ": " + /** @type {Error} */ (err).message);
    }
    if (!parsed.some(r => r && typeof r === "object" && typeof r.claim === "string")) {
      throw new Error(file.name + " holds no results rows (JSONL with a claim each): open results files to pair them.");
    }
    const rows = await upgraded(parsed.filter(r => r && typeof r === "object"));
    const methods = new Set(rows.map(/** @param {any} r */ r => r.method).filter(Boolean));  // an evaluation's file: its method names it
    opened.push(pairedRun(methods.size === 1 ? String([...methods][0]) : file.name, rows, normLabel));
  }
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
    showResults([...run.outcomes.values()].map(o => o.row));
    if (chosen.row.events) play(viewer, chosen.row.events); else viewer.render(chosen.row);
    byId("results-debate").scrollIntoView({ behavior: "smooth", block: "start" });
  });
}

input("results-file").addEventListener("change", async () => {
  const files = [...(input("results-file").files || [])];
  if (!files.length) return;
  try {
    if (files.length > 1) { await openFiles(files); return; }
    byId("results-paired").hidden = true;
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
