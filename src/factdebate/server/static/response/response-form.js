// @ts-check
/* "Check a response": the answer (and the question it answers) is streamed through
   POST /v1/check-response/stream and drawn by a ResponseView; the check is kept in Recent checks, and a saved
   response verdict (Recent checks, the results viewer) is drawn the same way. */
import { readSSE, stream } from "../api.js";
import { byId, input } from "../dom.js";
import { count, onSubmit, requestBody, showError, thresholds } from "../form.js";
import * as history from "../history.js";
import { keptCalls } from "../share.js";
import * as page from "../state.js";
import { GuardView } from "./guard-view.js";
import { ResponseView } from "./response-view.js";

const view = new ResponseView(byId("response-live"));
view.onRetry = () => byId("submit").click(); // the answer is still in the form
/** @type {Record<string, any> | null} what the shown check was asked with: a claim checked again alone is too */
let asked = null;

/* One claim of the shown check checked again alone (its row's Retry), through
   POST /v1/check-response/claim/stream: with the options the check was asked with (a check reopened from
   Recent checks: the form's), its events drawn as the check's own. */
/** @param {import("./claim-row.js").ClaimRow} claim @param {Array<string | null>} labels */
view.onRetryClaim = async (claim, labels) => {
  const v = view.result || {};
  const body = { ...(asked || requestBody()), response: String(v.response || view.text),
    ...(v.question ? { question: v.question } : {}), index: claim.index, claim: claim.text, labels };
  let ended = false;
  try {
    const response = await stream("/v1/check-response/claim/stream", body, new AbortController().signal);
    await readSSE(response, (name, data) => {
      if (name === "result" || name === "error") ended = true;
      view.recheckEvent(name, data);
    });
    if (!ended) view.recheckFailed("the stream ended before the claim's verdict arrived");
  } catch (err) {
    view.recheckFailed(String(/** @type {Error} */ (err).message || err));
  }
};

onSubmit("response", async signal => {
  const text = input("response-text").value.trim();
  if (!text) { showError("Paste the answer to check."); return; }
  const question = input("response-question").value.trim();
  const body = { ...requestBody(), response: text, ...(question ? { question } : {}) };
  asked = body;
  let response;
  try {
    response = await stream("/v1/check-response/stream", body, signal);
  } catch (err) {
    // The answer stays in the box and the last check stays shown: nothing to redo but the fix.
    showError(String(/** @type {Error} */ (err).message || err));
    return;
  }
  view.start(text, question, thresholds(body), true);
  let ended = false;
  try {
    await readSSE(response, (name, data) => {
      if (name === "result" || name === "error") ended = true;
      if (name === "result") { // kept before the view adds each claim's settings to it
        history.remember({ kind: "response", claim: String(data.response || "").slice(0, 300), label: data.label,
          decided_by: data.decided_by, verdict: data, check_ids: view.checkId ? [view.checkId] : [] });
      }
      view.event(name, data);
    });
    if (!ended) view.stopped("The stream ended before the response's verdict arrived.", false);
  } catch (err) {
    const error = /** @type {Error} */ (err);
    const byUser = error.name === "AbortError";
    view.stopped(byUser ? "Stopped by you." : "The connection broke: " + String(error.message || error) + ".", byUser);
  }
});

history.onOpen("response", item => {
  if (page.get().busy === "response") { showError("A response is being checked: stop it or let it end to open a past one."); return; }
  page.set({ mode: "response" });
  const v = item.verdict || {};
  input("response-text").value = String(v.response || "");
  input("response-question").value = v.question || "";
  count();
  const id = (item.check_ids || [])[0] || null;
  asked = null; // its claims are checked again with the form's options
  view.show(v, id);
  byId("response-live").hidden = false;
  keptCalls(id).then(kept => view.keptCalls(kept)); // each claim's model calls, drawn under its debate as live
});

/* A chat reply's check (kind "guard", kept by the guard's routes) reopened by its link: drawn in the same place
   as a response's, by its own view (it has a verdict per claim, not a debate). */
const guardView = new GuardView(byId("response-live"));
history.onOpen("guard", item => {
  if (page.get().busy === "response") { showError("A response is being checked: stop it or let it end to open a past one."); return; }
  page.set({ mode: "response" });
  const v = item.verdict || {};
  input("response-text").value = String(v.original_text || "");
  input("response-question").value = "";
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
