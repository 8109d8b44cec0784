// @ts-check
/* One response check, drawn into its host: the response's verdict and counts, the claims as they are
   extracted and checked (each opening its own debate, drawn by its method's view), and the answer with each
   claim marked where its words appear. Fed with the stream's events, or at once from a saved verdict. */
import { failureText } from "../api.js";
import { LABEL_CLASS, downloadButton, el, fileName, usageText } from "../dom.js";
import { RunProgress } from "../progress.js";
import { scrollable } from "../roving.js";
import { cutCallsText, linkControl } from "../share.js";
import { VerdictView } from "../verdict-view.js";
import { modelNotes, responseRule } from "../views.js";
import { ClaimRow, STATE_TEXT } from "./claim-row.js";
import { align, locate } from "./locate.js";

/** What a claim's mark shows, worst first: a sentence with several claims takes the colour of the first. */
const SEVERITY = ["refutes", "error", "nei", "unparsed", "stopped", "supports", "running", "pending"];

/**
 * Why some sentences were not (wholly) checked: "claim limit", or "147 claim limit, 1 greeting" (a partly
 * checked sentence's own reason, "partly checked", said as what it means here).
 * @param {Array<{reason: string}>} sentences
 */
function tally(sentences) {
  /** @type {Map<string, number>} */
  const why = new Map();
  sentences.forEach(u => {
    const reason = u.reason === "partly checked" ? "a part left out" : u.reason;
    why.set(reason, (why.get(reason) || 0) + 1);
  });
  return why.size === 1 ? [...why.keys()][0] :
    [...why.entries()].sort((a, b) => b[1] - a[1]).map(([reason, count]) => count + " " + reason).join(", ");
}

/**
 * How much of the answer its claims checked: "12 claims from 12 of 160 sentences; 148 not checked: claim
 * limit" (the terminal's coverage_line, response_level/aggregate.py); a sentence its claims check only in part
 * is one they come from, named apart ("2 claims from 2 of 2 sentences; 1 partly checked: claim limit"); ""
 * when the service did not count the answer's sentences (given claims, a check saved before the service
 * counted them).
 * @param {any} v the response verdict @param {Array<{reason: string, partly?: boolean}>} skipped its sentences
 *   not checked (partly: its claims check only some of it)
 */
export function coverageLine(v, skipped) {
  if (typeof v.sentences !== "number") return "";
  const claims = ((v.extraction || {}).claims || []).length;
  const total = v.sentences;
  const whole = skipped.filter(u => !u.partly);
  const partly = skipped.filter(u => u.partly);
  const line = claims + " claim" + (claims === 1 ? "" : "s") + " from " + (total - whole.length) + " of " + total +
    " sentence" + (total === 1 ? "" : "s") + "; ";
  if (!skipped.length) return line + "every sentence checked";
  const said = whole.length ? [whole.length + " not checked: " + tally(whole)] : [];
  if (partly.length) said.push(partly.length + " partly checked: " + tally(partly));
  return line + said.join("; ");
}

/** A reason the service gives for a sentence it did not check, in words ("not checked: <this>"). */
/** @type {Record<string, string>} */
const UNCHECKED_WORDS = { "no claim": "the extractor took no claim from it", "claim limit": "past the claim limit",
  "table header": "a table's header row", code: "a line of code",
  ungrounded: "the extractor's claim named what the answer does not", subjective: "subjective, filtered out",
  "no content": "too short to say anything", heading: "a heading: its items were read under it",
  unresolved: "whom or what its pronoun means could not be resolved",
  unplaced: "a claim may be about it, but could not be placed in it with confidence",
  repeated: "it says again, word for word, a sentence that was checked" };

/** @param {{reason: string}} item */
export function uncheckedText(item) {
  return "not checked: " + (UNCHECKED_WORDS[item.reason] || item.reason);
}

/** @param {ClaimRow} claim */
function spanKind(claim) {
  return claim.state === "done" ? LABEL_CLASS[claim.label || ""] || "unparsed" : claim.state;
}


export class ResponseView {
  /** @param {HTMLElement} host @param {string} [debateId] the id of the host of a claim's debate */
  constructor(host, debateId) {
    this.host = host;
    this.debateId = debateId || "response-debate"; // one id per view: the results viewer has its own
    /** @type {string | null} the id the service keeps this check under, for a link */
    this.checkId = null;
    // What start() draws anew for each check; empty until then.
    this.text = "";
    /** @type {Record<string, number>} */
    this.thresholds = {};
    /** @type {ClaimRow[]} */
    this.claims = [];
    /** @type {Map<string, ClaimRow>} subclaim span id -> claim */
    this.bySpan = new Map();
    /** @type {Map<string, ClaimRow>} a claim's run id -> claim */
    this.byRun = new Map();
    /** @type {ClaimRow | null} */
    this.selected = null;
    /** @type {any} the response's verdict, once it has arrived */
    this.result = null;
    /** @type {any} */
    this.judged = null;
    this.verdictBox = el("div");
    this.spinner = el("span");
    this.statusText = el("span");
    this.problemBox = el("p");
    this.retrySlot = el("div");
    this.listHint = el("p");
    this.list = el("ol");
    this.answerBox = el("div");
    this.answerNote = el("p");
    this.debateHost = el("div");
    this.debate = new VerdictView(this.debateHost);
    this.clock = new RunProgress();
    /** @type {(() => void) | null} runs the same check again (a Retry button after a failure) */
    this.onRetry = null;
    /** @type {((claim: ClaimRow, labels: Array<string | null>) => void) | null} checks one claim again alone */
    this.onRetryClaim = null;
    /** @type {((text: string, question: string) => void) | null} checks the part of the answer the claim limit cut */
    this.onNextPart = null;
    /** @type {ClaimRow | null} the claim being checked again, one at a time: the response's label is worked
        out from the others' labels as they stand when it starts */
    this.rechecking = null;
  }

  /**
   * @param {string} text @param {string} question @param {Record<string, number>} thresholds
   * @param {boolean} [running] a check follows live: its clock and model calls are shown
   */
  start(text, question, thresholds, running) {
    this.clock.stop();
    this.checkId = null;
    this.text = text;
    this.thresholds = thresholds;
    this.claims = [];
    this.bySpan = new Map();
    this.byRun = new Map();
    this.selected = null;
    this.result = null;
    this.judged = null;
    this.host.replaceChildren();
    this.host.hidden = false;

    const card = el("div", "card response-card");
    this.verdictBox = el("div", "response-verdict");
    this.verdictBox.hidden = true;
    const statusLine = el("div", "status-line");
    this.spinner = el("span", "spinner");
    this.statusText = el("span", "response-status", "sending…");
    this.statusText.setAttribute("role", "status");
    this.statusText.setAttribute("aria-live", "polite");
    statusLine.append(this.spinner, this.statusText);
    this.clock = new RunProgress();
    if (running) this.clock.start(); else this.clock.node.hidden = true;
    this.problemBox = el("p", "response-problem error");
    this.problemBox.setAttribute("role", "alert");
    this.problemBox.hidden = true;
    this.retrySlot = el("div", "retry-slot");
    // Its heading first: a finished check takes the focus there, with the verdict below it.
    card.append(el("h2", "visually-hidden", "The response's verdict"));
    if (question) card.append(el("p", "response-question muted", "Question: " + question));
    card.append(this.verdictBox, statusLine, this.clock.node, this.problemBox, this.retrySlot);

    const body = el("div", "response-body");
    const listCol = el("section", "response-claims");
    listCol.setAttribute("aria-label", "claims");
    listCol.append(el("h2", "", "Claims"));
    this.listHint = el("p", "muted small", "Extracting the claims…");
    this.list = el("ol", "claim-list");
    listCol.append(this.listHint, this.list);
    const answerCol = el("section", "response-answer");
    answerCol.setAttribute("aria-label", "the answer");
    answerCol.append(el("h2", "", "The answer"));
    this.answerBox = scrollable(el("div", "answer-text"), "the answer, with its claims marked");
    this.answerNote = el("p", "muted small");
    answerCol.append(this.answerBox, this.answerNote);
    body.append(listCol, answerCol);
    card.append(body);

    this.debateHost = el("div", "debate-host");
    this.debateHost.id = this.debateId;
    this.debate = new VerdictView(this.debateHost);
    this.host.append(card, this.debateHost);
    this.drawAnswer();
  }

  /** @param {string} text @param {boolean} busy */
  status(text, busy) {
    this.statusText.textContent = text;
    this.spinner.hidden = !busy;
  }

  /** @param {string} message */
  problem(message) {
    this.problemBox.textContent = message;
    this.problemBox.hidden = false;
  }

  /* One SSE event of the stream. */
  /** @param {string} name @param {any} ev */
  event(name, ev) {
    this.clock.event(name, ev); // every model call of the check, its claims' included
    const claim = ev && ev.run ? this.byRun.get(ev.run) : undefined;
    if (claim) return this.claimEvent(claim, name, ev);
    switch (name) {
      case "span_begin":
        if (ev.kind === "extraction") this.status("Extracting the claims…", true);
        if (ev.kind === "subclaim") this.claimStarted(ev);
        break;
      case "claims_extracted": this.setClaims(ev.claims || [], ev.parsed !== false); break;
      case "run_started": {
        const owner = this.bySpan.get(ev.span_id);
        if (owner) { this.byRun.set(ev.run, owner); this.claimEvent(owner, name, ev); }
        break;
      }
      case "span_end":
        if (ev.kind === "subclaim") {
          const ended = this.bySpan.get(ev.span_id);
          // A claim's span that closes without a verdict: checking it raised; the reason comes with the result.
          if (ended && !ended.finished) ended.fail("checking this claim failed");
          this.progress();
        }
        break;
      case "response_verdict": this.judged = ev; break;
      case "check_saved": this.checkId = ev.id; break; // just before the result
      case "result": this.finish(ev); break;
      case "error": this.stopped("The check failed: " + failureText(ev, "the answer"), false); break;
      default: break; // llm_call, parse problems... are in the raw trace
    }
    return true;
  }

  /** @param {string[]} texts @param {boolean} parsed */
  setClaims(texts, parsed) {
    this.list.replaceChildren();
    this.claims = texts.map((text, i) => new ClaimRow(i, text, c => this.open(c), this.debateId));
    this.claims.forEach(c => { c.onRetry = claim => this.retryClaim(claim); });
    this.claims.forEach(c => this.list.append(c.node));
    this.listHint.textContent = !parsed ? "The model's list of claims could not be read, even after one re-ask: " +
      "nothing was checked." : texts.length ? "Select a claim to follow its debate." : "No claim was found.";
    this.progress();
    this.drawAnswer();
  }

  /** @param {any} ev */
  claimStarted(ev) {
    const index = (ev.attributes || {}).index;
    const claim = this.claims[index];
    if (!claim) return;
    this.bySpan.set(ev.span_id, claim);
    claim.state = "running";
    claim.draw();
    if (this.selected === claim) this.debate.status("Checking this claim…", true);
  }

  /** @param {ClaimRow} claim @param {string} name @param {any} ev */
  claimEvent(claim, name, ev) {
    claim.events.push([name, ev]);
    claim.note(name, ev);
    if (this.selected === claim) this.feed(claim, name, ev);
    if (name === "run_finished") { this.progress(); this.drawAnswer(); }
    return true;
  }

  /* Draws one of a claim's events on the debate view, as the results tab replays a trace. */
  /** @param {ClaimRow} claim @param {string} name @param {any} ev */
  feed(claim, name, ev) {
    if (this.debate.event(name, ev)) return;
    if (name === "run_finished") {
      this.debate.finished(ev, claim.rounds);
    }
  }

  /** @param {ClaimRow} claim */
  open(claim) {
    this.selected = claim;
    this.claims.forEach(c => c.button.setAttribute("aria-pressed", String(c === claim)));
    if (claim.verdict) {
      if (claim.events.length) { // the stream's events first, so each model call stays under its turn
        this.debate.start(claim.verdict.claim || claim.text, claim.verdict.method || claim.method, this.thresholds);
        claim.events.forEach(([name, ev]) => { if (name !== "run_finished") this.debate.event(name, ev); });
      }
      this.debate.render(claim.verdict);
    } else {
      this.debate.start(claim.text, claim.method, this.thresholds);
      const replay = claim.rounds;
      claim.rounds = 0; // counted again while replaying, so the verdict line names the right round
      claim.events.forEach(([name, ev]) => { if (name === "round") claim.rounds += 1; this.feed(claim, name, ev); });
      claim.rounds = Math.max(claim.rounds, replay);
      if (claim.error) this.debate.error(claim.error);
      else if (claim.state === "pending") this.debate.status("Waiting for its turn (claims are checked a few at a time)…", false);
      else if (claim.state === "stopped") this.debate.status("Not finished: the check stopped.", false);
      else if (!claim.events.length) this.debate.status("Checking this claim…", true);
    }
  }

  counts() {
    /** @type {Record<string, number>} */
    const n = { SUPPORTS: 0, REFUTES: 0, "NOT ENOUGH INFO": 0, none: 0, error: 0, open: 0 };
    this.claims.forEach(c => {
      if (c.state === "error") n.error += 1;
      else if (c.state !== "done") n.open += 1;
      else if (c.label && n[c.label] !== undefined) n[c.label] += 1;
      else n.none += 1;
    });
    return n;
  }

  progress() {
    if (this.result || !this.claims.length) {
      if (!this.result && !this.claims.length) this.status("No claim to check.", true);
      return;
    }
    const n = this.counts();
    const total = this.claims.length;
    this.status("Checking claims: " + (total - n.open) + " of " + total + " done" +
      (n.REFUTES ? " (" + n.REFUTES + " false so far)" : "") + ".", n.open > 0);
  }

  /* The answer with each claim marked where the service says it is (its span, once the result has come),
     else where its words appear in it. A claim the extractor reworded is marked at the sentence it shares
     most words with, dashed; a sentence that holds several claims is marked once, coloured by the worst of
     them (a refuted one first). */
  drawAnswer() {
    /** @type {Array<{start: number, end: number, claims: ClaimRow[]}>} */
    const found = [];
    /** @type {Set<ClaimRow>} */
    const reworded = new Set();
    /** @type {ClaimRow[]} */
    const rest = [];
    let missing = 0;
    let unplaced = 0;
    this.claims.forEach(c => {
      const given = c.span;
      // The service placed it in no sentence with confidence: the page does not guess one.
      if (!given && c.unplaced) { unplaced += 1; return; }
      if (given) {
        if (c.spanApprox) reworded.add(c);
        const shared = found.find(s => given.start < s.end && s.start < given.end);
        if (shared) shared.claims.push(c); else found.push({ start: given.start, end: given.end, claims: [c] });
        return;
      }
      const span = locate(this.text, c.text, found);
      if (span) found.push({ ...span, claims: [c] }); else rest.push(c);
    });
    rest.forEach(c => {
      const span = align(this.text, c.text, found);
      if (!span) { missing += 1; return; }
      reworded.add(c);
      const shared = found.find(s => span.start < s.end && s.start < span.end);
      if (shared) shared.claims.push(c); else found.push({ start: span.start, end: span.end, claims: [c] });
    });
    // The sentences the service says no claim covers, each with why (once the result has come). One the claim
    // limit left partly checked keeps its claims' mark, with a note after it.
    const unchecked = this.unchecked();
    const skipped = unchecked.filter(u => !found.some(s => u.start < s.end && s.start < u.end));
    const partly = unchecked.filter(u => u.partly && !skipped.includes(u));
    /** @type {Array<{start: number, end: number, claims: ClaimRow[], skip?: any}>} */
    const places = [...found, ...skipped.map(u => ({ start: u.start, end: u.end, claims: [], skip: u }))];
    places.sort((a, b) => a.start - b.start);
    this.answerBox.replaceChildren();
    let at = 0;
    places.forEach(({ start, end, claims, skip }, i) => {
      if (start > at) this.answerBox.append(document.createTextNode(this.text.slice(at, start)));
      if (skip) {
        const note = el("span", "skip-note", uncheckedText(skip));
        if (skip.note) note.title = "The extractor wrote: " + skip.note;
        this.answerBox.append(el("span", "skipped-span", this.text.slice(Math.max(start, at), end)), note);
        at = Math.max(at, end);
        return;
      }
      claims.sort((a, b) => SEVERITY.indexOf(spanKind(a)) - SEVERITY.indexOf(spanKind(b)));
      const first = claims[0];
      const mark = el("mark", "claim-span " + spanKind(first) + (claims.some(c => reworded.has(c)) ? " reworded" : ""),
        this.text.slice(Math.max(start, at), end));
      mark.title = claims.map(c => "Claim " + (c.index + 1) + (reworded.has(c) ? " (reworded: " + c.text + ")" : "") +
        ": " + (c.state === "done" ? c.label || "no label" : STATE_TEXT[c.state])).join("\n");
      mark.dataset.claim = claims.map(c => c.index + 1).join(" ");
      mark.addEventListener("click", () => this.open(first));
      this.answerBox.append(mark, el("sup", "claim-ref", claims.map(c => c.index + 1).join(",")));
      at = Math.max(at, end);
      // The rest of a sentence the claim limit left partly checked is dotted, up to the next mark, and said so.
      const cut = partly.find(u => u.start < end && start < u.end);
      if (cut) {
        const until = Math.min(cut.end, i + 1 < places.length ? Math.max(places[i + 1].start, at) : cut.end);
        if (until > at) this.answerBox.append(el("span", "skipped-span", this.text.slice(at, until)));
        const note = el("span", "skip-note", "partly checked: claim limit"); // a pill that does not wrap: short
        note.title = "The claim limit kept only some of the claims taken from this sentence: " + (cut.note || "");
        this.answerBox.append(note);
        at = Math.max(at, until);
      }
    });
    if (at < this.text.length) this.answerBox.append(document.createTextNode(this.text.slice(at)));
    /** @type {string[]} */
    const notes = [];
    if (this.claims.length) notes.push("Green: supported · red: refuted · grey: not enough information, no label or " +
      "not checked yet.");
    if (reworded.size) notes.push("Dashed: " + reworded.size + " claim" + (reworded.size === 1 ? " the extractor " +
      "reworded, marked at the sentence it came from" : "s the extractor reworded, marked at the sentences they " +
      "came from") + ".");
    if (missing) notes.push(missing + " of " + this.claims.length + " claims share too few words with any sentence " +
      "of the answer to be marked in it; they are listed only.");
    if (unplaced) notes.push(unplaced + " of " + this.claims.length + " claims could not be placed in one sentence " +
      "with confidence (not placed); they are listed only.");
    if (skipped.length) notes.push("Dotted in grey: " + skipped.length + " sentence" + (skipped.length === 1 ?
      " no claim covers, marked with why it was" : "s no claim covers, each marked with why it was") + " not checked.");
    if (partly.length) notes.push(partly.length + " sentence" + (partly.length === 1 ? " was" : "s were") +
      " checked only in part: the claim limit kept some of the claims taken from " + (partly.length === 1 ? "it." : "them."));
    this.answerNote.textContent = notes.join(" ");
  }

  /**
   * The result's sentences that no claim covers, as offsets into the text shown.
   * @returns {Array<{start: number, end: number, text: string, reason: string, note?: string | null, partly?: boolean}>}
   */
  unchecked() {
    const v = this.result;
    if (!v || !Array.isArray(v.unchecked)) return [];
    const shift = this.text.indexOf(v.response || "");
    const size = String(v.response || "").length;
    if (shift < 0) return [];
    return v.unchecked.filter((/** @type {any} */ u) => u && u.span && u.span.end <= size && u.span.start < u.span.end)
      .map((/** @type {any} */ u) => ({ ...u, start: u.span.start + shift, end: u.span.end + shift }));
  }

  /** @param {any} verdict */
  finish(verdict) {
    this.result = verdict;
    const extraction = verdict.extraction || {};
    if (!this.claims.length && (extraction.claims || []).length) this.setClaims(extraction.claims, extraction.parsed !== false);
    if (extraction.parsed === false) {
      this.problem("The model's list of claims could not be read, even after one re-ask, so nothing was checked.");
    }
    // The service's spans are offsets into the response it checked (the text as sent, trimmed).
    const shift = this.text.indexOf(verdict.response || "");
    (verdict.claims || []).forEach((/** @type {any} */ check) => {
      const claim = this.claims[check.index];
      if (!claim) return;
      const span = check.span;
      claim.span = span && shift >= 0 && span.end <= (verdict.response || "").length ?
        { start: span.start + shift, end: span.end + shift } : null;
      claim.spanApprox = Boolean(claim.span && check.span_note);
      claim.unplaced = !span && shift >= 0 ? check.span_note || "not placed" : null;
      claim.settle(check, verdict.config);
      if (this.selected === claim) this.open(claim);
    });
    this.drawAnswer();
    this.showVerdict(verdict);
    this.clock.stop(); // its line keeps the time the check took
    this.ended();
  }

  /* The status line and the problem once the verdict is in: a check whose every claim failed failed (its
     Retry runs it all again); claims that failed among others are named, each with its own Retry. */
  ended() {
    const failed = this.claims.filter(c => c.state === "error");
    this.retrySlot.querySelectorAll("button.retry").forEach(b => b.remove()); // a note on kept calls stays
    if (!failed.length) {
      const v = this.result || {};
      if ((v.extraction || {}).parsed !== false && !v.error) this.problemBox.hidden = true; // its claims now pass
      this.status("Done.", false);
      return;
    }
    const all = failed.length === this.claims.length;
    const why = failed[0].error || "unknown error";
    this.problem(all ? "Checking every claim failed: " + why + ". Retry the check, or each claim alone." :
      failed.length + " of " + this.claims.length + " claims could not be checked (" + why + "). Retry each " +
      "from its row.");
    this.status(all ? "Failed." : "Done, but " + failed.length + " claim" + (failed.length === 1 ? "" : "s") +
      " failed.", false);
    const retry = this.onRetry;
    if (all && retry) {
      const again = el("button", "secondary retry", "Retry");
      again.type = "button";
      again.addEventListener("click", () => retry());
      this.retrySlot.prepend(again);
    }
  }

  /* One claim checked again alone (its row's Retry): the service re-checks it and answers with the
     response's label worked out anew from every claim's label as they stand. */
  /** @param {ClaimRow} claim */
  retryClaim(claim) {
    if (!this.onRetryClaim || !this.result || this.rechecking) return;
    const labels = this.claims.map(c => (c.state === "done" ? c.label : null));
    this.rechecking = claim;
    this.claims.forEach(c => { c.retryButton.disabled = true; });
    claim.restart();
    this.clock.start(); // its waits and retries, live
    this.drawAnswer();
    this.status("Checking claim " + (claim.index + 1) + " again…", true);
    if (this.selected === claim) this.open(claim);
    this.onRetryClaim(claim, labels);
  }

  /** The stream of a claim checked again: its events, as a check's own. @param {string} name @param {any} ev */
  recheckEvent(name, ev) {
    const claim = this.rechecking;
    if (!claim || !this.claims.includes(claim)) return; // another check is shown by now
    if (name === "result") this.rechecked(claim, ev);
    else if (name === "error") this.recheckFailed(ev.message || "unknown error");
    else if (name !== "check_saved") this.event(name, ev);
  }

  /** @param {ClaimRow} claim @param {any} answer the service's ClaimRecheck */
  rechecked(claim, answer) {
    this.rechecking = null;
    this.clock.stop();
    const check = answer.claim || {};
    const v = this.result;
    v.claims = (v.claims || []).map((/** @type {any} */ c) => (c.index === claim.index ? check : c));
    Object.assign(v, { label: answer.label, factual: answer.factual, decided_by: answer.decided_by });
    // The response's usage counts what checking the claim again cost too.
    const spent = (check.verdict || {}).usage;
    if (spent && v.usage) {
      ["llm_calls", "tool_calls", "prompt_tokens", "completion_tokens", "seconds"].forEach(k => {
        v.usage[k] = (Number(v.usage[k]) || 0) + (Number(spent[k]) || 0);
      });
    }
    const shift = this.text.indexOf(v.response || "");
    claim.span = check.span && shift >= 0 ? { start: check.span.start + shift, end: check.span.end + shift } : claim.span;
    if (check.span && shift >= 0) claim.unplaced = null;
    claim.settle(check, v.config);
    this.claims.forEach(c => { c.retryButton.disabled = false; c.draw(); });
    if (this.selected === claim) this.open(claim);
    this.drawAnswer();
    this.showVerdict(v);
    this.ended();
  }

  /** The claim's new check could not run (the stream broke, the service refused it). @param {string} message */
  recheckFailed(message) {
    const claim = this.rechecking;
    this.rechecking = null;
    if (!claim || !this.claims.includes(claim)) return;
    this.clock.stop();
    claim.fail(message);
    this.claims.forEach(c => { c.retryButton.disabled = false; });
    if (this.selected === claim) this.open(claim);
    this.drawAnswer();
    this.ended();
  }

  /** @param {any} v */
  showVerdict(v) {
    const box = this.verdictBox;
    box.hidden = false;
    box.className = "response-verdict verdict-box " + (LABEL_CLASS[v.label] || "unparsed");
    const main = el("div", "verdict-main");
    const n = this.counts();
    const allFailed = this.claims.length > 0 && n.error === this.claims.length;
    const skipped = this.unchecked();
    const rule = responseRule(v.decided_by, skipped.length > 0);
    main.append(el("span", "kicker", "the response"),
      el("span", "verdict-label", v.label || (allFailed ? "failed" : "no label")),
      // The rule's words without a second "no label" beside the label that says it.
      el("span", "verdict-how", allFailed ? "checking every claim failed" :
        v.label ? rule : rule.replace(/^no label:\s*/, "")));
    /** @type {Array<[number, string]>} */
    const all = [[n.SUPPORTS, "supported"], [n.REFUTES, "refuted"], [n["NOT ENOUGH INFO"], "not enough info"],
      [n.none, "no label"], [n.error, "failed"]];
    const parts = all.filter(([count]) => count > 0);
    // Led by how many hold up ("2 of 3 claims supported"), then the rest by kind.
    const rest = parts.filter(([, what]) => what !== "supported");
    // Then how much of the answer those claims checked ("12 of 12 claims supported" alone reads as if they
    // covered a 160-sentence answer), in the words of `check-response` (response_level/aggregate.py).
    // (Nothing is added when every sentence was checked: the claims line then speaks for the whole answer.)
    const covered = !skipped.length ? "" : coverageLine(v, skipped) ||
      skipped.length + " sentence" + (skipped.length === 1 ? "" : "s") + " not checked";
    // The headline says how much of the answer its label speaks for (a large "SUPPORTS" over an answer of which
    // 12 of 273 sentences were checked overstates it).
    if (typeof v.sentences === "number" && skipped.length) {
      main.insertBefore(el("span", "verdict-scope", "· " + (v.sentences - skipped.length) + " of " + v.sentences +
        " sentence" + (v.sentences === 1 ? "" : "s") + " checked"), main.querySelector(".verdict-how"));
    }
    const counts = el("p", "response-counts", n.SUPPORTS + " of " + this.claims.length + " claim" +
      (this.claims.length === 1 ? "" : "s") + " supported" + (rest.length ? " · " +
      rest.map(([count, what]) => count + " " + what).join(" · ") : "") + (covered ? " · " + covered : ""));
    box.replaceChildren(main, counts);
    const limit = this.limitLine(v, skipped);
    if (limit) box.append(limit);
    // Which model decided, and the caution when its claims' labels are no finding.
    box.append(...modelNotes(v, "response"));
    if (v.usage) box.append(el("p", "usage muted", usageText(v.usage)));
    box.append(downloadButton(fileName(v.response, "response"), () => v));
    if (this.checkId) box.append(linkControl([this.checkId]));
  }

  /**
   * Where the claim limit cut the check: the limit, whose it is, and a button that checks the rest of the answer
   * from the first sentence it left out (`onNextPart`); null when the limit cut nothing.
   * @param {any} v @param {Array<{start: number, reason: string, partly?: boolean}>} skipped
   */
  limitLine(v, skipped) {
    const cut = skipped.filter(u => u.reason === "claim limit").sort((a, b) => a.start - b.start);
    if (!cut.length) return null;
    const most = ((v.config || {}).response || {}).max_claims;
    const line = el("p", "response-limit");
    line.append("The claim limit stopped the check: " + (most ? "at most " + most + " claims" : "the most claims") + " a check (response.max_claims, set by this server's operator), so " + cut.length + " sentence" +
      (cut.length === 1 ? " was" : "s were") + " not checked. ");
    // A sentence the limit cut in part is checked again whole (from the end of the sentence before it).
    const before = cut[0].partly ? this.text.lastIndexOf(". ", cut[0].start - 1) : -1;
    const rest = this.text.slice(cut[0].partly ? before + (before < 0 ? 1 : 2) : cut[0].start).trim();
    const next = this.onNextPart;
    if (rest && next) {
      const button = el("button", "secondary next-part", "Check the next part");
      button.type = "button";
      button.title = "Checks the answer from its first sentence left out, as a new check";
      button.addEventListener("click", () => next(rest, String(v.question || "")));
      line.append(button);
    }
    return line;
  }

  /* A finished check drawn at once from its saved verdict (Recent checks, the results viewer): the claims
     and their verdicts as they were when the check ended. */
  /** @param {any} v @param {string | null} [checkId] the service's id for it, for a link */
  show(v, checkId) {
    this.start(String(v.response || ""), v.question || "", {});
    this.checkId = checkId || null;
    const extraction = v.extraction || {};
    const texts = (extraction.claims || []).length ? extraction.claims : (v.claims || []).map((/** @type {any} */ c) => c.claim);
    this.setClaims(texts, extraction.parsed !== false);
    this.finish(v);
    if (v.error) this.problem("The check failed: " + v.error);
  }

  /**
   * The model calls the service kept with this check (GET /v1/checks/{id}): each claim's are filed under it,
   * as the stream's were, so opening a claim draws them under its debate's turns; a line says when the service
   * left some out. Nothing when another check is shown by now or the claims have their live calls.
   * @param {import("../share.js").KeptCheck | null} kept
   */
  keptCalls(kept) {
    if (!kept || kept.id !== this.checkId || this.claims.some(c => c.events.length)) return;
    const calls = kept.calls || [];
    calls.forEach(ev => {
      const claim = typeof ev.claim === "number" ? this.claims[ev.claim] : undefined;
      if (claim) claim.events.push(["llm_call", ev]);
    });
    const cut = cutCallsText(calls.length, kept.calls_cut || 0);
    if (cut) this.retrySlot.replaceChildren(el("p", "kept-calls-cut muted", cut));
    if (this.selected) this.open(this.selected);
  }

  /* The stream ended early: what was checked stays shown, the rest is marked as not finished. */
  /** @param {string} message @param {boolean} byUser the user stopped it (only then does it say "Stopped") */
  stopped(message, byUser) {
    this.clock.stop();
    this.claims.forEach(c => { if (!c.finished) { c.state = "stopped"; c.draw(); } });
    this.drawAnswer();
    this.problem(message + (this.claims.some(c => c.state === "done") ?
      " The claims checked so far are kept below." : ""));
    this.status(byUser ? "Stopped." : "Failed.", false);
    // No "Extracting the claims…" left under a check that ended before any claim came.
    if (!this.claims.length) this.listHint.textContent = "No claim: the check ended before its claims were extracted.";
    const retry = this.onRetry;
    if (!byUser && retry) {
      const again = el("button", "secondary retry", "Retry");
      again.type = "button";
      again.addEventListener("click", () => retry());
      this.retrySlot.replaceChildren(again);
    }
    if (this.selected && !this.selected.finished) this.open(this.selected);
  }
}
