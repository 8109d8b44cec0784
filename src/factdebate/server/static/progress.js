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

/** Who makes a call, in words: "rag", "the judge" (not the prompt's code name). @param {any} ev */
export function caller(ev) {
  return ev.agent || (ev.role ? "the " + ev.role : "the model");
}

/** A failure's reason as the end of a sentence: without its own closing full stop ("Connection error."). */
/** @param {unknown} error */
export function reasonText(error) {
  return String(error || "no reason given").trim().replace(/[.\s]+$/, "");
}

/** The retry line: why the call failed (said once) and when the next try goes (counting down, not spoken). */
/** @param {any} ev @param {number} secondsLeft @returns {[string, string]} */
export function retryText(ev, secondsLeft) {
  const left = Math.max(0, Math.ceil(secondsLeft));
  return ["The model did not answer " + caller(ev) + ": " + reasonText(ev.error) + ".",
    " Try " + (ev.attempt + 1) + (left > 0 ? " in " + left + " s…" : " now…")];
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
    this.retryWhy = el("span", "retry-why");
    this.retryWhy.setAttribute("role", "status"); // why is said once; the countdown beside it ticks in silence
    this.retryWhen = el("span", "retry-when");
    this.retry.append(this.retryWhy, this.retryWhen);
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
    /** @type {{ev: any, at: number} | null} the retry waited for: its event, and when its next try goes */
    this.nextTry = null;
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
        Number(ev.seconds || 0).toFixed(1) + "\u00a0s") + (ev.attempts > 1 ? " after " + ev.attempts + " tries" : "");
      this.retry.hidden = true;
      this.nextTry = null;
    } else if (name === "llm_retry") {
      this.retries += 1;
      this.retry.hidden = false;
      this.nextTry = { ev, at: Date.now() + Number(ev.delay || 0) * 1000 };
      this.retryWhy.textContent = retryText(ev, 0)[0];
    } else {
      return false;
    }
    this.draw();
    return true;
  }

  draw() {
    this.elapsed.textContent = duration(this.seconds());
    if (this.nextTry && !this.retry.hidden) {
      this.retryWhen.textContent = retryText(this.nextTry.ev, (this.nextTry.at - Date.now()) / 1000)[1];
    }
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
