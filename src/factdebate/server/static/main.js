// @ts-check
/* The page's entry: the API key and the server's status, the catalogue, the tabs. Each part of the page is
   a module of its own that registers what it draws (layouts, modes, Recent checks); this one starts them. */
import * as address from "./address.js";
import { MODEL_DOWN, errorText, headers } from "./api.js";
import "./claim.js";
import "./compare.js";
import { byId, input } from "./dom.js";
import { foldOver, hideError, showError, unfold } from "./form.js";
import * as history from "./history.js";
import "./layouts/debate.js";
import "./layouts/teams.js";
import "./layouts/timeline.js";
import "./response/response-form.js";
import "./results.js";
import { fetchChecks, itemOf, requestedChecks } from "./share.js";
import "./skip.js";
import * as page from "./state.js";
import "./sticky.js";
import { loadViews } from "./views.js";

const key = input("api-key");
key.value = page.get().key;
key.addEventListener("change", () => { page.set({ key: key.value.trim() }); loadCatalogue(); });
byId("key-form").addEventListener("submit", e => { e.preventDefault(); key.dispatchEvent(new Event("change")); });

/* A server run without keys (`serve --no-auth`) says so in its health (auth "off"): then the key box has no use
   and is not shown. (Asked of the health, which needs no key, not of the catalogue: that answered 401 in the
   console of every page load with a key.) */
async function checkHealth() {
  const dot = byId("server-status");
  try {
    const r = await fetch("/v1/health");
    const body = await r.json().catch(() => ({}));
    // What the service lists as down (a model server that refuses connections) counts: it answers, it cannot check.
    const down = Array.isArray(body.down) ? body.down.map(String) : [];
    dot.className = "dot " + (r.ok && !down.length ? "up" : "down");
    dot.title = down.length ? "down: " + down.join(", ") : r.ok ? "server is up" : "server answered " + r.status;
    byId("key-form").hidden = body.auth === "off";
  } catch (_) {
    dot.className = "dot down";
    dot.title = "server unreachable";
  }
}
document.addEventListener(MODEL_DOWN, () => { checkHealth(); });

/* The key the catalogue was (or is being) asked with. Enter in the key box fires both its change and the form's
   submit, and each load redraws the options at their defaults: a second answer for the same key, arriving
   after the person had set an option (or after a reload had put a draft back), undid it. */
/** @type {string | null} */
let catalogueFor = null;

async function loadCatalogue() {
  const asked = page.get().key;
  if (catalogueFor === asked) return;
  catalogueFor = asked;
  const r = await fetch("/v1/methods", { headers: headers() });
  if (!r.ok) {
    if (catalogueFor === asked) catalogueFor = null; // asked again with this key, it is tried again
    if (r.status === 401 && requestedChecks().ids.length) keyForLink(asked);
    else showError(r.status === 401 ? "Enter a valid API key (top right) to use this server." : await errorText(r));
    return;
  }
  hideError();
  page.set({ catalogue: await r.json() });
}

/* Tabs: the three modes of the check form, and the results viewer. */
document.querySelectorAll("button.tab").forEach(tab => tab.addEventListener("click", () => {
  const { view, mode } = /** @type {HTMLElement} */ (tab).dataset;
  document.querySelectorAll("button.tab").forEach(t => {
    t.classList.toggle("active", t === tab);
    t.setAttribute("aria-selected", String(t === tab));
  });
  document.querySelectorAll(".view").forEach(v => { /** @type {HTMLElement} */ (v).hidden = v.id !== "view-" + view; });
  if (view === "check") { hideError(); page.set({ mode: /** @type {import("./state.js").Mode} */ (mode || "claim") }); }
}));
page.subscribe((state, changed) => { // a mode chosen elsewhere (Recent checks) selects its tab
  if (!("mode" in changed)) return;
  document.querySelectorAll("button.tab[data-view=check]").forEach(t => {
    const on = (/** @type {HTMLElement} */ (t).dataset.mode || "claim") === state.mode;
    t.classList.toggle("active", on);
    t.setAttribute("aria-selected", String(on));
  });
  document.querySelectorAll(".view").forEach(v => { /** @type {HTMLElement} */ (v).hidden = v.id !== "view-check"; });
});

/* A link opened without the key the service kept its check(s) for (a person a link was sent to, a browser
   that never held the key): the form, whose choices come with the key, folds to a line that says a check is
   waiting, and the key box takes the focus; the check opens once a key is accepted. */
/** @param {string} key the key that was refused ("" when there was none) */
function keyForLink(key) {
  const { ids } = requestedChecks();
  const what = ids.length > 1 ? "a comparison of " + ids.length + " checks" : "a check";
  showError("This link opens " + what + " kept by the service for an API key. " + (key ?
    "The key in the box (top right) was not accepted: enter the key the check was made with to see it." :
    "Enter the API key (top right) it was made with to see it."));
  foldOver("A linked check is waiting for the API key: " + what + " kept by the service");
  /** @type {HTMLInputElement} */ (byId("api-key")).focus();
}

/* A link to kept checks (/?check=<id>[,<id>…]) draws them once the catalogue is in (after a key, if the
   server needs one), as Recent checks draws its items; so does Back or Forward to a result's address, from
   Recent checks when it holds them (no request), else from the service. */
let linkOpened = false;
/** @param {string[]} ids @param {boolean} [remembered] Recent checks may answer for them */
async function openChecks(ids, remembered) {
  const before = address.version();
  try {
    const item = (remembered && history.find(ids)) || itemOf(await fetchChecks(ids));
    if (address.version() !== before) return; // another check was opened or started meanwhile: it stays
    history.open(item); // the chatbot team's whole path: the check first, the form folded above it
  } catch (err) {
    unfold(false); // the line said a check was coming: the form is what there is
    showError(String(/** @type {Error} */ (err).message || err));
  }
}
async function openLinkedChecks() {
  const { ids, problem } = requestedChecks();
  if (problem) { showError(problem); return; }
  if (ids.length) await openChecks(ids);
}
// Back or Forward to the page before any result shows the form; to a result's address, that result.
address.onBack(ids => (ids.length ? openChecks(ids, true) : unfold(false)), showError);
page.subscribe((state, changed) => {
  if (!("catalogue" in changed) || !state.catalogue || linkOpened) return;
  linkOpened = true;
  openLinkedChecks();
});

checkHealth();
history.draw();
await loadViews(); // before the catalogue: the compare picks and every drawing read the methods' views
history.draw(); // again: each check's "how" in its method's words, now that the views are known
loadCatalogue();
if (location.hash === "#response") /** @type {HTMLElement} */ (document.querySelector("button.tab[data-mode=response]")).click();
if (location.hash === "#compare") /** @type {HTMLElement} */ (document.querySelector("button.tab[data-mode=compare]")).click();
