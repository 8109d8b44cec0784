// @ts-check
/* The passages a verdict rests on, shown with it (in the verdict box, and under each claim of a response)
   rather than only deep in the debate: those the deciding answer cited (reason.js), apart from those read
   without being cited, which stay folded; each passage once. */
import { el, safeUrl } from "./dom.js";
import { reasonText, verdictReason } from "./reason.js";
import { oneTabStop } from "./roving.js";
import { listText } from "./why.js";

/** How many cited passages a verdict shows; the debate below has them all. */
export const MOST_PASSAGES = 4;
/** How many passages read but not cited the fold lists. */
const MOST_READ = 8;
/** Characters of a passage shown before it is cut (the whole of it is in the debate). */
const PASSAGE_CHARS = 280;

/** @param {string} text */
const clip = text => (text.length > PASSAGE_CHARS ? text.slice(0, PASSAGE_CHARS).replace(/\s+\S*$/, "") + "…" : text);

/** Where a passage came from: a link when it is one. @param {any} doc */
export function sourceNode(doc) {
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
  return source;
}

/** Passages as a list, each quoted with its source. @param {any[]} docs @param {string} name for a screen reader */
function passageList(docs, name) {
  const list = el("ol", "passages");
  docs.forEach(doc => {
    const item = el("li", "passage");
    if (doc.text) item.append(el("q", "passage-text", clip(String(doc.text))));
    item.append(sourceNode(doc));
    list.append(item);
  });
  return oneTabStop(list, name);
}

/**
 * The passages the deciding answer cited, as a list with their sources, then those read but not cited,
 * folded; null when the verdict read no evidence.
 * @param {any} v @param {boolean} [compact] a claim row's: two cited passages, no line of who cited them
 * @param {import("./reason.js").Reason | null} [reason] the verdict's reason, when the caller has it
 * @returns {HTMLElement | null}
 */
export function evidenceBlock(v, compact, reason) {
  const r = reason === undefined ? verdictReason(v) : reason;
  if (!r || (!r.cited.length && !r.read.length)) return null;
  const box = el("div", "deciding-evidence");
  const most = compact ? 2 : MOST_PASSAGES;
  if (r.cited.length) {
    if (!compact) {
      box.append(el("p", "kicker", "cited by " + listText(r.citing) + (r.round ? " in round " + r.round : "")));
    }
    box.append(passageList(r.cited.slice(0, most), "Passages cited"));
    if (r.cited.length > most) {
      box.append(el("p", "muted small more-passages", "and " + (r.cited.length - most) + " more cited in the debate"));
    }
  } else {
    box.append(el("p", "muted small no-citation", "The deciding answer cited no passage."));
  }
  if (r.read.length) {
    const fold = el("details", "also-read");
    fold.append(el("summary", "", (r.cited.length ? "also read, not cited" : "read, not cited") + " (" + r.read.length + ")"),
      passageList(r.read.slice(0, MOST_READ), "Passages read"));
    if (r.read.length > MOST_READ) fold.append(el("p", "muted small", "and " + (r.read.length - MOST_READ) + " more in the debate"));
    box.append(fold);
  }
  return box;
}

/**
 * The deciding answer's reason in a sentence, then the line of a cited passage it rests on, with its source.
 * @param {import("./reason.js").Reason} r @param {import("./views.js").MethodView} view names its agents and roles
 * @param {boolean} [compact] a claim row's: smaller, the same parts
 */
export function reasonBlock(r, view, compact) {
  const box = el("div", "verdict-reason" + (compact ? " compact" : ""));
  box.append(el("p", "reason-text", reasonText(r, whoOf(r, view))));
  if (r.quote) {
    const quote = el("blockquote", "reason-quote");
    quote.append(el("span", "kicker", r.citing.includes(r.agent) ? "it rests on" : "resting on " + listText(r.citing) + "'s citation"),
      el("q", "passage-text", r.quote.text), sourceNode(r.quote.doc));
    box.append(quote);
  }
  return box;
}

/** What the page calls the answer's author: the view's name for its agent or role ("RAG agent", "Judge"),
 * with its own name where several share one ("Referee factual"). @param {import("./reason.js").Reason} r
 * @param {import("./views.js").MethodView} view */
function whoOf(r, view) {
  const kind = r.agent.split("-")[0];
  const agent = view.agents[r.agent] || view.agents[kind];
  if (agent) return agent + (r.agent !== kind ? " #" + r.agent.slice(kind.length + 1) : "");
  const role = view.roles[r.role]?.title;
  if (!role || role.toLowerCase() === r.agent.toLowerCase()) return role || r.agent;
  return role + " " + r.agent;
}
