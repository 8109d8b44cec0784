// @ts-check
/* The passages a verdict rests on, shown with it (in the verdict box, and under each claim of a response)
   rather than only deep in the debate: those read by the agents whose answer the verdict took, in the last
   round that read any. */
import { el, safeUrl } from "./dom.js";
import { oneTabStop } from "./roving.js";

/** How many passages a verdict shows; the debate below has them all. */
export const MOST_PASSAGES = 4;
/** Characters of a passage shown before it is cut (the whole of it is in the debate). */
const PASSAGE_CHARS = 280;

/** Every passage a turn read: its own evidence and its steps' observations. @param {any} turn @returns {any[]} */
function read(turn) {
  return [...(turn.evidence || []), ...(turn.steps || []).flatMap((/** @type {any} */ s) => s.evidence || [])];
}

/**
 * The deciding passages of a verdict: walking back from the last round, the first round in which the turns
 * that said the verdict's label (every turn, when none carries a label) read any evidence; duplicates once.
 * @param {any} v @param {number} [most] passages to keep
 * @returns {{docs: any[], agents: string[], round: number | null, more: number}}
 */
export function decidingEvidence(v, most = MOST_PASSAGES) {
  const rounds = [...(v.rounds || [])].reverse();
  for (const r of rounds) {
    const turns = r.turns || [];
    const agreeing = turns.filter((/** @type {any} */ t) => t.label && t.label === v.label);
    const labelled = turns.some((/** @type {any} */ t) => t.label);
    const chosen = (agreeing.length ? agreeing : labelled && v.label ? [] : turns).filter((/** @type {any} */ t) => read(t).length);
    if (!chosen.length) continue;
    /** @type {Map<string, any>} */
    const seen = new Map();
    chosen.forEach((/** @type {any} */ t) => read(t).forEach(d => {
      const key = d.source || d.id || d.title;
      if (!seen.has(key)) seen.set(key, d);
    }));
    const docs = [...seen.values()];
    return { docs: docs.slice(0, most), agents: chosen.map((/** @type {any} */ t) => t.agent),
      round: r.round ?? null, more: Math.max(0, docs.length - most) };
  }
  return { docs: [], agents: [], round: null, more: 0 };
}

/** @param {string} text */
const clip = text => (text.length > PASSAGE_CHARS ? text.slice(0, PASSAGE_CHARS).replace(/\s+\S*$/, "") + "…" : text);

/**
 * The deciding passages as a list, each quoted with its source (a link when it is one); null when the
 * verdict read no evidence.
 * @param {any} v @param {boolean} [compact] a claim row's: two passages, no line of who read them
 * @returns {HTMLElement | null}
 */
export function evidenceBlock(v, compact) {
  const found = decidingEvidence(v, compact ? 2 : MOST_PASSAGES);
  if (!found.docs.length) return null;
  const box = el("div", "deciding-evidence");
  if (!compact) {
    box.append(el("p", "kicker", "evidence it rests on" + (found.agents.length ?
      " (read by " + found.agents.join(", ") + (found.round ? " in round " + found.round : "") + ")" : "")));
  }
  const list = el("ol", "passages");
  found.docs.forEach(doc => {
    const item = el("li", "passage");
    if (doc.text) item.append(el("q", "passage-text", clip(String(doc.text))));
    const source = el("span", "passage-source");
    const url = safeUrl(doc.source);
    if (url) {
      const link = el("a", "", doc.title || url);
      link.href = url;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      source.append("— ", link);
    } else {
      source.append("— " + (doc.title || doc.id || "untitled") + (doc.source ? " (" + doc.source + ")" : ""));
    }
    item.append(source);
    list.append(item);
  });
  box.append(oneTabStop(list, "Evidence"));
  if (found.more) box.append(el("p", "muted small more-passages", "and " + found.more + " more in the debate"));
  return box;
}
