// @ts-check
/* "Check a claim": the claim is streamed through POST /v1/verify/stream and drawn live by its method's view;
   the verdict is kept in Recent checks, from where it is drawn again. */
import { failureText, readSSE, stream } from "./api.js";
import { byId, input } from "./dom.js";
import * as draft from "./draft.js";
import { count, onSubmit, pickMethod, requestBody, showError, thresholds } from "./form.js";
import * as history from "./history.js";
import { keptCalls } from "./share.js";
import * as page from "./state.js";
import { VerdictView } from "./verdict-view.js";

const live = new VerdictView(byId("live"));

onSubmit("claim", async signal => {
  /** @type {Record<string, any>} */
  const body = { claim: input("claim").value.trim(), ...requestBody() };
  if (!body.claim) { showError("Type a claim to check."); return false; }
  live.start(body.claim, body.method, thresholds(body), true); // the last verdict goes at once
  let response;
  try {
    response = await stream("/v1/verify/stream", body, signal);
  } catch (err) {
    const error = /** @type {Error} */ (err);
    if (error.name === "AbortError") live.error("stopped before the server answered", { byUser: true });
    else { live.clear(); showError(String(error.message || error)); }
    return false;
  }
  /** @type {any} */
  let verdict = null;
  let failed = false;
  try {
    await readSSE(response, (name, data) => {
      draft.arrived(name, data);
      const ended = feed(name, data);
      if (ended === "result") verdict = data;
      if (ended === "error") failed = true;
    });
    if (verdict) history.remember({ kind: "claim", claim: verdict.claim, label: verdict.label,
      decided_by: verdict.decided_by, verdict, check_ids: live.checkId ? [live.checkId] : [] });
    else if (!failed) live.error("the stream ended before a verdict arrived", { retry });
  } catch (err) {
    const error = /** @type {Error} */ (err);
    if (error.name === "AbortError") live.error("stopped by you", { byUser: true, retry });
    else live.error("the connection broke: " + String(error.message || error), { retry });
    return false;
  }
  return Boolean(verdict) && !verdict.error; // a verdict that carries its error is drawn as a failure
}, () => (live.checkId ? [live.checkId] : []));

/** One event of the stream drawn; "result" or "error" when it ended the check. @param {string} name @param {any} data */
function feed(name, data) {
  if (live.event(name, data)) return null; // turns, steps, scores, judgements, a method's own parts
  if (name === "result") { live.render(data); return name; }
  if (name === "error") { live.error(failureText(data), { retry }); return name; }
  return null;
}

/** The same check again, from the form as it stands (the claim is still in it). */
function retry() { byId("submit").click(); }

/* After a reload mid-check: what had arrived, drawn as it was live, and said to be all there is. */
draft.onRestore("claim", { show: kept => {
  live.start(String(kept.form.claim || "").trim(), kept.form.method, thresholds(kept.form.options || {}));
  const ended = kept.events.map(([, name, data]) => feed(name, data)).some(e => e !== null);
  if (!ended) live.error("the page was reloaded before the verdict arrived; above is what had arrived by then",
    { byUser: true });
} });

history.onOpen("claim", item => {
  // Not over a running check: it would be drawn over the live one, which goes on feeding the view, and the form
  // with its Stop would fold away under it.
  if (page.get().busy === "claim") { showError("A claim is being checked: stop it or let it end to open a past one."); return false; }
  page.set({ mode: "claim" });
  input("claim").value = item.claim;
  pickMethod((item.verdict || {}).method); // the form shows the method this check was made with
  count();
  const id = (item.check_ids || [])[0] || null;
  live.render(item.verdict, id);
  keptCalls(id).then(kept => live.keptCalls(kept)); // the model calls kept with it, drawn as they were live
});
