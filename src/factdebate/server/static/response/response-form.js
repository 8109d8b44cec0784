// @ts-check
/* "Check a response": the answer (and the question it answers) is streamed through
   POST /v1/check-response/stream and drawn by a ResponseView; the check is kept in Recent checks, and a saved
   response verdict (Recent checks, the results viewer) is drawn the same way. */
import { readSSE, stream } from "../api.js";
import { byId, input } from "../dom.js";
import * as draft from "../draft.js";
import { count, onSubmit, pickMethod, requestBody, showError, thresholds, unfold } from "../form.js";
import * as history from "../history.js";
import { keptCalls } from "../share.js";
import * as page from "../state.js";
import { GuardView } from "./guard-view.js";
import { ResponseView } from "./response-view.js";

const view = new ResponseView(byId("response-live"));
view.onRetry = () => byId("submit").click(); // the answer is still in the form
/* The part of the answer past the claim limit, checked as a new check with the form's settings. */
view.onNextPart = (/** @type {string} */ text, /** @type {string} */ question) => {
  if (page.get().busy) return;
  unfold(false);
  input("response-text").value = text;
  input("response-question").value = question;
  count();
  byId("submit").click();
};
/** @type {Record<string, any> | null} what the shown check was asked with (its options, not its texts): a claim
    checked again alone is too, whatever the form shows by then */
let asked = null;
/** @type {number | null} the shown check's entry in Recent checks (its time), which a claim checked again updates */
let shownAt = null;

/** @param {Record<string, any>} body a check's request @returns {Record<string, any>} its options alone */
function optionsOf(body) {
  const { response: _r, question: _q, ...options } = body;
  return options;
}

/** A response verdict as Recent checks keeps it: its claims' verdicts without the settings the response's
    record holds once (the view copies them back when it draws them). @param {any} v */
function kept(v) {
  const copy = JSON.parse(JSON.stringify(v));
  (copy.claims || []).forEach((/** @type {any} */ c) => { if (c.verdict) c.verdict.config = {}; });
  return copy;
}

/* One claim of the shown check checked again alone (its row's Retry), through
   POST /v1/check-response/claim/stream, its events drawn as the check's own. A check the service keeps is
   named by its id: the service checks the claim with the options that check recorded and updates it, so its
   link shows the new verdict. One it does not keep is asked with the options it was asked with (a check
   reopened from Recent checks: those it recorded; only an entry older than them falls back on the form's).
   Either way its entry in Recent checks is updated. */
/** @param {import("./claim-row.js").ClaimRow} claim @param {Array<string | null>} labels */
view.onRetryClaim = async (claim, labels) => {
  const v = view.result || {};
  const id = view.checkId;
  const own = { response: String(v.response || view.text), ...(v.question ? { question: v.question } : {}),
    index: claim.index, claim: claim.text };
  const body = id ? { ...own, check_id: id } : { ...(asked || requestBody()), ...own, labels };
  let ended = false;
  let answered = false;
  try {
    const response = await stream("/v1/check-response/claim/stream", body, new AbortController().signal);
    await readSSE(response, (name, data) => {
      if (name === "result" || name === "error") ended = true;
      if (name === "result") answered = true;
      view.recheckEvent(name, data);
    });
    if (!ended) view.recheckFailed("the stream ended before the claim's verdict arrived");
  } catch (err) {
    view.recheckFailed(String(/** @type {Error} */ (err).message || err));
  }
  if (answered && view.result === v) {
    history.revise({ at: shownAt, id }, { label: v.label, decided_by: v.decided_by, verdict: kept(v) });
  }
};

onSubmit("response", async signal => {
  const text = input("response-text").value.trim();
  if (!text) { showError("Paste the answer to check."); return false; }
  const question = input("response-question").value.trim();
  const body = { ...requestBody(), response: text, ...(question ? { question } : {}) };
  asked = optionsOf(body);
  shownAt = null;
  let response;
  try {
    response = await stream("/v1/check-response/stream", body, signal);
  } catch (err) {
    // The answer stays in the box and the last check stays shown: nothing to redo but the fix.
    showError(String(/** @type {Error} */ (err).message || err));
    return false;
  }
  view.start(text, question, thresholds(body), true);
  let ended = false;
  let answered = false;
  try {
    await readSSE(response, (name, data) => {
      draft.arrived(name, data);
      if (name === "result" || name === "error") ended = true;
      if (name === "result") answered = true;
      if (name === "result") { // kept before the view adds each claim's settings to it
        shownAt = history.remember({ kind: "response", claim: String(data.response || "").slice(0, 300),
          label: data.label, decided_by: data.decided_by, verdict: data,
          check_ids: view.checkId ? [view.checkId] : [], options: asked || {} });
      }
      view.event(name, data);
    });
    if (!ended) view.stopped("The stream ended before the response's verdict arrived.", false);
  } catch (err) {
    const error = /** @type {Error} */ (err);
    const byUser = error.name === "AbortError";
    view.stopped(byUser ? "Stopped by you." : "The connection broke: " + String(error.message || error) + ".", byUser);
    return false;
  }
  return answered;
}, () => (view.checkId ? [view.checkId] : []));

/* After a reload mid-check: the claims and verdicts that had arrived, drawn as they were live, the rest marked
   as not finished. */
draft.onRestore("response", { show: kept => {
  const f = kept.form;
  view.start(String(f.response || "").trim(), String(f.question || "").trim(), thresholds(f.options || {}));
  byId("response-live").hidden = false;
  let ended = false;
  kept.events.forEach(([, name, data]) => {
    ended = ended || name === "result" || name === "error";
    view.event(name, data);
  });
  if (!ended) view.stopped("The page was reloaded before the response's verdict arrived: this is what had arrived.", true);
} });

history.onOpen("response", item => {
  if (page.get().busy === "response") { showError("A response is being checked: stop it or let it end to open a past one."); return false; }
  page.set({ mode: "response" });
  const v = item.verdict || {};
  input("response-text").value = String(v.response || "");
  input("response-question").value = v.question || "";
  pickMethod(v.method); // the form shows the method this check was made with
  count();
  const id = (item.check_ids || [])[0] || null;
  asked = item.options || null; // its claims are checked again as it was asked (a kept one: as the service kept it)
  shownAt = item.at || null; // a link's check has no entry of its own: one with its id is found by it
  view.show(v, id);
  byId("response-live").hidden = false;
  keptCalls(id).then(kept => view.keptCalls(kept)); // each claim's model calls, drawn under its debate as live
});

/* A chat reply's check (kind "guard", kept by the guard's routes) reopened by its link: drawn in the same place
   as a response's, by its own view (it has a verdict per claim, not a debate). */
const guardView = new GuardView(byId("response-live"));
guardView.onNextPart = view.onNextPart; // the part of the reply past the claim limit, as a response's
history.onOpen("guard", item => {
  if (page.get().busy === "response") { showError("A response is being checked: stop it or let it end to open a past one."); return false; }
  page.set({ mode: "response" });
  const v = item.verdict || {};
  input("response-text").value = String(v.original_text || "");
  // The question the reply was read with and the method its claims went up to, not the form's own (Tool-MAD and
  // an empty question under a chat reply's check); a check kept before they were said keeps the form's.
  input("response-question").value = String(v.question || "");
  pickMethod(v.method);
  count();
  guardView.show(v, (item.check_ids || [])[0] || null);
  byId("response-live").hidden = false;
});

/** @type {WeakMap<HTMLElement, ResponseView>} */
const saved = new WeakMap();
/** A saved response verdict drawn in `host` (the results viewer). @param {any} verdict @param {HTMLElement} host */
export function showSavedResponse(verdict, host) {
  const known = saved.get(host) || new ResponseView(host, host.id + "-debate");
  saved.set(host, known);
  known.show(verdict);
}
