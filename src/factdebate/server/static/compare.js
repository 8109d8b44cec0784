// @ts-check
/* "Compare methods": one claim through several methods at once, each streamed on its own and each with its
   own settings (compare-settings.js). A card per method shows its verdict as it arrives, with how it was
   reached, its model calls, tokens and seconds. Below the cards every method has its own view, fed live: on
   a wide screen they stand side by side, each scrolled on its own (layouts.css); on a narrow one the card
   clicked last shows its view. The comparison is kept in Recent checks, and by the service: one link
   reopens all its methods' checks. */
import { failureText, readSSE, stream } from "./api.js";
import { MethodSettings } from "./compare-settings.js";
import { agreementText, secondsText } from "./compare-words.js";
import { LABEL_CLASS, byId, downloadButton, el, fileName, input, labelChip } from "./dom.js";
import * as draft from "./draft.js";
import { count, onSubmit, requestBody, showError, thresholds } from "./form.js";
import * as history from "./history.js";
import { keptCalls, linkControl } from "./share.js";
import * as page from "./state.js";
import { VerdictView } from "./verdict-view.js";
import { cautions, describe, methodWords, modelsOf, viewOf } from "./views.js";

const picker = byId("compare-methods");
const settings = new MethodSettings(el("div", "compare-settings-list"));
picker.after(settings.host);
const grid = byId("compare-grid");
const columns = byId("compare-view");
columns.classList.add("compare-columns");
// The comparison as a whole: a file with every method's verdict, and a link that reopens them all.
const actions = el("div", "compare-actions");
// How far the methods agree ("2 of 3 methods say REFUTES"), the grid's first line, above the cards.
const agreement = el("p", "compare-agreement");
agreement.setAttribute("role", "status");
// Right under it, the caution of the model the verdicts came from (a script's, the embedded model's), said once
// for all the methods it answered for: on a phone the methods' own views, which carry it too, are screens below.
const caution = el("div", "compare-cautions");

/** A method's readable name (Tool-MAD for tool-mad), as the picker shows it; its code name when the catalogue lacks it.
 * @param {string} method */
function titleOf(method) {
  const info = (page.get().catalogue?.methods || []).find(m => m.name === method);
  return info ? methodWords(info).title : method;
}

/** One method's run in the comparison: its card, its own view (a column) and its verdict. */
class Entry {
  /** @param {string} method @param {string} claim @param {(entry: Entry) => void} open */
  constructor(method, claim, open) {
    this.method = method;
    this.claim = claim;
    /** @type {any} */
    this.verdict = null;
    this.error = "";
    this.stopped = false; // ended without a verdict because it was stopped (by the user, by a reload), not failed
    this.node = el("button", "compare-card pending");
    this.node.type = "button";
    this.node.dataset.method = method;
    this.node.addEventListener("click", () => open(this));
    this.column = el("section", "compare-column");
    this.column.dataset.method = method;
    this.column.setAttribute("aria-label", titleOf(method) + "'s debate");
    const viewHost = el("div");
    // h2: the page has no heading between its h1 and this one (the debate inside heads its agents h3).
    this.column.append(el("h2", "compare-column-head", titleOf(method)), viewHost);
    this.view = new VerdictView(viewHost);
    this.draw();
  }

  /** The id the service keeps this method's check under (null: not kept, or not finished). */
  get checkId() { return this.view.checkId; }

  draw() {
    const v = this.verdict;
    this.node.className = "compare-card " + (v ? LABEL_CLASS[v.label] || "unparsed" : this.error ? "failed" : "pending");
    const head = el("div", "compare-head");
    // Said once: the label says how it ended ("stopped", "failed"), the row below why.
    head.append(el("strong", "", titleOf(this.method)), v ? labelChip(v.label) : el("span", "label unparsed",
      this.error ? (this.stopped ? "stopped" : "failed") : "checking…"));
    const rows = el("dl", "compare-facts");
    /** @param {string} k @param {unknown} value */
    const fact = (k, value) => rows.append(el("dt", "", k), el("dd", "", value));
    if (v) {
      const u = v.usage || {};
      fact("how", describe(viewOf(this.method), v));
      const models = modelsOf(v);
      if (models.length) fact(models.length === 1 ? "model" : "models", models.join(", "));
      fact("model calls", u.llm_calls);
      fact("tokens", (u.prompt_tokens || 0) + (u.completion_tokens || 0));
      fact("seconds", secondsText(u));
    } else if (this.error) {
      fact("why", this.error === STOPPED ? "you pressed Stop" : this.error);
    }
    this.node.replaceChildren(head, rows, el("span", "compare-open", "shown below"));
    agreement.textContent = agreementText(entries);
    caution.replaceChildren(...cautions(entries.map(e => e.verdict).filter(Boolean), "claim")
      .map(text => el("p", "near-chance", text)));
  }
}

/** @type {Entry[]} */
let entries = [];
/** What a method's card says when the user stopped the comparison (its view then says "Stopped by you"). */
const STOPPED = "stopped by you";

/** Marks the card whose view a narrow screen shows (a wide one shows them all). @param {Entry} entry */
function open(entry) {
  entries.forEach(e => {
    e.node.setAttribute("aria-pressed", String(e === entry));
    e.column.classList.toggle("shown", e === entry);
  });
}

/** @param {string} claim @param {string[]} methods @param {(entry: Entry) => void} [each] */
function startGrid(claim, methods, each) {
  entries = methods.map(m => new Entry(m, claim, open));
  agreement.textContent = "";
  caution.replaceChildren();
  actions.replaceChildren();
  grid.replaceChildren(agreement, caution, ...entries.map(e => e.node), actions);
  columns.style.setProperty("--methods", String(entries.length));
  columns.replaceChildren(...entries.map(e => e.column));
  entries.forEach(e => each && each(e));
}

/** The ids the service keeps the comparison's verdicts under, one per method that gave one; [] when it keeps
 * some of them only (no link reopens the comparison then). */
function keptIds() {
  const done = entries.filter(e => e.verdict);
  const ids = /** @type {string[]} */ (done.map(e => e.checkId).filter(id => id));
  return ids.length && ids.length === done.length ? ids : [];
}

/** The download and the link of the whole comparison, once its runs have ended. @param {string} claim */
function finishGrid(claim) {
  const done = entries.filter(e => e.verdict);
  if (!done.length) return;
  const verdicts = done.map(e => e.verdict);
  actions.replaceChildren(downloadButton(fileName(claim, "comparison"),
    () => ({ kind: "comparison", claim, methods: entries.map(e => e.method), verdicts })));
  const ids = keptIds();
  if (ids.length) actions.append(linkControl(ids));
}

/** One event of a method's stream, drawn on its card and in its view. @param {Entry} entry @param {string} name
 * @param {any} data */
function feed(entry, name, data) {
  if (name === "result") { entry.verdict = data; entry.draw(); entry.view.render(data); return; }
  if (name === "error") { entry.error = data.message; entry.draw(); entry.view.error(failureText(data)); return; }
  entry.view.event(name, data);
}

/** @param {Entry} entry @param {Record<string, any>} body @param {AbortSignal} signal */
async function run(entry, body, signal) {
  entry.view.start(entry.claim, entry.method, thresholds(body), true);
  entry.view.status("Checking with " + titleOf(entry.method) + "…", true);
  try {
    const response = await stream("/v1/verify/stream", body, signal);
    await readSSE(response, (name, data) => {
      draft.arrived(name, data, entry.method);
      feed(entry, name, data);
    });
    if (!entry.verdict && !entry.error) {
      entry.error = "the stream ended before a verdict arrived";
      entry.draw();
      entry.view.error(entry.error);
    }
  } catch (err) {
    const error = /** @type {Error} */ (err);
    entry.error = error.name === "AbortError" ? STOPPED : String(error.message || error);
    entry.stopped = entry.error === STOPPED;
    entry.draw();
    entry.view.error(entry.error, { byUser: entry.error === STOPPED });
  }
}

/** The methods ticked in the picker, in its order. */
function ticked() {
  return [...picker.querySelectorAll("input:checked")].map(b => /** @type {HTMLInputElement} */ (b).value);
}

onSubmit("compare", async signal => {
  const claim = input("claim").value.trim();
  const methods = ticked();
  if (!claim) { showError("Type a claim to check."); return false; }
  if (methods.length < 2) { showError("Tick at least two methods to compare."); return false; }
  const { method: _, ...shared } = requestBody();
  /** @type {Record<string, Record<string, any>>} */
  const own = Object.fromEntries(methods.map(m => [m, settings.read(m)]));
  draft.extend({ methods, settings: own });
  startGrid(claim, methods);
  open(entries[0]);
  // Each method gets the shared settings and its own (what was changed in its section).
  await Promise.all(entries.map(e => run(e, { claim, ...shared, ...own[e.method], method: e.method }, signal)));
  finishGrid(claim);
  const done = entries.filter(e => e.verdict);
  if (done.length) {
    history.remember({ kind: "compare", claim, label: null, decided_by: "", verdicts: done.map(e => e.verdict),
      check_ids: done.every(e => e.checkId) ? done.map(e => /** @type {string} */ (e.checkId)) : [] });
  }
  return done.length > 0;
}, keptIds);

history.onOpen("compare", item => {
  if (page.get().busy === "compare") { showError("Methods are being compared: stop them or let them end to open a past check."); return false; }
  page.set({ mode: "compare" });
  input("claim").value = item.claim;
  count();
  const verdicts = item.verdicts || [];
  const ids = item.check_ids || [];
  const methods = new Set(verdicts.map(v => v.method));
  picker.querySelectorAll("input").forEach(b => { // ticked as they were, to run the comparison again
    const box = /** @type {HTMLInputElement} */ (b);
    box.checked = methods.has(box.value);
  });
  settings.show(ticked());
  startGrid(item.claim, verdicts.map(v => v.method), e => {
    const at = verdicts.findIndex(v => v.method === e.method);
    e.verdict = verdicts[at];
    e.draw();
    const id = ids.length === verdicts.length ? ids[at] : null;
    e.view.render(e.verdict, id);
    keptCalls(id).then(kept => e.view.keptCalls(kept)); // each method's model calls, as they were live
  });
  open(entries[0]);
  finishGrid(item.claim);
});

/* After a reload mid-comparison: the methods ticked and their own settings put back; what each method's stream
   had sent drawn on its card and in its view, each one that had not ended marked so. */
draft.onRestore("compare", {
  form: kept => {
    const methods = new Set(Array.isArray(kept.extra.methods) ? kept.extra.methods : []);
    if (!methods.size) return;
    picker.querySelectorAll("input").forEach(b => {
      const box = /** @type {HTMLInputElement} */ (b);
      box.checked = methods.has(box.value);
    });
    settings.show(ticked());
    Object.entries(kept.extra.settings || {}).forEach(([m, values]) => settings.write(m, values || {}));
  },
  show: kept => {
    const claim = String(kept.form.claim || "").trim();
    const methods = Array.isArray(kept.extra.methods) ? kept.extra.methods.map(String) : [];
    if (!methods.length) return;
    startGrid(claim, methods, e => {
      e.view.start(claim, e.method, thresholds({ ...kept.form.options, ...(kept.extra.settings || {})[e.method] }));
      kept.events.forEach(([method, name, data]) => { if (method === e.method) feed(e, name, data); });
      if (!e.verdict && !e.error) {
        e.error = "the page was reloaded before its verdict arrived";
        e.stopped = true;
        e.draw();
        e.view.error(e.error + "; above is what had arrived by then", { byUser: true });
      }
    });
    open(entries[0]);
    finishGrid(claim);
  },
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
  settings.load(state.catalogue.methods);
  picker.replaceChildren(...state.catalogue.methods.map(m => {
    const label = el("label", "compare-pick");
    const box = el("input");
    box.type = "checkbox";
    box.value = m.name;
    box.checked = picked.has(m.name);
    box.addEventListener("change", () => settings.show(ticked()));
    // Its readable name and what it is, both shown: a title shows only on hover, and a phone has none.
    const { title, about } = methodWords(m);
    const words = el("span", "compare-pick-words");
    const name = el("span", "compare-pick-name", title);
    if (title !== m.name) name.append(" ", el("code", "compare-pick-code", m.name));
    words.append(name, el("span", "compare-pick-about", about));
    label.append(box, words);
    return label;
  }));
  settings.show(ticked());
});
