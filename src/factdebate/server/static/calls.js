// @ts-check
/* The model calls behind each turn, folded under it as inspect_ai's log viewer folds a sample's model events:
   what a researcher opens to see why a debate went as it did. Each call (a stream's or a trace's llm_call)
   shows its template, role, tokens in and out, seconds and tries; when the event carries the text (the page
   asks every stream for it with "transcript": true; a trace has it with --trace-text), the prompt's messages
   by role and the model's reply, each folded. The layout says which of its nodes holds an agent's calls in a
   round (Layout.callHost); calls it draws no node for are listed under the debate, named by who made them. */
import { el } from "./dom.js";

/** @param {number} n @param {string} one @param {string} many */
const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

/** The call's facts: "debate_answer", "debater", "412 tokens in", "58 out", "1.2 s", "2 tries". @param {any} ev */
export function callFacts(ev) {
  const parts = [String(ev.prompt || "").split(":")[0] || "call", ev.role || "model"];
  if (ev.draw) parts.push("draw " + ev.draw);
  // usage_known false: the server reported no counts (its 0 in and chunk-counted out are no measurement)
  if (ev.usage_known === false) parts.push("tokens not reported");
  else parts.push(plural(ev.prompt_tokens || 0, "token", "tokens") + " in", (ev.completion_tokens || 0) + " out" +
    (ev.reasoning_tokens ? " (" + ev.reasoning_tokens + " reasoning)" : ""));
  parts.push(ev.cached ? "from the cache" : Number(ev.seconds || 0).toFixed(1) + " s");
  if ((ev.attempts || 0) > 1) parts.push(ev.attempts + " tries");
  return parts;
}

/** A folded text in monospace, wrapped. @param {string} title @param {string} text @param {string} cls */
function folded(title, text, cls) {
  const fold = el("details", cls);
  fold.append(el("summary", "", title), el("pre", "call-text", text));
  return fold;
}

/** Where a call's transcript left messages out, and why. @param {number} cut */
function cutNote(cut) {
  return el("p", "call-cut muted", plural(cut, "message", "messages") + " cut here: a transcript keeps a bounded " +
    "amount of one call's text, so the first message and the latest ones are shown and the ones between are left out.");
}

/** One call: its facts, then its prompt (each message under its role) and its reply, folded. @param {any} ev */
export function callItem(ev) {
  const item = el("li", "model-call");
  item.dataset.prompt = String(ev.prompt || "");
  const facts = el("div", "call-facts");
  callFacts(ev).forEach((fact, i) => facts.append(...(i ? [" · "] : []), el("span", "call-fact", fact)));
  item.append(facts);
  /** @type {{role: string, content: string}[] | undefined} */
  const messages = ev.messages;
  if (!Array.isArray(messages) && typeof ev.reply !== "string") {
    // The same facts-only call comes from a trace without --trace-text and from a check the service kept
    // from a plain request or a stream that did not ask for the transcript: the note names both ways to the text.
    item.append(el("p", "muted call-untold", "Its prompt and reply were not recorded (a trace has them with " +
      "--trace-text; a check, when it was streamed with \"transcript\": true, as this page does)."));
    return item;
  }
  const prompt = el("details", "call-prompt");
  const chars = (messages || []).reduce((n, m) => n + String(m.content || "").length, 0);
  // Messages the call's total bound left out (llm/transcript.py): always those just after the first.
  const cut = Number(ev.messages_cut) || 0;
  prompt.append(el("summary", "", "Prompt (" + plural((messages || []).length, "message", "messages") + ", " +
    plural(chars, "character", "characters") + (cut ? "; " + cut + " more cut" : "") + ")"));
  (messages || []).forEach((m, i) => {
    const message = el("div", "call-message");
    message.dataset.role = String(m.role || "");
    message.append(el("span", "call-role", m.role || "message"), el("pre", "call-text", m.content || ""));
    prompt.append(message);
    if (i === 0 && cut) prompt.append(cutNote(cut));
  });
  if (!(messages || []).length && cut) prompt.append(cutNote(cut));
  const reply = String(ev.reply ?? "");
  item.append(prompt, folded("Reply (" + plural(reply.length, "character", "characters") + ")", reply, "call-reply"));
  return item;
}

/** The calls of one agent in one round: a folded "Model calls (N)", wherever the layout holds them. */
class CallGroup {
  /** @param {any} first the group's first call, whose agent and round name it @param {string} unit what its round counts */
  constructor(first, unit) {
    this.first = first;
    this.unit = unit;
    this.count = 0;
    this.node = el("details", "model-calls");
    this.summary = el("summary", "");
    this.list = el("ol", "call-list");
    this.node.append(this.summary, this.list);
    this.node.dataset.agent = String(first.agent || "");
    this.node.dataset.round = String(first.round ?? "");
    this.named = false; // listed under the debate, not in a turn: its summary says whose calls they are
  }

  /** @param {any} ev */
  add(ev) {
    this.count += 1;
    this.list.append(callItem(ev));
    this.draw();
  }

  draw() {
    const who = (this.first.agent || this.first.role || "model") + (this.first.round ? ", " + this.unit + " " + this.first.round : "");
    this.summary.textContent = (this.named ? who + ": " : "") + "Model calls (" + this.count + ")";
  }
}

export class CallLog {
  /** @param {string} [unit] what a call's round counts: "step" where the method numbers its calls by step (ReAct) */
  constructor(unit) {
    this.unit = unit || "round";
    /** @type {Map<string, CallGroup>} agent#round -> its calls */
    this.groups = new Map();
    // Calls the layout holds in no turn (a DPD gatherer's queries, a scorer's): a section under the debate.
    this.other = el("section", "other-calls");
    this.other.hidden = true;
    this.otherList = el("div", "other-calls-list");
    this.other.append(el("span", "kicker", "other model calls"), this.otherList);
  }

  /** @param {any} ev an llm_call */
  add(ev) {
    const key = (ev.agent || ev.role || "") + "#" + (ev.round ?? "");
    let group = this.groups.get(key);
    if (!group) {
      group = new CallGroup(ev, this.unit);
      this.groups.set(key, group);
    }
    group.add(ev);
  }

  /**
   * Puts each group where the layout now holds its calls (a turn drawn anew, a card made after its first
   * call), or under the debate while it holds them nowhere.
   * @param {((ev: any) => HTMLElement | null) | undefined} host
   */
  place(host) {
    this.groups.forEach(group => {
      const home = host ? host(group.first) : null;
      const target = home || this.otherList;
      if (group.node.parentElement !== target) target.append(group.node);
      if (group.named !== !home) { group.named = !home; group.draw(); }
    });
    this.other.hidden = !this.otherList.childElementCount;
  }
}
