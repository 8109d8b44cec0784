// @ts-check
/* The generic layout: a column per agent (a judge or moderator gets one too), a card per round with its
   query, evidence, steps, answer, label and score gauges, and a strip of the rounds. Draws any method that
   records turns, steps and judgements (methods/kit/turns.py). */
import { el, gauge, labelChip, safeUrl } from "../dom.js";
import { unique } from "../reason.js";
import { oneTabStop } from "../roving.js";
import { registerMethodView } from "../views.js";
import { roundSentence } from "../why.js";

/** @typedef {HTMLElement & {labelSlot: HTMLElement, querySlot: HTMLElement, evidenceSlot: HTMLElement,
 *   stepSlot: HTMLElement, responseSlot: HTMLElement, scoreSlot: HTMLElement, roundTag: HTMLElement}} Card */

/** The most agents drawn side by side as columns; more (a vote's many samples) are counted in a tally table
 * and their cards folded under it: 29 cards one under another made a phone's page 10,000 px long. */
export const MANY_AGENTS = 4;

/** A list of retrieved passages, each title linking to its source, each once (a ReAct turn's evidence is
 * every step's, repeats and all). @param {any[]} docs */
export function evidenceList(docs) {
  const list = el("ol", "docs");
  unique(docs).forEach(doc => {
    const item = el("li");
    const url = safeUrl(doc.source);
    const title = url ? el("a", "doc-title", doc.title || url) : el("span", "doc-title", doc.title || doc.id);
    if (url && title instanceof HTMLAnchorElement) { title.href = url; title.target = "_blank"; title.rel = "noopener noreferrer"; }
    item.append(title);
    if (!url && doc.source) item.append(el("span", "doc-source", doc.source));
    if (doc.text) {
      const more = el("details", "doc-text");
      more.append(el("summary", "", "passage"), el("p", "", doc.text));
      item.append(more);
    }
    list.append(item);
  });
  return oneTabStop(list, "Passages read");
}

/** One step of a tool-using agent: thought, action, observation. @param {any} ev */
export function stepText(ev) {
  const args = Object.values(ev.arguments || {}).join(", ");
  return (ev.tool || "no valid action") + (args ? "[" + args + "]" : "");
}

/**
 * A step's observation folded, its start in the summary. One that repeats an earlier step's (the same text, or
 * the same passages) names that step rather than listing them again: a ReAct agent searching five times
 * over the same three documents showed them five times.
 * @param {any} ev the step @param {HTMLElement} steps the agent's steps so far
 * @param {boolean} [sameDocs] whether the same passages make the same observation: not where tools read one
 *   page in different ways (MERMAID's search snippets, then the page's text), where only the same text does
 */
export function observationFold(ev, steps, sameDocs = true) {
  const docs = (ev.evidence || []).map((/** @type {any} */ d) => d.id || d.source || d.title).sort().join("\n");
  const earlier = [...steps.querySelectorAll(".step-observation")].findIndex(d => {
    const seen = /** @type {HTMLElement} */ (d).dataset;
    return seen.text === ev.observation || (sameDocs && docs !== "" && seen.docs === docs);
  });
  const fold = el("details", "step-observation");
  fold.dataset.text = ev.observation;
  fold.dataset.docs = docs;
  const gist = String(ev.observation).replace(/\s+/g, " ").slice(0, 90);
  fold.append(el("summary", "", earlier >= 0 ? "observation: the same as step " + (earlier + 1) :
    "observation: " + gist + (ev.observation.length > 90 ? "…" : "")));
  if (earlier < 0) fold.append(el("p", "", ev.observation));
  return fold;
}

class DebateLayout {
  /** @param {import("../verdict-view.js").VerdictView} shell @param {import("../views.js").MethodView} view */
  constructor(shell, view) {
    this.shell = shell;
    this.view = view;
    this.roundStrip = el("ol", "round-strip");
    this.roundStrip.hidden = !view.rounds;
    this.grid = el("div", "columns");
    this.tally = el("table", "tally");
    this.tally.hidden = true;
    this.fold = el("details", "many-answers");
    this.foldTitle = el("summary", "");
    this.fold.append(this.foldTitle);
    shell.body.append(this.roundStrip, this.tally, this.grid);
    /** @type {Map<string, HTMLElement & {body: HTMLElement}>} */
    this.columns = new Map();
    /** @type {Map<string, Card>} */
    this.cards = new Map();
    /** @type {Map<number, HTMLElement>} */
    this.rounds = new Map();
    /** @type {Map<number, Map<string, import("../why.js").Answer>>} each round's answers, for its sentence */
    this.answers = new Map();
    /** @type {Map<string, HTMLElement>} each step an agent took, by agent#number, for the call that chose it */
    this.stepItems = new Map();
  }

  /** @param {number} round @param {string} agent */
  answerOf(round, agent) {
    const byAgent = this.answers.get(round) || new Map();
    this.answers.set(round, byAgent);
    const known = byAgent.get(agent) || { agent, label: null, scores: {} };
    byAgent.set(agent, known);
    return known;
  }

  /**
   * The card of the turn a model call served: its agent's in its round (a judge's too); where the method
   * numbers its calls by step (ReAct), the step it chose, else (the forced answer) the agent's latest card.
   * @param {any} ev
   */
  callHost(ev) {
    const card = this.cards.get(ev.agent + "#" + ev.round);
    if (!this.view.calls_by_step) return card || null;
    const step = this.stepItems.get(ev.agent + "#" + ev.round);
    if (step) return step;
    const own = [...this.cards.entries()].filter(([key]) => key.startsWith(ev.agent + "#"));
    return card || (own.length ? own[own.length - 1][1] : null);
  }

  /** @param {string} name @param {any} ev */
  event(name, ev) {
    /** @type {Record<string, (ev: any) => void>} */
    const handlers = { turn_started: e => this.turnStarted(e), answer: e => this.answer(e), score: e => this.score(e),
      step: e => this.step(e), judgement: e => this.judgement(e), round: e => this.roundEnd(e) };
    if (!handlers[name]) return false;
    handlers[name](ev);
    return true;
  }

  /**
   * An agent's column, made on its first event. Columns keep one order whichever agent speaks first (rag
   * before search, voter-2 before voter-10); a judge's comes after the agents'.
   * @param {string} agent @param {string} [team] @param {boolean} [judge]
   */
  column(agent, team, judge) {
    const known = this.columns.get(agent);
    if (known) return known;
    const col = /** @type {HTMLElement & {body: HTMLElement}} */ (el("section", "agent-col"));
    const kind = agent.split("-")[0];
    const head = el("header", "agent-head");
    const titles = this.view.agents;
    head.append(el("span", "agent-badge " + kind, kind), el("h3", "agent-title", titles[kind] || agent));
    if (agent !== kind && titles[kind]) head.append(el("span", "muted", "#" + agent.split("-")[1]));
    if (team && team !== agent) head.append(el("span", "tag", "team " + team));
    col.body = el("div", "agent-rounds");
    col.append(head, col.body);
    if (judge) col.dataset.judge = "true";
    const next = judge ? null : [...this.columns.entries()].find(([name, c]) => c.dataset.judge ||
      name.localeCompare(agent, undefined, { numeric: true }) > 0);
    if (next) this.grid.insertBefore(col, next[1]); else this.grid.append(col);
    const count = this.columns.size + 1;
    this.grid.style.setProperty("--cols", String(count));
    // Past MANY_AGENTS a column each would be too narrow to read: the columns become a wrapping grid.
    this.grid.classList.toggle("many", count > MANY_AGENTS);
    this.columns.set(agent, col);
    this.foldMany();
    return col;
  }

  /** Past MANY_AGENTS the cards are folded under a tally of the answers; fewer stay open as columns. */
  foldMany() {
    const agents = [...this.columns.values()].filter(c => !c.dataset.judge).length;
    const many = agents > MANY_AGENTS;
    if (many && this.grid.parentElement !== this.fold) {
      this.grid.replaceWith(this.fold);
      this.fold.append(this.grid);
    } else if (!many && this.grid.parentElement === this.fold) this.fold.replaceWith(this.grid);
    this.foldTitle.textContent = "Each answer (" + agents + " cards)";
    this.tally.hidden = !many;
    if (many) this.drawTally();
  }

  /** How many agents gave each label in the latest round that has answers, and who: a vote read at a glance. */
  drawTally() {
    const latest = Math.max(0, ...[...this.answers.entries()].filter(([, a]) => a.size).map(([round]) => round));
    const answers = [...(this.answers.get(latest) || new Map()).values()].filter(a => !a.statement);
    /** @type {Map<string, string[]>} */
    const byLabel = new Map();
    answers.forEach(a => {
      const label = a.label || "no label";
      byLabel.set(label, [...(byLabel.get(label) || []), a.agent]);
    });
    const waiting = this.columns.size - answers.length - [...this.columns.values()].filter(c => c.dataset.judge).length;
    const caption = el("caption", "", answers.length + " answer" + (answers.length === 1 ? "" : "s") +
      (this.view.rounds && latest ? " in round " + latest : "") + (waiting > 0 ? ", " + waiting + " still to come" : ""));
    const head = el("tr");
    head.append(el("th", "", "Label"), el("th", "num", "Count"), el("th", "", "Who"));
    const rows = [...byLabel.entries()].sort((a, b) => b[1].length - a[1].length).map(([label, who]) => {
      const row = el("tr");
      row.dataset.label = label;
      const sorted = who.sort((x, y) => x.localeCompare(y, undefined, { numeric: true }));
      const chip = el("td", "");
      chip.append(label === "no label" ? el("span", "tag", label) : labelChip(label));
      row.append(chip, el("td", "num", String(who.length)), el("td", "who", sorted.join(", ")));
      return row;
    });
    this.tally.replaceChildren(caption, head, ...rows);
  }

  /** @param {string} agent @param {number} round @param {string} [team] @returns {Card} */
  card(agent, round, team) {
    const key = agent + "#" + round;
    const known = this.cards.get(key);
    if (known) return known;
    const card = /** @type {Card} */ (el("article", "turn pending"));
    const top = el("div", "turn-top");
    card.roundTag = el("span", "round-tag", this.view.rounds ? "Round " + round : "");
    top.append(card.roundTag);
    card.labelSlot = el("span", "label-slot");
    top.append(card.labelSlot);
    card.querySlot = el("div", "query");
    card.evidenceSlot = el("div", "evidence");
    card.stepSlot = el("ol", "steps");
    card.responseSlot = el("div", "response");
    card.responseSlot.append(el("span", "muted thinking", "thinking…"));
    card.scoreSlot = el("div", "scores");
    card.append(top, card.querySlot, card.evidenceSlot, card.stepSlot, card.responseSlot, card.scoreSlot);
    this.column(agent, team).body.append(card);
    this.cards.set(key, card);
    return card;
  }

  /**
   * A column that checks a part of the claim (FacTool's extracted claims) is titled with that part's words,
   * cut to a line by CSS, whole on hover and for a screen reader; a verdict written before turns carried it
   * keeps the view's name and number ("Claim #1").
   * @param {string} agent @param {string} claim
   */
  titleColumn(agent, claim) {
    const title = /** @type {HTMLElement | null | undefined} */ (this.columns.get(agent)?.querySelector(".agent-title"));
    if (!title || !claim) return;
    title.textContent = claim;
    title.title = claim;
    title.classList.add("sub-claim");
  }

  /** @param {any} ev */
  turnStarted(ev) {
    const card = this.card(ev.agent, ev.round, ev.team);
    if (ev.claim) this.titleColumn(ev.agent, String(ev.claim));
    card.querySlot.replaceChildren();
    if (ev.query) {
      card.querySlot.append(el("span", "kicker", "query"), el("span", "query-text", ev.query));
      if (ev.query_changed) card.querySlot.append(el("span", "tag", "new"));
    }
    card.evidenceSlot.replaceChildren();
    if ((ev.evidence || []).length) card.evidenceSlot.append(el("span", "kicker", "evidence"), evidenceList(ev.evidence));
    this.shell.status(this.shell.roundText(ev.round) + ": " + ev.agent + " is answering…", true);
  }

  /** @param {any} ev */
  step(ev) {
    const card = this.card(ev.agent, ev.round);
    const item = el("li", "step");
    if (ev.thought) item.append(el("span", "", ev.thought + " "));
    item.append(el("span", "query-text", stepText(ev)));
    if (ev.observation) item.append(observationFold(ev, card.stepSlot));
    card.stepSlot.append(item);
    this.stepItems.set(ev.agent + "#" + (ev.index || card.stepSlot.childElementCount), item);
    this.shell.status("Step " + (ev.index || card.stepSlot.childElementCount) + ": " + (ev.tool || "no action"), true);
  }

  /** @param {any} ev */
  judgement(ev) {
    this.column(ev.agent, undefined, true);
    const card = this.card(ev.agent, ev.round);
    card.classList.remove("pending");
    card.classList.add("judgement");
    // A judge deciding after the debate (round 4 of a 3-round debate) is named as the judge, not a round.
    const debated = [...this.cards.entries()].some(([key, c]) => key.endsWith("#" + ev.round) && !c.classList.contains("judgement"));
    if (!debated && this.view.rounds) {
      const after = ev.round - 1;
      card.roundTag.textContent = (this.view.roles[ev.role || ""]?.title || "Judge") +
        (after > 0 ? ", after " + after + " round" + (after === 1 ? "" : "s") : "");
      card.dataset.after = String(after);
    }
    card.responseSlot.replaceChildren(el("p", "", ev.response || ""));
    const vote = ev.vote || (ev.parsed === false ? null : "no decision");
    card.labelSlot.replaceChildren(vote === "no decision" ? el("span", "tag", vote) : labelChip(vote));
    const extra = [];
    if (ev.confidence !== null && ev.confidence !== undefined) extra.push("confidence " + Number(ev.confidence).toFixed(2));
    if (ev.weight !== undefined && ev.weight !== 1) extra.push("weight " + ev.weight);
    card.scoreSlot.replaceChildren(el("p", "muted", extra.join(" · ")));
    this.shell.status((ev.role || "judge") + " decided " + (ev.vote || "nothing"), true);
  }

  /** @param {any} ev */
  answer(ev) {
    const card = this.card(ev.agent, ev.round);
    card.classList.remove("pending");
    card.responseSlot.replaceChildren(el("p", "", ev.response || ""));
    const statement = Boolean(this.view.roles[ev.role]?.statement);
    if (!statement) card.labelSlot.replaceChildren(labelChip(ev.label));
    Object.assign(this.answerOf(ev.round, ev.agent), { label: ev.label ?? null, statement });
    if (!this.tally.hidden) this.drawTally();
    this.shell.status(this.shell.roundText(ev.round) + ": " + ev.agent + " answered " + (ev.label || "without a label"), true);
  }

  /** @param {any} ev */
  score(ev) {
    const card = this.card(ev.agent, ev.round);
    card.scoreSlot.replaceChildren();
    this.answerOf(ev.round, ev.agent).scores = { ...(ev.scores || {}) };
    Object.entries(ev.scores || {}).forEach(([name, value]) => {
      card.scoreSlot.append(gauge(name.replace(/_/g, " "), value, this.shell.thresholds[name] ?? null));
    });
    (ev.errors || []).forEach((/** @type {string} */ msg) => card.scoreSlot.append(el("p", "score-error", msg)));
  }

  /** @param {any} ev */
  roundEnd(ev) {
    let item = this.rounds.get(ev.round);
    if (!item) {
      item = el("li");
      this.rounds.set(ev.round, item);
      this.roundStrip.append(item);
    }
    const answers = [...(this.answers.get(ev.round) || new Map()).values()];
    const lone = answers.filter(a => !a.statement).length < 2;
    item.className = ev.consensus ? "agree" : lone ? "" : "split";
    item.textContent = roundSentence({ round: this.shell.roundText(ev.round), consensus: Boolean(ev.consensus),
      answers, thresholds: this.shell.thresholds });
    this.shell.status(ev.consensus ? "Decided." : ev.final ? "Weighing the debate…" :
      this.shell.roundText(ev.round) + " ended without consensus.", true);
  }

  /**
   * The run ended without its verdict: the cards of turns that never answered and hold nothing (no query,
   * passage, step, score or model call) go, then the columns and rounds left without a card. A turn that got
   * as far as its search keeps its card, with what it found.
   */
  ended() {
    this.cards.forEach((card, key) => {
      const held = [card.querySlot, card.evidenceSlot, card.stepSlot, card.scoreSlot].some(s => s.childElementCount);
      if (!card.classList.contains("pending") || held || card.querySelector(".model-calls")) return;
      card.remove();
      this.cards.delete(key);
    });
    this.columns.forEach((col, agent) => {
      if (col.body.childElementCount) return;
      col.remove();
      this.columns.delete(agent);
    });
    this.grid.style.setProperty("--cols", String(this.columns.size));
    this.grid.classList.toggle("many", this.columns.size > MANY_AGENTS);
    this.foldMany();
    this.grid.hidden = !this.columns.size;
  }

  /** A finished verdict, through the same handlers as the live events. @param {any} v */
  render(v) {
    this.grid.hidden = false;
    this.grid.replaceChildren();
    this.roundStrip.replaceChildren();
    this.columns.clear();
    this.cards.clear();
    this.rounds.clear();
    this.answers.clear();
    this.stepItems.clear();
    const rounds = v.rounds || [];
    rounds.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
      (r.turns || []).forEach((/** @type {any} */ t) => {
        this.turnStarted({ ...t, round: r.round });
        (t.steps || []).forEach((/** @type {any} */ s, /** @type {number} */ n) =>
          this.step({ ...s, agent: t.agent, round: r.round, index: n + 1 }));
        this.answer({ ...t, round: r.round });
        if (Object.keys(t.scores || {}).length || (t.score_errors || []).length) {
          this.score({ agent: t.agent, round: r.round, scores: t.scores, errors: t.score_errors });
        }
      });
      (r.judges || []).forEach((/** @type {any} */ j) => this.judgement({ ...j, round: r.round }));
      const last = i === rounds.length - 1;
      this.roundEnd({ round: r.round, consensus: last && ["consensus", "moderator"].includes(v.decided_by), final: last });
    });
    (v.judges || []).forEach((/** @type {any} */ j) => this.judgement({ ...j, round: rounds.length + 1 }));
  }
}

registerMethodView("debate", (shell, view) => new DebateLayout(shell, view));
