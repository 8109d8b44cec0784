// @ts-check
/* A kept guard check (kind "guard": POST /v1/chat/completions or /v1/guard/check, reopened by its link
   /?check=<id>), drawn from the service's GuardResult (guard_engine/types.py): the reply's label, the policy's action
   and the text the client got when it differs, whether the check was degraded and why, its usage; the text
   that was checked with each claim marked at the service's span and each sentence the gate skipped marked
   "not checked: <reason>"; per claim its status (a claim not decided is said to be unchecked, never shown as
   supported), label, tier, decider, reason, evidence and correction. A passage is titled cited only when the
   verdict rests on it (its `cited`); the others are said to be retrieved, not cited. When the policy changed
   the reply, the page says that the marks point into the model's answer, which the client never got. Every
   word goes in by textContent. */
import { LABEL_CLASS, downloadButton, el, fileName, labelChip, safeUrl } from "../dom.js";
import { oneTabStop, scrollable } from "../roving.js";
import { linkControl } from "../share.js";
import { modelNotes, responseRule } from "../views.js";

/** @typedef {{start: number, end: number}} Span */
/** @typedef {{title: string, url?: string | null, quote: string, injection?: string | null, cited?: boolean}} ClaimEvidence */
/** @typedef {{index: number, claim: string, span?: Span | null, span_note?: string | null, sources?: Span[],
 *   label?: string | null,
 *   decided_by?: string | null, tier?: string | null, evidence?: ClaimEvidence[],
 *   correction?: {text: string, quote_source: string} | null, status: "checked" | "unchecked" | "error",
 *   reason?: string | null}} GuardClaim */
/** @typedef {{label?: string | null, action_taken: string, degraded: boolean, degraded_reason?: string | null,
 *   usage?: {model_calls?: number, tool_calls?: number, seconds?: number}, claims?: GuardClaim[],
 *   skipped?: Array<{span: Span, text: string, reason: string}>, passed_through?: string[], policy?: string,
 *   on_unchecked?: string, tier?: string, deadline_s?: number, original_text?: string, text?: string,
 *   models?: string[], warnings?: Array<{code: string, message: string, model?: string | null}>,
 *   sentences?: number | null, sentences_checked?: number | null, question?: string | null,
 *   method?: string | null}} GuardResult */

/** What the policy did, in words. @type {Record<string, string>} */
const ACTION_TEXT = {
  none: "nothing: the reply went to the client unchanged",
  annotated: "annotated: the reply went to the client unchanged, the verdicts beside it",
  flagged: "flagged: a list of the refuted and unchecked claims was added to the reply",
  held: "held: each sentence stating a refuted claim was withheld, and the list of claims added to the reply",
  rewritten: "rewritten: the model revised its reply given the refuted claims",
  blocked: "blocked: the client got a refusal instead of the reply",
};

/** Worst first: a place holding several claims is coloured (and named) by the first. */
const SEVERITY = ["refutes", "error", "unchecked", "nei", "unparsed", "supports"];

/** What the client got instead of the checked text, by the policy's action. @type {Record<string, string>} */
const NEVER_SENT = {
  blocked: "the client got the refusal below instead",
  rewritten: "the client got the revision below instead",
  flagged: "the client got it with the footnotes below",
  held: "the client got it with the sentences stating refuted claims withheld, as below",
};

/** One passage: its quote, an instruction it holds (read as data), its linked source. @param {ClaimEvidence} d */
function passageItem(d) {
  const p = el("li", "passage");
  if (d.quote) p.append(el("q", "passage-text", d.quote));
  // A passage holding an instruction to the model (core/injection.py) says so beside its quote.
  if (d.injection) p.append(el("span", "passage-injection small", " This passage holds an instruction " +
    "to the model (“" + d.injection + "”): it was read as data, not obeyed."));
  const source = el("span", "passage-source", "— ");
  const url = safeUrl(d.url);
  if (url) {
    const link = el("a", "", d.title || url);
    link.href = url;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    source.append(link);
  } else source.append(d.title || "untitled");
  p.append(" ", source);
  return p;
}

/** The status a claim is drawn with: its label's when checked, else "unchecked" or "error" (never a label).
 * @param {GuardClaim} c */
function kindOf(c) {
  if (c.status === "checked") return LABEL_CLASS[c.label || ""] || "unparsed";
  return c.status === "error" ? "error" : "unchecked";
}

/** A claim's status in words (what its mark and its row say, so colour is never the only sign). @param {GuardClaim} c */
export function statusText(c) {
  if (c.status === "error") return "error: not checked";
  if (c.status !== "checked") return "unchecked: no verdict";
  return c.label === "SUPPORTS" ? "supported" : c.label === "REFUTES" ? "refuted" :
    c.label === "NOT ENOUGH INFO" ? "not enough information" : "no label";
}

/**
 * A checked claim's why in one line, as a response's claims have: the passage its verdict rests on and
 * what it does to the claim, or that no passage it read was cited. @param {GuardClaim} c @returns {string | null}
 */
export function checkedWhy(c) {
  if (c.status !== "checked") return null;
  const cited = (c.evidence || []).find(d => d.cited);
  const source = cited ? (cited.title || "a passage") + " says “" + shorten(cited.quote, 160) + "”" : "";
  if (c.label === "SUPPORTS") return cited ? source + ", which supports it." : "supported, though no passage read was cited.";
  if (c.label === "REFUTES") return cited ? source + ", which contradicts it." : "refuted, though no passage read was cited.";
  if (c.label === "NOT ENOUGH INFO") return cited ? source + ", which neither supports nor contradicts it." :
    "no passage read says whether it is so.";
  return null;
}

/** @param {string} text @param {number} most */
function shorten(text, most) {
  const plain = String(text || "").replace(/\s+/g, " ").trim();
  return plain.length > most ? plain.slice(0, most - 1).replace(/\s+\S*$/, "") + "…" : plain;
}

/** @param {GuardClaim} c */
function chip(c) {
  if (c.status === "checked") return labelChip(c.label);
  return el("span", "label " + (c.status === "error" ? "failed" : "unparsed"), c.status === "error" ? "error" : "unchecked");
}

/** The reply's rule in response_level/aggregate.py's codes (a guard result names none; its label follows them).
 * @param {GuardResult} v @param {GuardClaim[]} claims */
function ruleOf(v, claims) {
  if (v.label === "REFUTES") return "any-false";
  if (v.label === "SUPPORTS") return "all-true";
  if (v.label === "NOT ENOUGH INFO") return claims.length ? "unverified" : "no-claims";
  return "unparsed";
}

/** @param {{model_calls?: number, tool_calls?: number, seconds?: number}} u */
function usageLine(u) {
  /** @param {number | undefined} n @param {string} one @param {string} many */
  const count = (n, one, many) => (n || 0) + " " + (n === 1 ? one : many);
  return count(u.model_calls, "model call", "model calls") + " · " + count(u.tool_calls, "search", "searches") + " · " +
    Number(u.seconds || 0).toFixed(1) + "\u00a0s"; // a no-break space: the number and its unit on one line
}

/**
 * How many places of the text hold only claims that were not checked (no checked claim overlaps them): the
 * sentences that count as not checked because of those claims. @param {GuardClaim[]} claims
 */
function uncheckedPlaces(claims) {
  const checked = claims.filter(c => c.status === "checked" && c.span).map(c => /** @type {Span} */ (c.span));
  const overlaps = (/** @type {Span} */ a, /** @type {Span} */ b) => a.start < b.end && b.start < a.end;
  /** @type {Span[]} */
  const places = [];
  claims.forEach(c => {
    const s = c.span;
    if (c.status === "checked" || !s || checked.some(k => overlaps(k, s))) return;
    const shared = places.find(p => overlaps(p, s));
    if (shared) { shared.start = Math.min(shared.start, s.start); shared.end = Math.max(shared.end, s.end); }
    else places.push({ start: s.start, end: s.end });
  });
  return places.length;
}

export class GuardView {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.host = host;
    /** @type {((text: string, question: string) => void) | null} checks the part of the reply the claim limit cut */
    this.onNextPart = null;
  }

  /** The id of claim `index`'s row, for the marks' links. @param {number} index */
  rowId(index) { return (this.host.id || "guard") + "-claim-" + (index + 1); }

  /** @param {GuardResult} v @param {string | null} [checkId] the service's id for it, for a link */
  show(v, checkId) {
    const claims = v.claims || [];
    this.host.replaceChildren();
    this.host.hidden = false;
    const card = el("article", "card response-card guard-card");
    const headingId = (this.host.id || "guard") + "-heading";
    const heading = el("h2", "guard-heading", "A chat reply's check");
    heading.id = headingId;
    card.setAttribute("aria-labelledby", headingId);
    card.append(heading, this.verdict(v, claims, checkId || null));

    const body = el("div", "response-body");
    const listCol = el("section", "response-claims");
    const claimsHead = el("h3", "", "Claims");
    claimsHead.id = headingId + "-claims";
    listCol.setAttribute("aria-labelledby", claimsHead.id);
    const list = el("ol", "claim-list guard-claims");
    claims.forEach(c => list.append(this.row(c)));
    listCol.append(claimsHead, claims.length ? list : el("p", "muted small", v.degraded ?
      "No claim was checked: the check was degraded (see above)." : "No claim to check was found in the reply."));

    const textCol = el("section", "response-answer");
    const textHead = el("h3", "", "The text checked");
    textHead.id = headingId + "-text";
    textCol.setAttribute("aria-labelledby", textHead.id);
    const original = String(v.original_text ?? v.text ?? "");
    textCol.append(textHead);
    if (v.text !== undefined && v.text !== original) {
      // Under block or rewrite the marks point into words the client never received: said before them.
      const never = ["flagged", "held"].includes(String(v.action_taken)) ? "The marks point into the model's answer as it was checked; " :
        "The marks point into the model's answer as it was checked, which the client never received: ";
      textCol.append(el("p", "muted small guard-spans-note", never + (NEVER_SENT[v.action_taken] ||
        "the client got the text below instead") + "."));
    }
    textCol.append(this.marked(original, claims, v.skipped || []), this.legend(v, claims));
    body.append(listCol, textCol);
    card.append(body);

    if (v.text !== undefined && v.text !== original) {
      const sent = el("section", "guard-sent");
      const sentHead = el("h3", "", "The text the client got");
      sentHead.id = headingId + "-sent";
      sent.setAttribute("aria-labelledby", sentHead.id);
      sent.append(sentHead, el("p", "muted small", "The policy (" + (v.policy || "?") + ") changed the reply: this is " +
        "what the client received. The text above, where the claims are marked, is the reply as the model wrote it " +
        "and as it was checked."), scrollable(el("div", "answer-text guard-sent-text", v.text), "the reply as sent"));
      card.append(sent);
    }
    if ((v.passed_through || []).length) {
      const through = el("section", "guard-passed");
      const head = el("h3", "", "Passed through without a check");
      head.id = headingId + "-passed";
      through.setAttribute("aria-labelledby", head.id);
      const items = el("ul", "small");
      (v.passed_through || []).forEach(p => items.append(el("li", "", p)));
      through.append(head, items);
      card.append(through);
    }
    this.host.append(card);
  }

  /** The reply's verdict, the policy's action, degraded and why, usage, the link.
   * @param {GuardResult} v @param {GuardClaim[]} claims @param {string | null} checkId */
  verdict(v, claims, checkId) {
    const box = el("div", "response-verdict verdict-box guard-verdict " + (v.degraded ? "unparsed" : LABEL_CLASS[v.label || ""] || "unparsed"));
    const main = el("div", "verdict-main");
    const total = typeof v.sentences === "number" ? v.sentences : null;
    const done = typeof v.sentences_checked === "number" ? v.sentences_checked : null;
    // The rule's words without a second "no label" beside the label that says it (as a response's).
    const rule = responseRule(ruleOf(v, claims), total !== null && done !== null && done < total);
    main.append(el("span", "kicker", "the reply"), el("span", "verdict-label", v.degraded ? "not checked" : v.label || "no label"),
      el("span", "verdict-how", v.degraded ? "degraded: its claims were not extracted" :
        v.label ? rule : rule.replace(/^no label:\s*/, "")));
    box.append(main);
    // The headline says how much of the reply its label speaks for, as a response's does.
    if (total !== null && done !== null && done < total) {
      main.insertBefore(el("span", "verdict-scope", "· " + done + " of " + total + " sentence" + (total === 1 ? "" : "s") +
        " checked"), main.querySelector(".verdict-how"));
    }
    box.append(...modelNotes(v, "response")); // which model decided, and its caution
    /** @type {Record<string, number>} */
    const n = {};
    claims.forEach(c => { const s = statusText(c); n[s] = (n[s] || 0) + 1; });
    const supported = n.supported || 0;
    const rest = Object.entries(n).filter(([s]) => s !== "supported").map(([s, k]) => k + " " + s.split(":")[0]);
    // Every sentence left unchecked (a degraded check checked none of them), else those the gate left out; a
    // sentence that holds a claim listed as unchecked (the claim limit's, the deadline's) is counted once, as
    // that claim: "3 unchecked · 3 sentences not checked" counted the same three statements twice.
    const left = total !== null && done !== null ? total - done : (v.skipped || []).length;
    const asClaims = uncheckedPlaces(claims);
    const other = Math.max(0, left - asClaims);
    const sentences = other === 0 && asClaims > 0 ? "" : " · " + other + (asClaims ? " other" : "") + " sentence" +
      (other === 1 ? "" : "s") + " not checked";
    box.append(el("p", "response-counts", supported + " of " + claims.length + " claim" + (claims.length === 1 ? "" : "s") +
      " supported" + (rest.length ? " · " + rest.join(" · ") : "") + sentences));
    const limit = this.limitLine(v, claims);
    if (limit) box.append(limit);
    const action = el("p", "guard-action");
    action.append(el("strong", "", "Policy " + (v.policy || "annotate") + ": "),
      ACTION_TEXT[v.action_taken] || v.action_taken);
    box.append(action);
    if (v.degraded) {
      const warn = el("p", "guard-degraded response-problem");
      warn.append(el("strong", "", "Degraded: "), v.degraded_reason || "the claims could not be extracted in time, " +
        "so the text is unchecked.");
      box.append(warn);
    }
    box.append(el("p", "guard-settings muted small", "Tier " + (v.tier || "?") + " (claims it could not settle go " +
      "up a tier) · deadline " + Number(v.deadline_s || 0) + " s · unchecked claims: " + (v.on_unchecked || "pass")));
    if (v.usage) box.append(el("p", "usage muted", usageLine(v.usage)));
    box.append(downloadButton(fileName(v.original_text || "", "guard"), () => v));
    if (checkId) box.append(linkControl([checkId]));
    return box;
  }

  /**
   * Where the claim limit cut the check (its claims "beyond the claim cap"): the limit, whose it is, and a button
   * that checks the reply from the first statement it left out as a new check (`onNextPart`); null otherwise.
   * @param {GuardResult} v @param {GuardClaim[]} claims
   */
  limitLine(v, claims) {
    const cut = claims.filter(c => c.status !== "checked" && /^beyond the claim cap/.test(c.reason || ""))
      .sort((a, b) => (a.span ? a.span.start : 0) - (b.span ? b.span.start : 0));
    if (!cut.length) return null;
    const most = /at most (\d+) claims/.exec(cut[0].reason || "");
    const line = el("p", "response-limit");
    line.append("The claim limit stopped the check: " + (most ? "at most " + most[1] + " claims" : "the most claims") +
      " a reply (response.max_claims, set by this server's operator), so " + cut.length + " statement" +
      (cut.length === 1 ? " was" : "s were") + " not checked. ");
    const text = String(v.original_text ?? v.text ?? "");
    const first = cut[0].span;
    const rest = first ? text.slice(first.start).trim() : "";
    const next = this.onNextPart;
    if (rest && next) {
      const button = el("button", "secondary next-part", "Check the next part");
      button.type = "button";
      button.title = "Checks the reply from its first statement left out, as a new check of a response";
      button.addEventListener("click", () => next(rest, ""));
      line.append(button);
    }
    return line;
  }

  /** One claim: number, words, status, then how it was decided, evidence and correction. @param {GuardClaim} c */
  row(c) {
    const item = el("li", "claim-item guard-claim state-" + c.status + " " + kindOf(c));
    item.id = this.rowId(c.index);
    item.tabIndex = -1; // a mark's link moves the focus here
    const head = el("div", "claim-button guard-claim-head");
    head.append(el("span", "claim-num", c.index + 1), el("span", "claim-words", c.claim), el("span", "claim-state"));
    /** @type {HTMLElement} */ (head.lastChild).append(chip(c));
    const meta = [statusText(c)];
    if (c.tier) meta.push("tier " + c.tier);
    if (c.decided_by) meta.push("decided by " + String(c.decided_by).replace(/[-_]+/g, " "));
    head.append(el("span", "claim-meta muted", meta.join(" · ")));
    item.append(head);
    const details = el("div", "claim-evidence guard-claim-details");
    const why = c.reason || checkedWhy(c);
    if (why) details.append(el("p", "guard-reason small", "Why: " + why));
    if (!c.span) details.append(el("p", "guard-unplaced muted small", "Not marked in the text: " +
      (c.span_note || "the service gave no place for it") + "."));
    const cited = (c.evidence || []).filter(d => d.cited);
    const read = (c.evidence || []).filter(d => !d.cited);
    // Cited only where the verdict rests on the passage; the rest were read, and may be about something else.
    /** @type {Array<[ClaimEvidence[], string, string]>} */
    const groups = [[cited, "Evidence cited", "evidence-cited"],
      [read, cited.length ? "Also retrieved, not cited" : "Retrieved, not cited", "evidence-read"]];
    groups.forEach(([docs, title, kind]) => {
      if (!docs.length) return;
      const fold = el("details", "claim-evidence-fold " + kind);
      fold.open = kind === "evidence-cited" || !cited.length;
      const passages = el("ol", "passages");
      docs.forEach(d => passages.append(passageItem(d)));
      fold.append(el("summary", "", title + " (" + docs.length + ")"), oneTabStop(passages, title));
      details.append(fold);
    });
    if (c.correction) {
      const fix = el("p", "guard-correction small");
      fix.append(el("strong", "", "Correction: "), c.correction.text);
      details.append(fix);
      if (c.correction.quote_source) details.append(el("p", "muted small guard-correction-source",
        "Grounded in: “" + c.correction.quote_source + "”"));
    }
    if (details.childElementCount) item.append(details);
    return item;
  }

  /* The checked text: each claim marked at its span and the other lines it was drawn from (several claims at
     one place share a mark, named and coloured by the worst), each skipped sentence marked "not checked:
     <reason>"; a mark's number links to its claim's row. */
  /** @param {string} text @param {GuardClaim[]} claims @param {Array<{span: Span, text: string, reason: string}>} skipped */
  marked(text, claims, skipped) {
    const box = scrollable(el("div", "answer-text guard-text"), "the reply, with its claims marked");
    /** @type {Array<{start: number, end: number, claims: GuardClaim[], skip: string | null}>} */
    const places = [];
    const fits = (/** @type {Span | null | undefined} */ s) => s && s.start >= 0 && s.end <= text.length && s.end > s.start;
    claims.forEach(c => {
      if (!c.span) return;  // unplaced: listed only
      // Its span and each other line it was drawn from (a table's header and row, two sentences): marked on each.
      const own = [c.span];
      own.concat((c.sources || []).filter(s => !own.some(p => p.start < s.end && s.start < p.end))).forEach(s => {
        if (!fits(s)) return;
        const shared = places.find(p => s.start < p.end && p.start < s.end);
        if (shared) {
          if (!shared.claims.includes(c)) shared.claims.push(c);
          shared.start = Math.min(shared.start, s.start);
          shared.end = Math.max(shared.end, s.end);
        } else places.push({ start: s.start, end: s.end, claims: [c], skip: null });
      });
    });
    skipped.forEach(k => {
      if (!fits(k.span) || places.some(p => k.span.start < p.end && p.start < k.span.end)) return;
      places.push({ start: k.span.start, end: k.span.end, claims: [], skip: k.reason });
    });
    places.sort((a, b) => a.start - b.start);
    let at = 0;
    places.forEach(p => {
      if (p.start < at) return;
      if (p.start > at) box.append(document.createTextNode(text.slice(at, p.start)));
      const words = text.slice(p.start, p.end);
      if (p.skip !== null) {
        box.append(el("span", "skipped-span", words), el("span", "skip-note", "not checked: " + p.skip));
      } else {
        p.claims.sort((a, b) => SEVERITY.indexOf(kindOf(a)) - SEVERITY.indexOf(kindOf(b)));
        const mark = el("mark", "claim-span guard-span " + kindOf(p.claims[0]), words);
        mark.dataset.claim = p.claims.map(c => c.index + 1).join(" ");
        mark.dataset.status = p.claims.map(c => c.status).join(" ");
        const said = p.claims.map(c => "claim " + (c.index + 1) + ": " + statusText(c)).join("; ");
        mark.title = said;
        const ref = el("sup", "claim-ref");
        p.claims.forEach((c, i) => {
          if (i) ref.append(",");
          const link = el("a", "claim-ref-link", c.index + 1);
          link.href = "#" + this.rowId(c.index);
          link.setAttribute("aria-label", "claim " + (c.index + 1) + ", " + statusText(c));
          link.title = "claim " + (c.index + 1) + ": " + statusText(c);
          ref.append(link);
        });
        // The status in words beside the mark, for readers that do not see its colour.
        box.append(mark, ref, el("span", "visually-hidden", " (" + said + ")"));
      }
      at = p.end;
    });
    if (at < text.length) box.append(document.createTextNode(text.slice(at)));
    return box;
  }

  /** What the marks mean, and how many claims could not be placed. @param {GuardResult} v @param {GuardClaim[]} claims */
  legend(v, claims) {
    /** @type {string[]} */
    const notes = [];
    if (claims.length) notes.push("Marked: each claim where the service found it, numbered as in the list (green: " +
      "supported · red: refuted · grey: not enough information, unchecked or error; the list says which).");
    if ((v.skipped || []).length) notes.push("Dotted in grey: sentences the check-worthiness step left out, " +
      "each with its reason.");
    const unplaced = claims.filter(c => !c.span).length;
    if (unplaced) notes.push(unplaced + " of " + claims.length + " claims have no place in the text; they are listed only.");
    return el("p", "muted small guard-legend", notes.join(" "));
  }
}
