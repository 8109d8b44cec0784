// @ts-check
/* One claim of a response being checked: its live status, label, how it was decided and a confidence (a
   judge's, or a panel's consensus), read from the claim's own events; a button that opens its debate. */
import { LABEL_CLASS, el, labelChip } from "../dom.js";
import { evidenceBlock, reasonBlock } from "../evidence.js";
import { verdictReason } from "../reason.js";
import { describe, viewOf } from "../views.js";

/** @typedef {"pending" | "running" | "done" | "error" | "stopped"} ClaimState */
/** @type {Record<string, string>} what a claim not yet done shows */
export const STATE_TEXT = { pending: "waiting", running: "checking…", error: "error", stopped: "not finished" };

export class ClaimRow {
  /** @param {number} index @param {string} text @param {(claim: ClaimRow) => void} onOpen @param {string} debateId */
  constructor(index, text, onOpen, debateId) {
    this.index = index;
    this.text = text;
    /** @type {Array<[string, any]>} [name, event] of this claim's run, replayed when the claim is opened */
    this.events = [];
    /** @type {ClaimState} */
    this.state = "pending";
    /** @type {string | null} */
    this.label = null;
    this.decidedBy = "";
    /** @type {number | null} */
    this.confidence = null;
    /** @type {any} the full verdict, once the result has arrived */
    this.verdict = null;
    /** @type {string | null} */
    this.error = null;
    this.rounds = 0;
    this.method = ""; // the method checking it, known from its run's start: its view draws the debate
    /** @type {{start: number, end: number} | null} where the service found it in the answer (null: not given) */
    this.span = null;
    this.spanApprox = false; // the span is the sentence a reworded claim came from
    /** @type {string | null} why the service placed it in no sentence (its span is null): not guessed at */
    this.unplaced = null;
    this.node = el("li", "claim-item");
    this.button = el("button", "claim-button");
    this.button.type = "button";
    this.button.setAttribute("aria-pressed", "false");
    this.button.setAttribute("aria-controls", debateId);
    this.stateSlot = el("span", "claim-state");
    this.metaSlot = el("span", "claim-meta muted");
    this.button.append(el("span", "claim-num", index + 1), el("span", "claim-words", text), this.stateSlot,
      this.metaSlot);
    this.button.addEventListener("click", () => onOpen(this));
    // The passages its verdict rests on, beside the button (links cannot sit inside one).
    this.evidenceSlot = el("div", "claim-evidence");
    /** @type {((claim: ClaimRow) => void) | null} checks this claim again alone (offered once it failed) */
    this.onRetry = null;
    this.retryButton = el("button", "secondary retry claim-retry", "Retry claim " + (index + 1));
    this.retryButton.type = "button";
    this.retryButton.addEventListener("click", () => { if (this.onRetry) this.onRetry(this); });
    this.node.append(this.button, this.retryButton, this.evidenceSlot);
    this.draw();
  }

  get finished() { return this.state === "done" || this.state === "error"; }

  /* Reads what the list shows from the claim's own events: confidence (a judge's, or a DPD panel's
     consensus) and the verdict. */
  /** @param {string} name @param {any} ev */
  note(name, ev) {
    if (name === "run_started") this.method = ev.method;
    if (name === "judgement" && ev.confidence !== null && ev.confidence !== undefined) this.confidence = ev.confidence;
    if (name === "panel" && ev.consensus !== null && ev.consensus !== undefined) this.confidence = ev.consensus;
    if (name === "round") this.rounds += 1;
    if (name === "run_finished") {
      this.label = ev.label;
      this.decidedBy = ev.decided_by;
      this.state = "done";
      this.draw();
    }
  }

  /** Its result in the response's verdict. @param {any} check @param {any} config the response's settings */
  settle(check, config) {
    this.verdict = check.verdict || null;
    // A claim's verdict leaves its settings to the response's record; the debate view reads thresholds there.
    if (this.verdict && !Object.keys(this.verdict.config || {}).length) this.verdict.config = config || {};
    this.error = check.error || null;
    this.label = check.label ?? null;
    if (this.verdict) {
      this.decidedBy = this.verdict.decided_by;
      const judges = this.verdict.judges || [];
      const judged = judges.length ? judges[judges.length - 1].confidence : null;
      if (this.verdict.consensus !== null && this.verdict.consensus !== undefined) this.confidence = this.verdict.consensus;
      else if (judged !== null && judged !== undefined) this.confidence = judged;
    }
    this.state = this.error ? "error" : "done";
    this.evidenceSlot.replaceChildren();
    // Why, in the deciding answer's words, under the claim: the label alone does not say.
    const reason = this.verdict ? verdictReason(this.verdict) : null;
    if (reason) this.evidenceSlot.append(reasonBlock(reason, viewOf(this.verdict.method || this.method), true));
    const evidence = this.verdict ? evidenceBlock(this.verdict, true, reason) : null;
    if (evidence) {
      const fold = el("details", "claim-evidence-fold");
      fold.open = true;
      fold.append(el("summary", "", "Evidence"), evidence);
      this.evidenceSlot.append(fold);
    }
    this.draw();
  }

  /* Back to its start, for a check of it alone (its Retry): what the failed check left is cleared. */
  restart() {
    this.events = [];
    this.state = "running";
    this.label = null;
    this.decidedBy = "";
    this.confidence = null;
    this.verdict = null;
    this.error = null;
    this.rounds = 0;
    this.evidenceSlot.replaceChildren();
    this.draw();
  }

  /** @param {string} message */
  fail(message) {
    this.error = message;
    this.state = "error";
    this.draw();
  }

  draw() {
    this.node.className = "claim-item state-" + this.state + (this.state === "done" ?
      " " + (LABEL_CLASS[this.label || ""] || "unparsed") : "");
    this.stateSlot.replaceChildren();
    if (this.state === "done") this.stateSlot.append(labelChip(this.label));
    else {
      if (this.state === "running") this.stateSlot.append(el("span", "spinner"));
      this.stateSlot.append(el("span", "label " + (this.state === "error" ? "failed" : "unparsed"),
        STATE_TEXT[this.state]));
    }
    const meta = [];
    if (this.state === "done" && this.decidedBy) { // in its method's words, not the code ("judge")
      const v = this.verdict || { decided_by: this.decidedBy,
        rounds: Array.from({ length: this.rounds }, (_, i) => ({ round: i + 1 })) };
      meta.push(describe(viewOf(this.verdict?.method || this.method), v));
    }
    const confidence = this.confidence === null ? "" : Number(this.confidence).toFixed(2);
    // A panel's wording already names its consensus: not twice.
    if (this.state === "done" && confidence && !meta.some(m => m.includes(confidence))) meta.push("confidence " + confidence);
    if (this.error) meta.push("checking it failed: " + this.error);
    this.metaSlot.textContent = meta.join(" · ");
    this.metaSlot.hidden = !meta.length;
    this.retryButton.hidden = this.state !== "error" || !this.onRetry;
  }
}
