// @ts-check
/* The page's address follows the result it shows: a finished check the service keeps, or one reopened from
   Recent checks, is at its link (/?check=<id>, /?check=<id>,<id>… for a comparison), so a reload draws it
   again, the address can be copied as it is, and Back and Forward walk the results in the order they were
   shown. A new check starts a new entry of the tab's history (Back returns to the result shown before it),
   which becomes its link once it ends with a kept verdict; a tab of the form, chosen, puts its own result's
   address in place of the last one (the tabs are no navigation). Nothing here draws: what Back or Forward
   reaches is drawn by the page's `onBack`. */
import { requestedChecks } from "./share.js";
import * as page from "./state.js";

/** @typedef {import("./state.js").Mode} Mode */

/** @type {Partial<Record<Mode, string[]>>} the ids of the result each mode shows ([]: none, or one not kept) */
const shownIds = {};
/** @type {(ids: string[]) => Promise<void> | void} draws what Back or Forward reached */
let opener = () => undefined;
/** @type {(message: string) => void} says why Back did not leave a running check */
let refuse = () => undefined;
let opening = false; // drawing what Back or Forward reached: its entry is there already
let changes = 0; // results shown and checks started, so a check fetched meanwhile knows it came too late

/** @param {string[]} a @param {string[]} b */
const same = (a, b) => a.join(",") === b.join(",");

/** The address of a mode with no kept result on it: the page, with the tab named after `#` (main.js opens it).
 * @param {Mode} mode */
function base(mode) { return location.pathname + (mode === "claim" ? "" : "#" + mode); }

/** @param {Mode} mode @param {string[]} ids */
function urlOf(mode, ids) { return ids.length ? location.pathname + "?check=" + ids.join(",") : base(mode); }

/** The result the current entry of the tab's history stands for: the ids its state holds (a tab of the form
 * chosen since changed its address, not what it stands for), else those its address names (an address typed
 * or opened as a link has no state). @returns {string[]} */
function entryIds() {
  const state = window.history.state;
  return state && Array.isArray(state.ids) ? state.ids : requestedChecks().ids;
}

/** The address of the visible tab's result, the entry's state as it is. */
function showVisible() {
  const mode = page.get().mode;
  const url = urlOf(mode, shownIds[mode] || []);
  if (location.pathname + location.search + location.hash !== url) window.history.replaceState(window.history.state, "", url);
}

/** What draws the checks Back or Forward reached (none: the page as it was before any), and what says why a
 * running check keeps the page where it is. @param {(ids: string[]) => Promise<void> | void} open
 * @param {(message: string) => void} busy */
export function onBack(open, busy) { opener = open; refuse = busy; }

/** How many results were shown and checks started so far: a check that arrives after the page moved on (a
 * person opened another from Recent checks while a link's was fetched) is not drawn over it. */
export function version() { return changes; }

/** A check starts in `mode`: the result shown until now keeps its entry, for Back. @param {Mode} mode */
export function started(mode) {
  changes += 1;
  shownIds[mode] = [];
  if (entryIds().length) window.history.pushState({ ids: [] }, "", base(mode));
  else showVisible();
}

/**
 * `mode` shows a result now, kept by the service under `ids` ([]: a failure, or a check not kept). The current
 * entry stands for it when it stood for none (the run's own entry, a page just opened); a new entry does when
 * it stood for another. The address is its link while its tab is the one shown.
 * @param {Mode} mode @param {string[]} ids
 */
export function shown(mode, ids) {
  changes += 1;
  shownIds[mode] = ids;
  if (opening) return;
  const now = entryIds();
  const url = page.get().mode === mode ? urlOf(mode, ids) : location.href;
  if (now.length && !same(now, ids)) window.history.pushState({ ids }, "", url);
  else window.history.replaceState({ ids }, "", url);
}

page.subscribe((_, changed) => { if ("mode" in changed && !opening) showVisible(); });

window.addEventListener("popstate", () => {
  const ids = entryIds();
  const mode = page.get().mode;
  if (same(ids, shownIds[mode] || [])) return; // a link within the page (#claim-form): the result shown
  const busy = page.get().busy;
  if (busy) { // the check would be left behind, still running: the page stays on the check's entry
    window.history.pushState({ ids: [] }, "", urlOf(busy, []));
    refuse("A check is running: stop it, or let it end, before going back to an earlier one.");
    return;
  }
  if (!ids.length) shownIds[mode] = []; // the page before any result: what it shows is no longer its address
  opening = true;
  Promise.resolve(opener(ids)).finally(() => {
    opening = false;
    showVisible();
  });
});
