// @ts-check
/* The page's entry: the API key and the server's status, the catalogue, the tabs. Each part of the page is
   a module of its own that registers what it draws (layouts, modes, Recent checks); this one starts them. */
import { errorText, headers } from "./api.js";
import "./claim.js";
import "./compare.js";
import { byId, input } from "./dom.js";
import { hideError, showError, showResult } from "./form.js";
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
   console of every page load with a key, issue 60.) */
async function checkHealth() {
  const dot = byId("server-status");
  try {
    const r = await fetch("/v1/health");
    dot.className = "dot " + (r.ok ? "up" : "down");
    dot.title = r.ok ? "server is up" : "server answered " + r.status;
    const body = await r.json().catch(() => ({}));
    byId("key-form").hidden = body.auth === "off";
  } catch (_) {
    dot.className = "dot down";
    dot.title = "server unreachable";
  }
}

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
    showError(r.status === 401 ? "Enter a valid API key (top right) to use this server." : await errorText(r));
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

/* A link to kept checks (/?check=<id>[,<id>…]) draws them once the catalogue is in (after a key, if the
   server needs one), as Recent checks draws its items. */
let linkOpened = false;
async function openLinkedChecks() {
  const { ids, problem } = requestedChecks();
  if (problem) { showError(problem); return; }
  if (!ids.length) return;
  try {
    history.open(itemOf(await fetchChecks(ids)));
    showResult(); // the chatbot team's whole path: the check first, the form folded above it (issue 60)
  } catch (err) {
    showError(String(/** @type {Error} */ (err).message || err));
  }
}
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
