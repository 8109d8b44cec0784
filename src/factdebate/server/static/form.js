// @ts-check
/* The check form, shared by the three modes (a claim, a comparison of methods, a whole response): the
   method and search selects, the options drawn from the catalogue, the counter, errors, and one run at a
   time. It reads the page state (state.js) and draws what the mode and the run in progress call for. */
import * as address from "./address.js";
import { byId, el, input } from "./dom.js";
import * as draft from "./draft.js";
import { OptionsForm } from "./options.js";
import * as page from "./state.js";
import { methodWords } from "./views.js";

/** @typedef {import("./state.js").Mode} Mode */
const form = /** @type {HTMLFormElement} */ (byId("claim-form"));
const methodSelect = /** @type {HTMLSelectElement} */ (byId("method"));
const options = new OptionsForm(byId("method-options"), byId("more-options"), ["method", "search", "llm"]);
const LABELS = { claim: ["Verify claim", "Debating…"], response: ["Check response", "Checking…"],
  compare: ["Compare methods", "Comparing…"] };
const TABS = { claim: "Check a claim", response: "Check a response", compare: "Compare methods" };
/** Each mode's run: true when it ended with its result on the page (a verdict, not a failure or a stop).
 * @type {Partial<Record<Mode, (signal: AbortSignal) => Promise<boolean>>>} */
const handlers = {};
/** The ids the service keeps each mode's result under ([] when it keeps none), for the page's address.
 * @type {Partial<Record<Mode, () => string[]>>} */
const keptIds = {};
/** @type {AbortController | null} */
let running = null;

/** @param {HTMLSelectElement} select @param {string[]} values @param {string} chosen */
function fill(select, values, chosen) {
  select.replaceChildren(...values.map(v => {
    const opt = el("option", "", v);
    opt.value = v;
    opt.selected = v === chosen;
    return opt;
  }));
}

/** @param {import("./state.js").Catalogue} catalogue */
function load(catalogue) {
  const d = catalogue.defaults;
  // A catalogue loaded again (the key box fires "change" once more when it loses focus) keeps the method
  // the user had picked meanwhile.
  const picked = catalogue.methods.some(m => m.name === methodSelect.value) ? methodSelect.value : d.method;
  fill(methodSelect, catalogue.methods.map(m => m.name), picked);
  // Each method by its readable name and the start of what it is, not its code name alone (the whole
  // description is shown under the select).
  [...methodSelect.options].forEach(opt => {
    const info = catalogue.methods.find(m => m.name === opt.value);
    if (!info) return;
    const { title, about } = methodWords(info);
    const gist = about.split(/(?<=[.:;])\s/)[0].replace(/[.:;]$/, "");
    opt.textContent = title + " — " + (gist.length > 50 ? gist.slice(0, 47).replace(/\s+\S*$/, "") + "…" : gist);
  });
  fill(/** @type {HTMLSelectElement} */ (byId("search")), catalogue.search_engines, d.search);
  fill(/** @type {HTMLSelectElement} */ (byId("llm")), catalogue.llms, d.llm);
  byId("llm-field").hidden = catalogue.llms.length < 2;
  options.load(catalogue);
  showMethod();
  count(); // no maxLength: it cut a longer pasted claim in silence; the count says it is too long instead
}

/** Picks `name` in the method select, when the server offers it (a reopened check shows the method it was
 * made with). @param {string | null | undefined} name */
export function pickMethod(name) {
  if (!name || ![...methodSelect.options].some(o => o.value === name)) return;
  methodSelect.value = name;
  showMethod();
}

function showMethod() {
  const info = (page.get().catalogue?.methods || []).find(m => m.name === methodSelect.value);
  methodSelect.title = info ? info.description : "";
  byId("method-help").textContent = info ? info.description : ""; // shown, not only on hover
  options.show(methodSelect.value);
}
methodSelect.addEventListener("change", showMethod);

/** The characters typed against the limit of the visible mode's text. */
export function count() {
  const d = page.get().catalogue?.defaults || {};
  const response = page.get().mode === "response";
  const n = input(response ? "response-text" : "claim").value.trim().length;
  const max = response ? d.max_response_chars : d.max_claim_chars;
  const shown = byId("claim-count");
  shown.textContent = (max ? n + " / " + max + " characters" : n + " characters") +
    (max && n > max ? ": " + (n - max) + " too many; nothing is cut, so shorten it to check it" : "");
  shown.classList.toggle("over", Boolean(max) && n > max);
}
input("claim").addEventListener("input", count);
input("response-text").addEventListener("input", count);

/** @param {string} message */
export function showError(message) { const p = byId("form-error"); p.textContent = message; p.hidden = false; }
export function hideError() { byId("form-error").hidden = true; }

/** What the form asks for: method, search engine, model and the options (the claim and texts are the mode's). */
export function requestBody() {
  /** @type {Record<string, any>} */
  const body = { method: methodSelect.value, search: /** @type {HTMLSelectElement} */ (byId("search")).value,
    ...options.read(page.get().mode === "compare") };
  if (!byId("llm-field").hidden) body.llm = /** @type {HTMLSelectElement} */ (byId("llm")).value;
  return body;
}

/** @param {Record<string, any>} values */
export const thresholds = values => options.thresholds(values);

/** What the visible mode runs when the form is sent; it says whether the run ended with its result shown; `ids`:
 * the ids the service keeps that result under, which become the page's address.
 * @param {Mode} mode @param {(signal: AbortSignal) => Promise<boolean>} run @param {() => string[]} ids */
export function onSubmit(mode, run, ids) { handlers[mode] = run; keptIds[mode] = ids; }

/* A running check lives in this tab: leaving asks first, and the form and what the stream sends
   are kept in the tab (draft.js) until the check ends, so a reload offers to show what had arrived or to run
   it again (the service stops a check whose page went away: it is not resumed). */

/** What the form holds, to put back after a reload: the texts, the method, the search and model, the options. */
function formState() {
  return { method: methodSelect.value, claim: input("claim").value, response: input("response-text").value,
    question: input("response-question").value, search: /** @type {HTMLSelectElement} */ (byId("search")).value,
    llm: /** @type {HTMLSelectElement} */ (byId("llm")).value, options: options.values() };
}

/** @param {HTMLSelectElement} select @param {unknown} value */
function choose(select, value) {
  if ([...select.options].some(o => o.value === value)) select.value = String(value);
}

/** The draft of a check this tab was running when it was reloaded, put back once the methods are known. */
function restoreDraft() {
  const kept = draft.take();
  if (!kept || !TABS[kept.mode]) return;
  const f = kept.form;
  page.set({ mode: kept.mode });
  input("claim").value = String(f.claim || "");
  input("response-text").value = String(f.response || "");
  input("response-question").value = String(f.question || "");
  pickMethod(f.method); // draws the method's options, which then show the values they had
  choose(/** @type {HTMLSelectElement} */ (byId("search")), f.search);
  choose(/** @type {HTMLSelectElement} */ (byId("llm")), f.llm);
  if (f.options && typeof f.options === "object") options.write(f.options);
  count();
  draft.offer(kept);
}

window.addEventListener("beforeunload", e => {
  if (!page.get().busy) return;
  e.preventDefault(); // the browser asks whether to leave: the check would stop
  e.returnValue = "";
});

form.addEventListener("submit", async e => {
  e.preventDefault();
  const mode = page.get().mode;
  const run = handlers[mode];
  if (page.get().busy || !run) return;
  hideError();
  byId("restored-note").hidden = true;
  running = new AbortController();
  const signal = running.signal;
  draft.begin(mode, formState());
  page.set({ busy: mode });
  address.started(mode);
  let finished = false;
  try { finished = Boolean(await run(signal)); } finally {
    running = null;
    draft.end();
    page.set({ busy: null });
    const ids = keptIds[mode];
    address.shown(mode, finished && !signal.aborted && ids ? ids() : []);
    // A run that ended with its result, in the tab it was started from, is shown as a link's check is:
    // not one stopped, failed, or left for another tab (the person is elsewhere, and the form is theirs there).
    if (finished && !signal.aborted && page.get().mode === mode) showResult();
  }
});
byId("cancel").addEventListener("click", () => { if (running && page.get().busy === page.get().mode) running.abort(); });

/* A result on the page (a finished run, a check opened from its link) comes first: the form folds to one line
   that says what was checked, with one button that opens it again, and the verdict's heading takes the focus. */

/** Opens the folded form and, asked by its button, puts the focus in its text. @param {boolean} [focus] */
export function unfold(focus = true) {
  if (!form.classList.contains("folded")) return;
  form.classList.remove("folded");
  byId("form-folded").hidden = true;
  byId("unfold").setAttribute("aria-expanded", "true");
  if (focus) input(page.get().mode === "response" ? "response-text" : "claim").focus();
}
byId("unfold").addEventListener("click", () => unfold());

/** Folds the form to one line that says `text`, for what comes in its place (a linked check waiting for a key).
 * @param {string} text */
export function foldOver(text) {
  byId("fold-summary").textContent = text;
  form.classList.add("folded");
  byId("form-folded").hidden = false;
  byId("unfold").setAttribute("aria-expanded", "false");
}

/** Folds the form under the result drawn in the visible mode's place, scrolls that result into view and focuses
 * its heading; nothing when no result is shown there. */
export function showResult() {
  const mode = page.get().mode;
  const host = byId(mode === "response" ? "response-live" : mode === "compare" ? "compare-live" : "live");
  const box = /** @type {HTMLElement | null} */ (host.querySelector(".verdict-box:not([hidden])"));
  const heading = /** @type {HTMLElement | null} */ (host.querySelector("h2"));
  if (!box || !heading) return;
  const text = input(mode === "response" ? "response-text" : "claim").value.trim();
  // A guard check is a chat reply's, not one this form made (its form names no method of it).
  const what = host.querySelector(".guard-verdict") ? "A chat reply's check" : TABS[mode];
  foldOver(what + ": " + (text || "—"));
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
  // A comparison from its top (the agreement line and the cards), a check from its card.
  (mode === "compare" ? host : heading.closest(".card") || box).scrollIntoView({ block: "start" });
}

/** Draws the form for the mode and the run in progress (one at a time; Stop acts on the visible mode's). */
function draw() {
  const { mode, busy } = page.get();
  const response = mode === "response";
  form.dataset.mode = mode;
  options.setMode(mode);
  byId("response-fields").hidden = !response;
  byId("compare-fields").hidden = mode !== "compare";
  input("claim").hidden = response;
  byId("claim-label").hidden = response;
  input("claim").required = !response; // a hidden required field would block the form
  byId("method-row").hidden = mode === "compare";
  byId("method-options").hidden = mode === "compare";
  byId("method-help").hidden = mode === "compare";
  byId("live").hidden = mode !== "claim";
  byId("compare-live").hidden = mode !== "compare";
  byId("response-live").hidden = !response || !byId("response-live").childElementCount;
  const submit = /** @type {HTMLButtonElement} */ (byId("submit"));
  submit.disabled = busy !== null;
  submit.textContent = LABELS[mode][busy === mode ? 1 : 0];
  byId("cancel").hidden = busy !== mode;
  const elsewhere = byId("run-elsewhere");
  elsewhere.hidden = busy === null || busy === mode;
  elsewhere.textContent = busy && busy !== mode ? (busy === "claim" ? "A claim is being checked" : busy === "response" ?
    "A response is being checked" : "Methods are being compared") + " under “" + TABS[busy] + "”: open that tab to " +
    "follow or stop it. You can start another check once it ends." : "";
  document.querySelectorAll("button.tab[data-view=check]").forEach(tab => {
    const tabMode = /** @type {HTMLElement} */ (tab).dataset.mode || "claim";
    tab.classList.toggle("busy", busy === tabMode && mode !== tabMode);
  });
  count();
}

page.subscribe((state, changed) => {
  // The draft once every part has drawn the catalogue (the comparison's picks are drawn after the form).
  if ("catalogue" in changed && state.catalogue) { load(state.catalogue); queueMicrotask(restoreDraft); }
  if ("mode" in changed || "busy" in changed) draw();
  if (("mode" in changed || ("busy" in changed && state.busy)) && form.classList.contains("folded")) unfold(false);
});
draw();
