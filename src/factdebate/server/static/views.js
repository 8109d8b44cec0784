// @ts-check
/* Which layout draws a method's verdict, as the method declares it (GET /v1/views, from methods/view.py in
   Python): the page names no method. Layouts register here; the words they need (roles, decision wording,
   sides, ballot dimensions, parts) come with the method's view. */
import { headers, keyedError } from "./api.js";
import { el } from "./dom.js";

/** @typedef {{title: string, statement?: boolean, part?: string | null}} RoleView */
/** @typedef {{event: string, title: string, rows?: string | null, columns: string[], lines: Record<string, string>, note: string}} PartView */
/** @typedef {{layout: string, roles: Record<string, RoleView>, agents: Record<string, string>,
 *   decisions: Record<string, string>, sides: Record<string, string>, ballot: Record<string, string>,
 *   votes: Record<string, string>, parts: PartView[], rounds: boolean, calls_by_step?: boolean}} MethodView */
/** @typedef {import("./verdict-view.js").VerdictView} VerdictView */
/** A layout: draws events and verdicts; `callHost` says which of its nodes holds an agent's model calls in a
 * round (calls.js), null where it draws none; `ended`, called when a run ends without its verdict (a failure, a
 * stop), takes away what it had opened and drawn nothing in (a turn that never answered), so that a run that
 * failed before any answer shows its failure, not an empty round.
 * @typedef {{event(name: string, ev: any): boolean, render(verdict: any): void,
 *   callHost?: (ev: any) => HTMLElement | null, ended?: () => void}} Layout */
/** @typedef {(shell: VerdictView, view: MethodView) => Layout} LayoutFactory */

/** @type {MethodView} what a method nobody declared (or none loaded yet) is drawn with */
export const GENERIC = { layout: "debate", roles: {}, agents: {}, decisions: {}, sides: {}, ballot: {}, votes: {},
  parts: [], rounds: true };

/** @type {Map<string, LayoutFactory>} */
const layouts = new Map();
/** @type {Record<string, MethodView>} */
let methods = {};
/** @type {Record<string, string>} */
let aliases = {};
/** @type {Record<string, string>} */
let rules = {};
/** @type {{models: string[], claim: string, response: string}} the embedded model's caution (llm/near_chance.py) */
let nearChance = { models: [], claim: "", response: "" };

/** The one way a layout makes itself known. @param {string} name @param {LayoutFactory} factory */
export function registerMethodView(name, factory) { layouts.set(name, factory); }

/** @param {string} name */
export function layout(name) { return layouts.get(name) || layouts.get("debate"); }

/** @param {string | null | undefined} method @returns {MethodView} */
export function viewOf(method) { return methods[method || ""] || GENERIC; }

/** Loads every method's view and the labels' other spellings (needs no key). */
export async function loadViews() {
  const r = await fetch("/v1/views");
  if (!r.ok) return;
  const body = await r.json();
  methods = body.methods || {};
  aliases = body.label_aliases || {};
  rules = body.response_rules || {};
  nearChance = body.near_chance || nearChance;
}

/**
 * The service's caution when the embedded model, which answers near chance, answered for this verdict (a
 * model of its usage_by_model); null for any other model.
 * @param {any} v a claim's verdict or a response's @param {"claim" | "response"} kind
 * @returns {string | null}
 */
export function nearChanceNote(v, kind) {
  return modelsOf(v).some(m => nearChance.models.includes(m)) ? nearChance[kind] || null : null;
}

/** The models that answered for a verdict: a claim's or a response's usage_by_model, a guard check's models.
 * @param {any} v @returns {string[]} */
export function modelsOf(v) {
  return [...new Set([...Object.keys((v && v.usage_by_model) || {}), ...((v && v.models) || [])])].sort();
}

/** The warning codes that are about the model that answered (llm/near_chance.py), said as notes, not warnings. */
export const MODEL_CODES = ["embedded_model", "offline_model", "scripted_model"];

/**
 * Under a verdict's label: the caution when its labels are no finding (the embedded model's
 * near-chance note; a script's, from its `scripted_model` warning), or the offline model's measured statement
 * (its `offline_model` warning), then which model decided it.
 * @param {any} v a claim's verdict, a response's or a guard check's @param {"claim" | "response"} kind
 * @returns {HTMLElement[]}
 */
export function modelNotes(v, kind) {
  const models = modelsOf(v);
  /** @type {HTMLElement[]} */
  const out = cautions([v], kind).map(text => el("p", "near-chance", text));
  if (models.length) out.push(el("p", "verdict-model muted small", (models.length === 1 ? "Decided with the model " :
    "Decided with the models ") + models.join(", ")));
  return out;
}

/**
 * The cautions of these verdicts, each said once however many of them carry it (a comparison's methods all
 * answered by one script): the embedded model's near-chance note, a script's note from its `scripted_model`
 * warning, the offline model's from its `offline_model` warning. @param {any[]} verdicts
 * @param {"claim" | "response"} kind @returns {string[]}
 */
export function cautions(verdicts, kind) {
  /** @type {Set<string>} */
  const out = new Set();
  verdicts.forEach(v => {
    const near = nearChanceNote(v, kind);
    if (near) out.add(near);
    ((v && v.warnings) || []).forEach((/** @type {any} */ w) => {
      if (w && (w.code === "scripted_model" || w.code === "offline_model")) out.add("note: " + w.message + ".");
    });
  });
  return [...out];
}

/**
 * The models of these verdicts and, in a few words, why their labels are no finding, for a line where the
 * whole caution does not fit (Recent checks); null when no model is known.
 * @param {any[]} verdicts @returns {string | null}
 */
export function modelLine(verdicts) {
  const models = [...new Set(verdicts.flatMap(modelsOf))].sort();
  if (!models.length) return null;
  const scripted = verdicts.some(v => ((v && v.warnings) || []).some((/** @type {any} */ w) =>
    w && w.code === "scripted_model")) || models.some(m => m.startsWith("scripted:"));
  const near = models.some(m => nearChance.models.includes(m));
  const offline = verdicts.some(v => ((v && v.warnings) || []).some((/** @type {any} */ w) =>
    w && w.code === "offline_model"));
  const why = near ? "answers near chance: no finding about the claim" : scripted ?
    "a script, not a model: no finding about the claim" : offline ? "a small offline model: read its note" : "";
  return (models.length === 1 ? "model " : "models ") + models.join(", ") + (why ? " · " + why : "");
}

/** A warning's sentence (an older record's warnings are plain sentences). @param {any} w @returns {string} */
export function warningText(w) { return typeof w === "string" ? w : String((w && w.message) || ""); }

/**
 * A method in words from its catalogue description: its readable name (what comes before the description's
 * first colon, as its paper names it; else its code name) and what it is (the rest).
 * @param {{name: string, description: string}} method @returns {{title: string, about: string}}
 */
export function methodWords(method) {
  const colon = method.description.indexOf(": ");
  if (colon < 0) return { title: method.name, about: method.description };
  return { title: method.description.slice(0, colon), about: method.description.slice(colon + 2) };
}

/**
 * How a response's label was reached (its rule, in response_level's words). Over an answer checked only in part
 * the rule speaks for the claims checked, not the whole: "every claim is supported" under "12 of 272 sentences
 * checked" read as if the other 260 were.
 * @param {string} rule @param {boolean} [partly] some of the answer's sentences were not checked
 */
export function responseRule(rule, partly) {
  if (partly && rule === "all-true") return "every claim checked is supported; the rest was not checked";
  return rules[rule] || rule;
}

/** A label however a file spells it ("TRUE", "nei"), or the text as it is. @param {unknown} value */
export function normLabel(value) {
  if (value === null || value === undefined) return null;
  const up = String(value).trim().toUpperCase();
  return aliases[up.replace(/\s+/g, "_")] || up;
}

/**
 * How the verdict was reached in its method's words: a template of methods/view.py, filled as there.
 * @param {MethodView} view @param {any} v
 */
export function describe(view, v) {
  // A code the method's view does not name: a response's rule (a results file of responses), else its words.
  const code = String(v.decided_by || "");
  const template = view.decisions[code] || rules[code] || code.replace(/[-_]+/g, " ");
  const rounds = (v.rounds || []).length;
  const steps = (v.rounds || []).reduce((/** @type {number} */ n, /** @type {any} */ r) =>
    n + (r.turns || []).reduce((/** @type {number} */ m, /** @type {any} */ t) => m + (t.steps || []).length, 0), 0);
  /** @type {Record<string, string>} */
  const values = { round: String(rounds ? v.rounds[rounds - 1].round : 0),
    rounds: rounds + " round" + (rounds === 1 ? "" : "s"), steps: steps + " step" + (steps === 1 ? "" : "s"),
    consensus: v.consensus === null || v.consensus === undefined ? "n/a" : Number(v.consensus).toFixed(2) };
  return template.replace(/\{(round|rounds|steps|consensus)\}/g, (/** @type {string} */ _, /** @type {string} */ key) => values[key]);
}

/**
 * Records of an older schema (no schema_version) brought to the current one by the server, which owns the
 * upgrade (core/schema.py); the others are returned as they are.
 * @param {any[]} records
 */
export async function upgraded(records) {
  /** @param {any} r a claim's verdict written before schema 2: rounds and a decision, no version */
  const old = r => r && typeof r === "object" && !("schema_version" in r) && Array.isArray(r.rounds) && "decided_by" in r;
  if (!records.some(old)) return records;
  const r = await fetch("/v1/verdicts/upgrade", { method: "POST", body: JSON.stringify({ records }),
    headers: headers({ "Content-Type": "application/json" }) });
  if (!r.ok) throw new Error("This file was written by an older factdebate; the server reads it for the page: " +
    await keyedError(r));
  return (await r.json()).records;
}
