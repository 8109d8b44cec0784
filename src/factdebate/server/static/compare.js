// @ts-check
/* "Compare methods": one claim through several methods at once, each streamed on its own. A card per method
   shows its verdict as it arrives, with how it was reached, its model calls, tokens and seconds; a click
   opens that method's own view below, live while it runs. The comparison is kept in Recent checks. */
import { readSSE, stream } from "./api.js";
import { LABEL_CLASS, byId, el, input, labelChip } from "./dom.js";
import { count, onSubmit, requestBody, showError, thresholds } from "./form.js";
import * as history from "./history.js";
import * as page from "./state.js";
import { VerdictView } from "./verdict-view.js";
import { describe, viewOf } from "./views.js";

const picker = byId("compare-methods");
const grid = byId("compare-grid");
const view = new VerdictView(byId("compare-view"));
// How far the methods agree ("2 of 3 methods say REFUTES"), the grid's first line, above the cards.
const agreement = el("p", "compare-agreement");
agreement.setAttribute("role", "status");

/** The methods' agreement in a sentence, from the verdicts that have arrived. @param {Entry[]} all */
export function agreementText(all) {
  /** @type {Record<string, number>} */
  const labels = {};
  all.forEach(e => { if (e.verdict) { const k = e.verdict.label || "no label"; labels[k] = (labels[k] || 0) + 1; } });
  const ranked = Object.entries(labels).sort((a, b) => b[1] - a[1]);
  if (!ranked.length) return "";
  const open = all.filter(e => !e.verdict && !e.error).length;
  const failed = all.filter(e => e.error).length;
  const [top, n] = ranked[0];
  const head = n === all.length ? "All " + n + " methods say " + top :
    ranked.length > 1 && ranked[1][1] === n ? "The methods disagree: " + ranked.map(([k, c]) => c + " say " + k).join(", ") :
    n + " of " + all.length + " methods say " + top;
  return head + (open ? " (" + open + " still checking)" : "") + (failed ? " (" + failed + " failed)" : "") + ".";
}

/** One method's run in the comparison: its events (replayed when opened) and its verdict. */
class Entry {
  /** @param {string} method @param {string} claim @param {(entry: Entry) => void} open */
  constructor(method, claim, open) {
    this.method = method;
    this.claim = claim;
    /** @type {Array<[string, any]>} */
    this.events = [];
    /** @type {any} */
    this.verdict = null;
    this.error = "";
    this.node = el("button", "compare-card pending");
    this.node.type = "button";
    this.node.dataset.method = method;
    this.node.addEventListener("click", () => open(this));
    this.draw();
  }

  draw() {
    const v = this.verdict;
    this.node.className = "compare-card " + (v ? LABEL_CLASS[v.label] || "unparsed" : this.error ? "failed" : "pending");
    const head = el("div", "compare-head");
    head.append(el("strong", "", this.method), v ? labelChip(v.label) : el("span", "label unparsed",
      this.error ? "error" : "checking…"));
    const rows = el("dl", "compare-facts");
    /** @param {string} k @param {unknown} value */
    const fact = (k, value) => rows.append(el("dt", "", k), el("dd", "", value));
    if (v) {
      const u = v.usage || {};
      fact("how", describe(viewOf(this.method), v));
      fact("model calls", u.llm_calls);
      fact("tokens", (u.prompt_tokens || 0) + (u.completion_tokens || 0));
      // Every call answered from the cache took no time worth a number: say so rather than "0.0".
      fact("seconds", u.llm_calls > 0 && u.cached_calls === u.llm_calls ? "cached" : Number(u.seconds || 0).toFixed(1));
    } else if (this.error) {
      fact("error", this.error);
    }
    this.node.replaceChildren(head, rows, el("span", "compare-open", "shown below"));
    agreement.textContent = agreementText(entries);
  }
}

/** @type {Entry[]} */
let entries = [];
/** @type {Entry | null} */
let shown = null;
/** What a method's card says when the user stopped the comparison (its view then says "Stopped by you"). */
const STOPPED = "stopped by you";

/** @param {Entry} entry */
function open(entry) {
  shown = entry;
  grid.querySelectorAll(".compare-card").forEach(n => n.setAttribute("aria-pressed", String(n === entry.node)));
  if (entry.verdict) { view.render(entry.verdict); return; }
  view.start(entry.claim, entry.method, {});
  entry.events.forEach(([name, ev]) => view.event(name, ev));
  if (entry.error) view.error(entry.error, { byUser: entry.error === STOPPED }); else view.status("Checking with " + entry.method + "…", true);
}

/** @param {string} claim @param {string[]} methods @param {(entry: Entry) => void} [each] */
function startGrid(claim, methods, each) {
  entries = methods.map(m => new Entry(m, claim, open));
  agreement.textContent = "";
  grid.replaceChildren(agreement, ...entries.map(e => e.node));
  entries.forEach(e => each && each(e));
  view.clear();
  shown = null;
}

/** @param {Entry} entry @param {Record<string, any>} body @param {AbortSignal} signal */
async function run(entry, body, signal) {
  try {
    const response = await stream("/v1/verify/stream", { ...body, method: entry.method }, signal);
    await readSSE(response, (name, data) => {
      if (name === "result") { entry.verdict = data; entry.draw(); if (shown === entry) view.render(data); return; }
      if (name === "error") { entry.error = data.message; entry.draw(); if (shown === entry) view.error(data.message); return; }
      entry.events.push([name, data]);
      if (shown === entry) view.event(name, data);
    });
    if (!entry.verdict && !entry.error) { entry.error = "the stream ended before a verdict arrived"; entry.draw(); }
  } catch (err) {
    const error = /** @type {Error} */ (err);
    entry.error = error.name === "AbortError" ? STOPPED : String(error.message || error);
    entry.draw();
  }
}

onSubmit("compare", async signal => {
  const claim = input("claim").value.trim();
  const methods = [...picker.querySelectorAll("input:checked")].map(b => /** @type {HTMLInputElement} */ (b).value);
  if (!claim) { showError("Type a claim to check."); return; }
  if (methods.length < 2) { showError("Tick at least two methods to compare."); return; }
  const { method: _, ...shared } = requestBody();
  const body = { claim, ...shared };
  startGrid(claim, methods);
  open(entries[0]);
  view.thresholds = thresholds(body);
  await Promise.all(entries.map(e => run(e, body, signal)));
  const done = entries.filter(e => e.verdict).map(e => e.verdict);
  if (done.length) history.remember({ kind: "compare", claim, label: null, decided_by: "", verdicts: done });
});

history.onOpen("compare", item => {
  page.set({ mode: "compare" });
  input("claim").value = item.claim;
  count();
  startGrid(item.claim, (item.verdicts || []).map(v => v.method), e => {
    e.verdict = (item.verdicts || []).find(v => v.method === e.method);
    e.draw();
  });
  open(entries[0]);
});

/** Ticked at first: the server's default method and the first of each other layout (any can be ticked).
 * @param {import("./state.js").Catalogue} catalogue */
function firstPicks(catalogue) {
  const picks = new Set([catalogue.defaults.method]);
  const layouts = new Set([viewOf(catalogue.defaults.method).layout]);
  catalogue.methods.forEach(m => {
    const layout = viewOf(m.name).layout;
    if (!layouts.has(layout)) { layouts.add(layout); picks.add(m.name); }
  });
  return picks;
}

page.subscribe((state, changed) => {
  if (!("catalogue" in changed) || !state.catalogue) return;
  const picked = firstPicks(state.catalogue);
  picker.replaceChildren(...state.catalogue.methods.map(m => {
    const label = el("label", "compare-pick");
    const box = el("input");
    box.type = "checkbox";
    box.value = m.name;
    box.checked = picked.has(m.name);
    label.title = m.description;
    label.append(box, el("span", "", m.name));
    return label;
  }));
});
