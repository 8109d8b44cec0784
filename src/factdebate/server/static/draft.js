// @ts-check
/* A running check kept in the tab: what the form held (the texts, the method, its options) and
   every event the stream had sent, in the tab's sessionStorage until the check ends. The service stops a
   check whose page went away, so after a reload it cannot be resumed: the page offers to show what had
   arrived, drawn by the mode's own view, or to run it again with the form as it was. */
import { byId, el } from "./dom.js";

const STORE = "factdebate.draft";
const EVERY_MS = 500; // how often at most the events are written while they arrive (and once more on leaving)

/** @typedef {import("./state.js").Mode} Mode */
/** @typedef {{mode: Mode, form: Record<string, any>, extra: Record<string, any>, events: Array<[string, string, any]>,
 *   lost?: boolean}} Draft
 *  `form`: the check form's fields; `extra`: what the mode asked besides (a comparison's methods); `events`:
 *  [stream, name, data] in the order they came (stream: "" or a compared method); `lost`: too large to keep. */
/** @typedef {{form?: (draft: Draft) => void, show: (draft: Draft) => void}} Restorer
 *  `form`: puts the mode's own fields back; `show`: draws the events that had arrived, as the live check did. */

/** @type {Draft | null} */
let current = null;
/** @type {ReturnType<typeof setTimeout> | null} */
let pending = null;
let leaving = false; // the page is going away: a check that ends now ends because of that, and stays kept
/** @type {Partial<Record<Mode, Restorer>>} */
const restorers = {};

function save() {
  pending = null;
  if (!current) return;
  try {
    sessionStorage.setItem(STORE, JSON.stringify(current));
  } catch (_) { // too large for the tab's storage: the form is kept, what had arrived is not
    try { sessionStorage.setItem(STORE, JSON.stringify({ ...current, events: [], lost: true })); } catch (__) { /* off */ }
  }
}

/** A check starts. @param {Mode} mode @param {Record<string, any>} form */
export function begin(mode, form) {
  current = { mode, form, extra: {}, events: [] };
  save();
}

/** What the mode asked besides the form (kept with it). @param {Record<string, any>} extra */
export function extend(extra) {
  if (!current) return;
  Object.assign(current.extra, extra);
  save();
}

/** One event of the running check's stream. @param {string} name @param {any} data @param {string} [stream] */
export function arrived(name, data, stream) {
  if (!current) return;
  current.events.push([stream || "", name, data]);
  if (!pending) pending = setTimeout(save, EVERY_MS);
}

/** The check ended here (its verdict, a failure, Stop): nothing to offer after a reload. */
export function end() {
  if (leaving) return;
  current = null;
  if (pending) clearTimeout(pending);
  pending = null;
  try { sessionStorage.removeItem(STORE); } catch (_) { /* nothing kept */ }
}

window.addEventListener("pagehide", () => {
  leaving = true;
  if (current) save();
});
window.addEventListener("pageshow", () => { leaving = false; }); // back from the cache: this page lives on

/** How a mode puts its draft back. @param {Mode} mode @param {Restorer} restorer */
export function onRestore(mode, restorer) { restorers[mode] = restorer; }

/** The draft of a check this tab was running when it was reloaded (taken: offered once), or null. @returns {Draft | null} */
export function take() {
  /** @type {Draft | null} */
  let draft = null;
  try {
    draft = JSON.parse(sessionStorage.getItem(STORE) || "null");
    sessionStorage.removeItem(STORE);
  } catch (_) { return null; }
  if (!draft || typeof draft !== "object" || !draft.form || !Array.isArray(draft.events)) return null;
  draft.extra = draft.extra || {};
  return draft;
}

const WHAT = { claim: "a claim", response: "a response", compare: "a comparison" };
const HOST = { claim: "live", response: "response-live", compare: "compare-live" };

/**
 * What had arrived, drawn below the form, is brought into view with the focus on its heading: it was drawn
 * off the screen while the focus stayed in the note above. @param {Mode} mode
 */
function shownBelow(mode) {
  const host = byId(HOST[mode]);
  const heading = /** @type {HTMLElement | null} */ (host.querySelector("h2"));
  if (heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  /** @type {HTMLElement} */ ((heading && heading.closest(".card")) || host).scrollIntoView({ block: "start" });
}

/**
 * Puts the mode's own fields back and says what happened, with the two ways on: show what had arrived, or
 * run the check again with the form as it is now.
 * @param {Draft} draft
 */
export function offer(draft) {
  const restorer = restorers[draft.mode];
  if (restorer && restorer.form) restorer.form(draft);
  const shown = draft.events.length > 0 && restorer !== undefined;
  const text = el("p", "", "The page was reloaded while " + WHAT[draft.mode] + " was being checked, and the server " +
    "stopped that check. What the form held is back, " + (draft.mode === "compare" ? "the methods ticked and their " +
    "settings too. " : "its method and options too. ") + (draft.lost ?
    "What had arrived was too large to keep in this tab: run it again to see it." : shown ?
    "You can show what had arrived before the reload (" + draft.events.length + " event" +
    (draft.events.length === 1 ? "" : "s") + "), or run it again." : "Nothing had arrived yet: run it again."));
  const again = el("button", "secondary restored-again", "Run it again");
  again.type = "button";
  again.addEventListener("click", () => byId("submit").click());
  const actions = el("div", "restored-actions");
  if (shown && restorer) {
    const show = el("button", "secondary restored-show", "Show what had arrived");
    show.type = "button";
    show.addEventListener("click", () => {
      restorer.show(draft);
      show.remove();
      shownBelow(draft.mode);
    });
    actions.append(show);
  }
  actions.append(again);
  const note = byId("restored-note");
  note.replaceChildren(text, actions);
  note.hidden = false;
  // It ends the form, so it is scrolled to: on a phone, or under Compare's picks, it is below the first screen.
  note.scrollIntoView({ block: "nearest" });
}
