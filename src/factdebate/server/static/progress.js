// @ts-check
/* What a run is waiting for, so that no wait is silent: the time since it started, ticking; the model calls
   in flight (from the stream's llm_started, each ended by its llm_call) with how long each has waited; the
   calls done; and every retry as it happens (llm_retry: why, and when the next try goes). */
import { el } from "./dom.js";

/** @param {number} seconds */
export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? s + " s" : Math.floor(s / 60) + " min " + String(s % 60).padStart(2, "0") + " s";
}

/** Who makes a call, in words: "rag (debate_answer)", "the judge". @param {any} ev */
export function caller(ev) {
  const who = ev.agent || (ev.role ? "the " + ev.role : "the model");
  return ev.prompt ? who + " (" + String(ev.prompt).split(":")[0] + ")" : who;
}

/** @param {any} ev */
const callKey = ev => [ev.role, ev.agent, ev.round, ev.prompt, ev.sample].join("|");

export class RunProgress {
  constructor() {
    this.node = el("div", "run-progress");
    this.node.setAttribute("aria-live", "off"); // the ticking would flood a screen reader; the status line speaks
    this.elapsed = el("span", "elapsed");
    this.calls = el("span", "calls-line");
    this.retry = el("p", "retry-line");
    this.retry.setAttribute("role", "status");
    this.retry.hidden = true;
    this.node.append(this.elapsed, this.calls, this.retry);
    this.startedAt = 0;
    /** @type {ReturnType<typeof setInterval> | null} */
    this.timer = null;
    /** @type {Map<string, {ev: any, since: number}[]>} calls sent and not answered yet */
    this.waiting = new Map();
    this.done = 0;
    this.retries = 0;
    this.lastCall = "";
  }

  start() {
    this.stop();
    this.startedAt = Date.now();
    this.waiting.clear();
    this.done = 0;
    this.retries = 0;
    this.lastCall = "";
    this.retry.hidden = true;
    this.node.hidden = false;
    this.timer = setInterval(() => this.draw(), 1000);
    this.draw();
  }

  /** Stops the clock; the totals stay shown. */
  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.waiting.clear();
    this.retry.hidden = true; // "try 5 in 2 s" is no longer true; the count of retries stays
    if (this.startedAt) this.draw();
  }

  /** Seconds since the run started. */
  seconds() { return this.startedAt ? (Date.now() - this.startedAt) / 1000 : 0; }

  /** One stream event; true when it was one of the calls' own. @param {string} name @param {any} ev */
  event(name, ev) {
    if (name === "llm_started") {
      const key = callKey(ev);
      this.waiting.set(key, [...(this.waiting.get(key) || []), { ev, since: Date.now() }]);
    } else if (name === "llm_call") {
      const key = callKey(ev);
      const list = this.waiting.get(key) || [];
      list.shift();
      if (list.length) this.waiting.set(key, list); else this.waiting.delete(key);
      this.done += 1;
      this.lastCall = caller(ev) + (ev.cached ? " answered from the cache" : " answered in " +
        Number(ev.seconds || 0).toFixed(1) + " s") + (ev.attempts > 1 ? " after " + ev.attempts + " tries" : "");
      this.retry.hidden = true;
    } else if (name === "llm_retry") {
      this.retries += 1;
      this.retry.hidden = false;
      this.retry.textContent = "The model did not answer " + caller(ev) + ": " + ev.error + ". Try " +
        (ev.attempt + 1) + " in " + Number(ev.delay || 0).toFixed(1) + " s…";
    } else {
      return false;
    }
    this.draw();
    return true;
  }

  draw() {
    this.elapsed.textContent = duration(this.seconds());
    /** @type {string[]} */
    const parts = [];
    const now = Date.now();
    const flying = [...this.waiting.values()].flat();
    if (flying.length) {
      const oldest = flying.reduce((a, b) => (a.since <= b.since ? a : b));
      parts.push("waiting for " + caller(oldest.ev) + ", " + duration((now - oldest.since) / 1000) +
        (flying.length > 1 ? " (+" + (flying.length - 1) + " more call" + (flying.length > 2 ? "s" : "") + ")" : ""));
    } else if (this.lastCall && this.timer !== null) {
      parts.push(this.lastCall);
    }
    parts.push(this.done + " model call" + (this.done === 1 ? "" : "s") + " done");
    if (this.retries) parts.push(this.retries + " retr" + (this.retries === 1 ? "y" : "ies"));
    this.calls.textContent = parts.join(" · ");
  }
}
