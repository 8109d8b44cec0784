/* Renders one debate: a column per agent with each round's query, evidence, reasoning, label and scores,
   then the verdict. Fed either live (trace events from the stream) or from a finished verdict object.
   All text goes through textContent: nothing from the server or a file is ever parsed as HTML. */
"use strict";

const LABEL_CLASS = { "SUPPORTS": "supports", "REFUTES": "refutes", "NOT ENOUGH INFO": "nei" };

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function labelChip(label) {
  const chip = el("span", "label " + (LABEL_CLASS[label] || "unparsed"), label || "no label");
  return chip;
}

function safeUrl(source) {
  return typeof source === "string" && /^https?:\/\//i.test(source) ? source : null;
}

const AGENT_TITLES = { rag: "RAG agent", search: "Search agent", none: "Agent without tools" };
const HOW = { consensus: "Consensus of the agents", judge: "Decided by the judge", single: "Single-agent answer",
  vote: "Majority vote", moderator: "Decided by the moderator", unparsed: "No readable label" };

/* Method-specific views (static/dpd.js) register here: { view, recognises(name, ev), attach(view) }. The
   attached extension sees each event first and draws the ones it takes (returning true). */
const VIEW_EXTENSIONS = [];

/* Which view draws a method, as each method declares it (GET /v1/methods, `view`); the page names no
   method. Until the catalogue is loaded every method gets the generic view. */
const METHOD_VIEWS = {};
function viewOf(method) { return METHOD_VIEWS[method] || "debate"; }
function learnViews(methods) { (methods || []).forEach(m => { METHOD_VIEWS[m.name] = m.view || "debate"; }); }

class DebateView {
  constructor(host) {
    this.host = host;
    this.clear();
  }

  clear() {
    this.host.replaceChildren();
    this.columns = new Map();
    this.cards = new Map();
    this.rounds = new Map();
    this.thresholds = { faithfulness: null, relevance: null };
    this.extension = null;
  }

  /* claim: text; agents: expected agent names (columns appear in this order; others are added on sight). */
  start(claim, agents, thresholds) {
    this.clear();
    this.thresholds = thresholds || this.thresholds;
    const wrap = el("div", "debate card");
    const head = el("div", "debate-head");
    const claimBox = el("blockquote", "claim-text", claim);
    this.claimText = claim;
    this.statusLine = el("div", "status-line");
    this.spinner = el("span", "spinner");
    this.statusText = el("span", "", "starting…");
    this.statusLine.append(this.spinner, this.statusText);
    head.append(claimBox, this.statusLine);
    this.verdictBox = el("div", "verdict-box");
    this.verdictBox.hidden = true;
    this.grid = el("div", "columns");
    this.roundStrip = el("ol", "round-strip");
    wrap.append(head, this.verdictBox, this.roundStrip, this.grid);
    this.host.append(wrap);
    (agents || []).forEach(name => this.column(name));
  }

  status(text, busy) {
    if (!this.statusText) return;
    this.statusText.textContent = text;
    this.spinner.hidden = !busy;
  }

  /* A column per agent (a judge or moderator gets one too); the team, if any, is named in its header. */
  column(agent, team) {
    if (this.columns.has(agent)) return this.columns.get(agent);
    const col = el("section", "agent-col");
    const kind = agent.split("-")[0];
    const head = el("header", "agent-head");
    head.append(el("span", "agent-badge " + kind, kind), el("h3", "", AGENT_TITLES[kind] || agent));
    if (agent !== kind && AGENT_TITLES[kind]) head.append(el("span", "muted", "#" + agent.split("-")[1]));
    if (team && team !== agent) head.append(el("span", "tag", "team " + team));
    const body = el("div", "agent-rounds");
    col.append(head, body);
    col.body = body;
    this.grid.append(col);
    this.grid.style.setProperty("--cols", String(this.columns.size + 1));
    this.columns.set(agent, col);
    return col;
  }

  card(agent, round, team) {
    const key = agent + "#" + round;
    if (this.cards.has(key)) return this.cards.get(key);
    const card = el("article", "turn pending");
    const top = el("div", "turn-top");
    top.append(el("span", "round-tag", "Round " + round));
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

  /* Feeds one trace event; true when it was one this view draws. */
  event(name, ev) {
    const handlers = { turn_started: "turnStarted", answer: "answer", score: "score", step: "step",
      judgement: "judgement", round: "roundEnd" };
    if (!this.extension) {
      const found = VIEW_EXTENSIONS.find(x => x.recognises(name, ev));
      if (found) this.extension = found.attach(this);
    }
    if (this.extension && this.extension.event(name, ev)) return true;
    const extra = (window.FactDebateExtras || {})[name]; // a method's own events (mermaid.js)
    if (!handlers[name] && extra) { extra(this, ev); return true; }
    if (!handlers[name]) return false;
    this[handlers[name]](ev);
    return true;
  }

  turnStarted(ev) {
    const card = this.card(ev.agent, ev.round, ev.team);
    card.querySlot.replaceChildren();
    if (ev.query) {
      card.querySlot.append(el("span", "kicker", "query"), el("span", "query-text", ev.query));
      if (ev.query_changed) card.querySlot.append(el("span", "tag", "new"));
    }
    this.evidence(card, ev.evidence || []);
    this.status("Round " + ev.round + ": " + ev.agent + " is answering…", true);
  }

  evidence(card, docs) {
    card.evidenceSlot.replaceChildren();
    if (!docs.length) return;
    const list = el("ol", "docs");
    docs.forEach(doc => {
      const item = el("li");
      const url = safeUrl(doc.source);
      const title = url ? el("a", "doc-title", doc.title || url) : el("span", "doc-title", doc.title || doc.id);
      if (url) { title.href = url; title.target = "_blank"; title.rel = "noopener noreferrer"; }
      item.append(title);
      if (!url && doc.source) item.append(el("span", "doc-source", doc.source));
      if (doc.text) {
        const more = el("details", "doc-text");
        more.append(el("summary", "", "passage"), el("p", "", doc.text));
        item.append(more);
      }
      list.append(item);
    });
    card.evidenceSlot.append(el("span", "kicker", "evidence"), list);
  }

  step(ev) {
    const card = this.card(ev.agent, ev.round);
    const args = Object.values(ev.arguments || {}).join(", ");
    const item = el("li", "step");
    if (ev.thought) item.append(el("span", "", ev.thought + " "));
    item.append(el("span", "query-text", (ev.tool || "no valid action") + (args ? "[" + args + "]" : "")));
    if (ev.observation) item.append(el("span", "muted", " → " + ev.observation));
    card.stepSlot.append(item);
    this.status("Step " + (ev.index || card.stepSlot.childElementCount) + ": " + (ev.tool || "no action"), true);
  }

  judgement(ev) {
    const card = this.card(ev.agent, ev.round);
    card.classList.remove("pending");
    card.classList.add("judgement");
    card.responseSlot.replaceChildren(el("p", "", ev.response || ""));
    const vote = ev.vote || (ev.parsed === false ? null : "no decision");
    card.labelSlot.replaceChildren(vote === "no decision" ? el("span", "tag", vote) : labelChip(vote));
    const extra = [];
    if (ev.confidence !== null && ev.confidence !== undefined) extra.push("confidence " + Number(ev.confidence).toFixed(2));
    if (ev.weight !== undefined && ev.weight !== 1) extra.push("weight " + ev.weight);
    card.scoreSlot.replaceChildren(el("p", "muted", extra.join(" · ")));
    this.status((ev.role || "judge") + " decided " + (ev.vote || "nothing"), true);
  }

  answer(ev) {
    const card = this.card(ev.agent, ev.round);
    card.classList.remove("pending");
    card.responseSlot.replaceChildren(el("p", "", ev.response || ""));
    card.labelSlot.replaceChildren(labelChip(ev.label));
    this.status("Round " + ev.round + ": " + ev.agent + " answered " + (ev.label || "without a label"), true);
  }

  score(ev) {
    const card = this.card(ev.agent, ev.round);
    card.scoreSlot.replaceChildren();
    Object.entries(ev.scores || {}).forEach(([name, value]) => {
      card.scoreSlot.append(gauge(name.replace(/_/g, " "), value, this.thresholds[name] ?? null));
    });
    (ev.errors || []).forEach(msg => card.scoreSlot.append(el("p", "score-error", msg)));
  }

  roundEnd(ev) {
    let item = this.rounds.get(ev.round);
    if (!item) {
      item = el("li");
      this.rounds.set(ev.round, item);
      this.roundStrip.append(item);
    }
    item.className = ev.consensus ? "agree" : "split";
    item.textContent = "Round " + ev.round + ": " + (ev.consensus ? "consensus" : "no consensus");
    this.status(ev.consensus ? "Decided." : ev.final ? "Weighing the debate…" :
      "Round " + ev.round + " ended without consensus.", true);
  }

  verdict(v) {
    const box = this.verdictBox;
    box.replaceChildren();
    box.hidden = false;
    box.className = "verdict-box " + (LABEL_CLASS[v.label] || "unparsed");
    const main = el("div", "verdict-main");
    main.append(el("span", "kicker", "verdict"), el("span", "verdict-label", v.label || "no label"));
    const rounds = (v.rounds || []).length;
    let how = HOW[v.decided_by] || "Decided by " + v.decided_by;
    if (v.decided_by === "consensus" || v.decided_by === "moderator") how += " in round " + rounds;
    if (v.decided_by === "judge") how += " after " + rounds + " round" + (rounds === 1 ? "" : "s") + " without consensus";
    main.append(el("span", "verdict-how", how));
    box.append(main);
    (v.judges || []).forEach(j => {
      if (!j.response) return;
      const judge = el("details", "judge");
      judge.open = true;
      judge.append(el("summary", "", (j.agent || "judge") + "'s reasoning"), el("p", "", j.response));
      box.append(judge);
    });
    if (v.explanation) box.append(el("p", "muted", v.explanation));
    if (v.usage) {
      const u = v.usage;
      box.append(el("p", "usage muted", u.llm_calls + " model calls · " + u.tool_calls + " searches · " +
        (u.prompt_tokens + u.completion_tokens) + " tokens · " + Number(u.seconds || 0).toFixed(1) + " s"));
    }
    this.status("Done.", false);
  }

  error(message) {
    const box = this.verdictBox || el("div");
    box.hidden = false;
    box.className = "verdict-box failed";
    box.replaceChildren(el("strong", "", "The verification failed: "), el("span", "", message));
    this.status("Stopped.", false);
  }

  /* Re-draw a finished verdict (the stream's result, the history, a results file) through the same
     event handlers as the live view; files of schema 1 are upgraded first. */
  render(raw) {
    const v = window.FactDebate.upgradeVerdict(raw);
    const section = ((v.config || {}).methods || {})[v.method] || {};
    const thresholds = {};
    Object.entries(section).forEach(([k, val]) => { if (k.endsWith("_threshold")) thresholds[k.slice(0, -10)] = val; });
    if (thresholds.relevance !== undefined) thresholds.answer_relevance = thresholds.relevance;
    this.start(v.claim || "", [], thresholds);
    const own = VIEW_EXTENSIONS.find(x => x.view === viewOf(v.method));
    if (own) { this.extension = own.attach(this); this.extension.render(v); return; }
    const redraw = (window.FactDebateExtras || {}).__verdict; // a method's own parts of a finished verdict
    if (redraw) redraw(this, v);
    (v.rounds || []).forEach(r => {
      (r.turns || []).forEach(t => {
        this.turnStarted({ ...t, round: r.round });
        (t.steps || []).forEach((s, i) => this.step({ ...s, agent: t.agent, round: r.round, index: i + 1 }));
        this.answer({ ...t, round: r.round });
        if (Object.keys(t.scores || {}).length || (t.score_errors || []).length) {
          this.score({ agent: t.agent, round: r.round, scores: t.scores, errors: t.score_errors });
        }
      });
      (r.judges || []).forEach(j => this.judgement({ ...j, round: r.round }));
      const last = r.round === v.rounds[v.rounds.length - 1].round;
      this.roundEnd({ round: r.round, consensus: last && ["consensus", "moderator"].includes(v.decided_by), final: last });
    });
    const after = (v.rounds || []).length + 1;
    (v.judges || []).forEach(j => this.judgement({ ...j, round: after }));
    if (v.error) this.error(v.error); else this.verdict(v);
  }
}

function gauge(name, value, threshold) {
  const wrap = el("div", "gauge");
  const head = el("div", "gauge-head");
  head.append(el("span", "", name));
  const shown = value === null || value === undefined ? "n/a" : Number(value).toFixed(2);
  head.append(el("span", "gauge-value", shown + (threshold !== null && threshold !== undefined ? " / " + threshold : "")));
  const bar = el("div", "gauge-bar");
  const fill = el("div", "gauge-fill");
  if (value !== null && value !== undefined) {
    fill.style.width = Math.max(0, Math.min(1, value)) * 100 + "%";
    if (threshold !== null && threshold !== undefined) fill.classList.add(value >= threshold ? "ok" : "low");
  } else {
    wrap.classList.add("na");
  }
  bar.append(fill);
  if (threshold !== null && threshold !== undefined) {
    const tick = el("div", "gauge-tick");
    tick.style.left = threshold * 100 + "%";
    tick.title = "threshold " + threshold;
    bar.append(tick);
  }
  wrap.append(head, bar);
  return wrap;
}

window.FactDebate = { DebateView, labelChip, el, LABEL_CLASS, gauge, VIEW_EXTENSIONS, viewOf, learnViews };
