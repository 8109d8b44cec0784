// @ts-check
/* Recent checks: the last verdicts (a claim's, a whole response's, a comparison's), kept in the browser. */
import * as address from "./address.js";
import { byId, el, labelChip } from "./dom.js";
import { showResult, unfold } from "./form.js";
import * as page from "./state.js";
import { describe, modelLine, responseRule, viewOf } from "./views.js";

const STORE = "factdebate.history";
const MAX = 25;
/** @typedef {{at: number, kind: "claim" | "response" | "compare" | "guard", claim: string, label: string | null,
 *   decided_by: string, verdict?: any, verdicts?: any[], check_ids?: string[], options?: Record<string, any>}} Item
 *  `options`: what a response check was asked with, for a claim of it checked again once reopened. */
/** @type {Record<string, (item: Item) => boolean | void>} what opens an item of each kind (false: it did not, a
 * check of its kind being under way) */
const openers = {};

/** @returns {Item[]} */
function load() {
  try { return JSON.parse(localStorage.getItem(STORE) || "[]"); } catch (_) { return []; }
}

/** Verdicts can be large: on a full quota, drop the oldest entries until it fits. @param {Item[]} items */
function save(items) {
  while (items.length) {
    try { localStorage.setItem(STORE, JSON.stringify(items)); return; } catch (_) { items.pop(); }
  }
  localStorage.removeItem(STORE);
}

/** @param {Item["kind"]} kind @param {(item: Item) => boolean | void} open */
export function onOpen(kind, open) { openers[kind] = open; }

/** Draws a check as its kind does (a Recent check, or one a link reopened), and shows it as a finished run's
 * result is: the form folded to a line naming this check, the result in view, the focus on its heading.
 * @param {Omit<Item, "at">} item */
export function open(item) {
  // The form is filled with the check's own text and method first: a line folded over an earlier result would
  // name that one, so it opens, and folds again below over this one.
  unfold(false);
  const opened = (openers[item.kind || "claim"] || (() => false))(/** @type {Item} */ (item));
  if (opened === false) return; // a check of its kind is running: the form and what it shows stay
  address.shown(page.get().mode, item.check_ids || []); // its link is the page's address
  showResult();
}

/** The remembered check kept by the service under exactly these ids, or null. @param {string[]} ids
 * @returns {Item | null} */
export function find(ids) {
  const key = ids.join(",");
  return load().find(item => (item.check_ids || []).join(",") === key) || null;
}

/** @param {Omit<Item, "at">} entry @returns {number} its time, which names it to `revise` */
export function remember(entry) {
  const at = Date.now();
  save([{ at, ...entry }, ...load()].slice(0, MAX));
  draw();
  return at;
}

/**
 * The remembered check(s) that `which` names (by the time it was remembered, or by the service's id for it)
 * changed as `changes` say: a claim of a response checked again alone, so that reopening it shows it so.
 * @param {{at?: number | null, id?: string | null}} which @param {Partial<Item>} changes
 */
export function revise(which, changes) {
  const items = load();
  const named = (/** @type {Item} */ item) => Boolean((which.at && item.at === which.at) ||
    (which.id && (item.check_ids || []).includes(which.id)));
  if (!items.some(named)) return;
  save(items.map(item => (named(item) ? { ...item, ...changes } : item)));
  draw();
}

/** Whether a response's check left some of its sentences unchecked (its rule then speaks for the claims checked).
 * @param {any} v */
const partlyChecked = v => Array.isArray(v.unchecked) && v.unchecked.length > 0;

/** @param {Item} item */
function meta(item) {
  const when = new Date(item.at).toLocaleString();
  if (item.kind === "response") {
    const checks = (item.verdict || {}).claims || [];
    const claims = checks.length;
    // In the words the check's own page used: "checking every claim failed", not the rule's.
    const failed = claims > 0 && checks.every((/** @type {any} */ c) => c.error && !c.label);
    return when + " · " + claims + (claims === 1 ? " claim" : " claims") + " · " +
      (failed ? "checking every claim failed" : responseRule(item.decided_by, partlyChecked(item.verdict || {})));
  }
  if (item.kind === "compare") return when + " · " + (item.verdicts || []).map(v => v.method).join(", ");
  // How it was decided in the method's words ("the judge, after 3 rounds without consensus"), not its code.
  const verdict = item.verdict || { decided_by: item.decided_by };
  return when + " · " + (item.decided_by ? describe(viewOf(verdict.method || ""), verdict) : "");
}

export function draw() {
  const items = load();
  const list = byId("history");
  list.replaceChildren();
  byId("history-empty").hidden = items.length > 0;
  items.forEach(item => {
    const btn = el("button", "history-item");
    btn.type = "button";
    btn.dataset.kind = item.kind || "claim";
    if (item.kind !== "claim") btn.append(el("span", "history-kind", item.kind === "compare" ? "compared" :
      item.kind === "guard" ? "chat reply" : "response"));
    if (item.kind === "compare") {
      const chips = el("span", "history-chips");
      (item.verdicts || []).forEach(v => { // which method said what, not a row of bare labels
        const chip = el("span", "history-method");
        chip.append(el("span", "history-method-name", v.method), labelChip(v.label));
        chips.append(chip);
      });
      btn.append(chips);
    } else btn.append(labelChip(item.label));
    btn.append(el("span", "history-claim", item.claim), el("span", "history-meta", meta(item)));
    // Which model gave these labels and, when they are no finding (a script, the embedded model), that too:
    // a bare SUPPORTS in the list read as a finding the check itself cautions against.
    const model = modelLine(item.kind === "compare" ? item.verdicts || [] : item.verdict ? [item.verdict] : []);
    if (model) btn.append(el("span", "history-model", model));
    btn.addEventListener("click", () => open(item));
    const li = el("li");
    li.append(btn);
    list.append(li);
  });
}

byId("clear-history").addEventListener("click", () => { localStorage.removeItem(STORE); draw(); });
