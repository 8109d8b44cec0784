// @ts-check
/* One claim's verdict as it is reached: the claim, a status line, the verdict box, and below them the
   method's layout (registered with registerMethodView, picked by the method's declared view). Fed live with
   trace events, or at once from a finished verdict (`render`). */
import { CallLog } from "./calls.js";
import { LABEL_CLASS, downloadButton, el, fileName, usageText } from "./dom.js";
import { evidenceBlock, reasonBlock } from "./evidence.js";
import { RunProgress } from "./progress.js";
import { cutCallsText, linkControl } from "./share.js";
import { debateSkip } from "./skip.js";
import { verdictReason } from "./reason.js";
import { verdictSentence } from "./why.js";
import { describe, layout, MODEL_CODES, modelNotes, viewOf, warningText } from "./views.js";

/**
 * Where the run that gave this verdict differs from the method's paper (the verdict's `deviations`, and
 * `tools_heterogeneous: false` when both sides read the same evidence), closed by default: a reader
 * comparing with the paper needs it, a chatbot user rarely does. Null when the run is the paper's.
 * @param {any} v @returns {HTMLElement | null}
 */
function paperNotes(v) {
  /** @type {{ key: string, paper: string, here: string, restore?: string }[]} */
  const deviations = v.deviations || [];
  const sameEvidence = v.tools_heterogeneous === false;
  if (!deviations.length && !sameEvidence) return null;
  const box = el("details", "paper-notes");
  box.append(el("summary", "", `Differs from the paper (${deviations.length})`));
  if (sameEvidence) {
    box.append(el("p", "same-evidence", "Both sides read the same evidence, so the paper's premise that "
      + "different tools bring different evidence does not hold in this run."));
  }
  const list = el("ul", "");
  deviations.forEach(d => {
    const item = el("li", "");
    item.dataset.key = d.key;
    item.append(el("span", "", d.here), el("span", "muted", ` (paper: ${d.paper})`));
    if (d.restore) item.append(el("span", "restore", ` Paper's way: ${d.restore}`));
    list.append(item);
  });
  box.append(list);
  return box;
}

export class VerdictView {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.host = host;
    /** @type {Record<string, number>} */
    this.thresholds = {};
    this.claimText = "";
    this.view = viewOf(null);
    /** @type {import("./views.js").Layout | null} */
    this.layout = null;
    this.verdictBox = el("div", "verdict-box");
    this.body = el("div", "layout-body");
    this.statusText = el("span", "", "");
    this.spinner = el("span", "spinner");
    this.progress = new RunProgress();
    this.calls = new CallLog(); // each model call, folded under the turn it served
    /** @type {number | null} the most rounds the run can take, from its run_started */
    this.mostRounds = null;
    /** @type {Array<{tool: string, observation: string}>} the steps the events showed (a trace's replay) */
    this.steps = [];
    /** @type {Map<number, Map<string, any>>} round -> agent -> its answer and scores, as the events said them */
    this.seen = new Map();
    /** @type {string | null} the id the service keeps this check under (its check_saved event), for a link */
    this.checkId = null;
    this.clear();
  }

  clear() {
    this.progress.stop();
    this.host.replaceChildren();
    this.layout = null;
  }

  /** "Round 2 of 3" when the run said how many it may take, else "Round 2". @param {number} round */
  roundText(round) {
    return "Round " + round + (this.mostRounds && round <= this.mostRounds ? " of " + this.mostRounds : "");
  }

  /**
   * @param {string} claim @param {string | null | undefined} method whose view draws it
   * @param {Record<string, number>} [thresholds] score thresholds, for the gauges
   * @param {boolean} [running] a run follows live: its clock and model calls are shown
   */
  start(claim, method, thresholds, running) {
    this.clear();
    this.mostRounds = null;
    this.steps = []; // step events seen, for a run that ends without its full verdict (a trace's replay)
    this.seen = new Map(); // so are its answers and scores
    this.checkId = null;
    this.claimText = claim;
    this.thresholds = thresholds || {};
    this.view = viewOf(method);
    const wrap = el("div", "debate card");
    wrap.dataset.layout = this.view.layout;
    const head = el("div", "debate-head");
    const statusLine = el("div", "status-line");
    this.spinner = el("span", "spinner");
    this.statusText = el("span", "", "Starting…");
    statusLine.append(this.spinner, this.statusText);
    this.progress = new RunProgress();
    // Its heading, for a screen reader's list of them (the agents' columns are headed one level below).
    head.append(el("h2", "visually-hidden", "Verdict and debate"), el("blockquote", "claim-text", claim), statusLine,
      this.progress.node);
    if (running) this.progress.start(); else this.progress.node.hidden = true;
    this.verdictBox = el("div", "verdict-box");
    this.verdictBox.hidden = true;
    this.body = el("div", "layout-body");
    const skip = debateSkip(); // a keyboard's way past the debate's many stops
    wrap.append(head, this.verdictBox, skip.link, this.body, skip.end);
    this.host.append(wrap);
    const make = layout(this.view.layout);
    this.layout = make ? make(this, this.view) : null;
    this.calls = new CallLog(this.view.calls_by_step ? "step" : "round");
    this.body.append(this.calls.other);
  }

  /** Each model call's group where the layout holds it now (turns are drawn anew by a verdict). */
  placeCalls() {
    const layout = this.layout;
    const host = layout ? layout.callHost : undefined;
    this.calls.place(layout && host ? ev => host.call(layout, ev) : undefined);
  }

  /** @param {string} text @param {boolean} busy */
  status(text, busy) {
    // A sentence: an agent's name that starts it ("judge decided…") starts with a capital.
    this.statusText.textContent = text.charAt(0).toUpperCase() + text.slice(1);
    this.spinner.hidden = !busy;
  }

  /** One trace event; true when the layout drew it. @param {string} name @param {any} ev */
  event(name, ev) {
    if (name === "run_started") this.mostRounds = ev.most_rounds ?? null;
    // What a step did, so the "why" counts its tool calls as a saved verdict's would (an answer is no call).
    if (name === "step") this.steps.push({ tool: String(ev.tool || ""), observation: String(ev.observation || "") });
    if (name === "answer") Object.assign(this.turnSeen(ev), { role: ev.role, label: ev.label ?? null });
    if (name === "score") this.turnSeen(ev).scores = ev.scores || {};
    if (name === "check_saved") { this.checkId = ev.id; return true; } // comes just before the verdict
    if (name === "llm_call") this.calls.add(ev);
    const drawn = this.progress.event(name, ev) || (this.layout ? this.layout.event(name, ev) : false);
    if (this.calls.groups.size) this.placeCalls(); // a call's turn may be drawn after the call
    return drawn;
  }

  /** The verdict box: label, how it was reached in the method's words, reasons, usage. @param {any} v */
  verdict(v) {
    const box = this.verdictBox;
    box.replaceChildren();
    box.hidden = false;
    box.className = "verdict-box " + (LABEL_CLASS[v.label] || "unparsed");
    const main = el("div", "verdict-main");
    main.append(el("span", "kicker", "verdict"), el("span", "verdict-label", v.label || "no label"),
      el("span", "verdict-how", "Decided by " + describe(this.view, v)));
    box.append(main);
    // Beside the label it qualifies: the model that decided it, and the caution when the embedded model's or a
    // script's label is no finding about the claim.
    box.append(...modelNotes(v, "claim"));
    const why = verdictSentence(v, this.thresholds, role => Boolean(this.view.roles[role]?.statement));
    if (why) box.append(el("p", "verdict-why", why));
    // The deciding answer's own words and the passage line they rest on, for every method.
    const reason = verdictReason(v);
    if (reason) box.append(reasonBlock(reason, this.view));
    const evidence = evidenceBlock(v, false, reason);
    if (evidence) box.append(evidence);
    if (!Object.keys(this.view.ballot).length) { // a panel's ballots are drawn by its layout, not as text
      (v.judges || []).forEach((/** @type {any} */ j) => {
        if (!j.response) return;
        const judge = el("details", "judge");
        judge.open = true;
        judge.append(el("summary", "", (j.agent || "judge").replace(/^./, (/** @type {string} */ c) => c.toUpperCase()) + "'s reasoning"), el("p", "", j.response));
        box.append(judge);
      });
    }
    if (v.explanation && (why || reason)) { // the sentences say it; the method's own working stays one click away
      const formula = el("details", "explanation");
      formula.append(el("summary", "", "How it was computed"), el("pre", "", v.explanation));
      box.append(formula);
    } else if (v.explanation) box.append(el("p", "muted explanation", v.explanation));
    (v.warnings || []).filter((/** @type {any} */ w) => !MODEL_CODES.includes(w && w.code))
      .forEach((/** @type {any} */ w) => box.append(el("p", "score-error", warningText(w))));
    if (v.usage) box.append(el("p", "usage muted", usageText(v.usage)));
    const paper = paperNotes(v);
    if (paper) box.append(paper);
    if (v.schema_version !== undefined) box.append(downloadButton(fileName(v.claim, "verdict"), () => v));
    if (this.checkId) box.append(linkControl([this.checkId]));
    this.finishClock("Done");
  }

  /**
   * The model calls the service kept with this check (GET /v1/checks/{id}), drawn under their turns as the
   * live stream drew them, and a line when the service left some out. Nothing when another check is shown by
   * now, or this one's calls are there already (its live run's).
   * @param {import("./share.js").KeptCheck | null} kept
   */
  keptCalls(kept) {
    if (!kept || kept.id !== this.checkId || this.calls.groups.size) return;
    const calls = kept.calls || [];
    calls.forEach(ev => this.calls.add(ev));
    this.placeCalls();
    const cut = cutCallsText(calls.length, kept.calls_cut || 0);
    if (cut) this.body.prepend(el("p", "kept-calls-cut muted", cut));
  }

  /** Stops the clock (its line keeps the time the run took) and says how the run ended. @param {string} how */
  finishClock(how) {
    this.progress.stop();
    this.status(how + ".", false);
  }

  /** The end of a run seen in a trace: what its `run_finished` event says. @param {any} ev @param {number} rounds */
  finished(ev, rounds) {
    // The steps drawn so far count in its wording ("after 2 steps"), as a saved verdict's would.
    // Its sentence ("In round 1 both said SUPPORTS") reads the answers and scores the events gave.
    const steps = this.steps.map(s => ({ ...s }));
    const count = Math.max(rounds, steps.length ? 1 : 0, ...this.seen.keys());
    this.verdict({ label: ev.label, decided_by: ev.decided_by, usage: ev.usage,
      rounds: Array.from({ length: count }, (_, i) => {
        const turns = [...(this.seen.get(i + 1) || new Map()).values()];
        if (i === 0 && steps.length) {
          if (turns.length) turns[0].steps = steps; else turns.push({ steps });
        }
        return { round: i + 1, turns };
      }) });
  }

  /** The turn an answer or score event belongs to, made on first sight. @param {any} ev */
  turnSeen(ev) {
    const round = Number(ev.round) || 1;
    const turns = this.seen.get(round) || new Map();
    this.seen.set(round, turns);
    const agent = String(ev.agent || "");
    const turn = turns.get(agent) || { agent, label: null, scores: {} };
    turns.set(agent, turn);
    return turn;
  }

  /**
   * The run failed, or was stopped by the user (then it says so, and only then); `retry` adds a button that
   * runs the same check again.
   * @param {string} message @param {{byUser?: boolean, retry?: () => void}} [how]
   */
  error(message, how) {
    const box = this.verdictBox;
    box.hidden = false;
    box.className = "verdict-box failed";
    // Stopped by the user: said once ("Stopped by you."), not "Stopped: stopped by you".
    const byUser = how?.byUser && /^stopped by you\.?$/i.test(message.trim());
    box.replaceChildren(...(byUser ? [el("strong", "", "Stopped by you.")] : [
      el("strong", "", how?.byUser ? "Stopped: " : "The verification failed: "), el("span", "", message)]));
    // No card goes on "thinking…" under a run that ended, and none is left empty: a run that failed at its first
    // model call (its server down) had opened a card per agent, and they framed an empty "Round 1".
    this.host.querySelectorAll(".thinking").forEach(n => n.remove());
    if (this.layout && this.layout.ended) this.layout.ended();
    const retry = how?.retry;
    if (retry) {
      const again = el("button", "secondary retry", "Retry");
      again.type = "button";
      again.addEventListener("click", () => retry());
      box.append(again);
    }
    // "by you" only when the user stopped it: a reload's draft says why it stopped in its own words.
    this.finishClock(byUser ? "Stopped by you" : how?.byUser ? "Stopped" : "Failed");
  }

  /**
   * A finished verdict drawn at once (the stream's result, Recent checks, a results file, a link).
   * @param {any} v @param {string | null} [checkId] the service's id for it (undefined: the live run's, if any)
   */
  render(v, checkId) {
    const section = ((v.config || {}).methods || {})[v.method] || {};
    /** @type {Record<string, number>} */
    const thresholds = {};
    Object.entries(section).forEach(([k, val]) => { if (k.endsWith("_threshold")) thresholds[k.slice(0, -10)] = val; });
    if (thresholds.relevance !== undefined) thresholds.answer_relevance = thresholds.relevance;
    // Not given: the live run's, whose check_saved came just before (even if the claim came back reworded).
    const id = checkId !== undefined ? checkId : this.checkId;
    // Another check of the same claim is drawn anew: the calls shown are the live run's, not that check's.
    const same = this.claimText === v.claim && this.view === viewOf(v.method) && (checkId === undefined || id === this.checkId);
    const keep = this.layout && same ? this.layout : null;
    if (!keep) this.start(v.claim || "", v.method, thresholds);
    this.checkId = id;
    if (this.layout) this.layout.render(v);
    this.placeCalls(); // the turns drawn anew from the verdict keep the calls the stream showed
    if (v.error) this.error(v.error); else this.verdict(v);
  }
}
