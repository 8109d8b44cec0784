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

/* Tool-MAD names agents after their tool, numbering repeated tools: rag, search / none-1, none-2. */
function agentNames(kinds) {
  return kinds.map((kind, i) => {
    const count = kinds.filter(k => k === kind).length;
    if (count === 1) return kind;
    return kind + "-" + kinds.slice(0, i + 1).filter(k => k === kind).length;
  });
}

const AGENT_TITLES = { rag: "RAG agent", search: "Search agent", none: "Agent without tools" };

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
  }

  /* claim: text; agents: expected agent names (columns appear in this order; others are added on sight). */
  start(claim, agents, thresholds) {
    this.clear();
    this.thresholds = thresholds || this.thresholds;
    const wrap = el("div", "debate card");
    const head = el("div", "debate-head");
    const claimBox = el("blockquote", "claim-text", claim);
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

  column(agent) {
    if (this.columns.has(agent)) return this.columns.get(agent);
    const col = el("section", "agent-col");
    const kind = agent.split("-")[0];
    const head = el("header", "agent-head");
    head.append(el("span", "agent-badge " + kind, kind), el("h3", "", AGENT_TITLES[kind] || agent));
    if (agent !== kind) head.append(el("span", "muted", "#" + agent.split("-")[1]));
    const body = el("div", "agent-rounds");
    col.append(head, body);
    col.body = body;
    this.grid.append(col);
    this.grid.style.setProperty("--cols", String(this.columns.size + 1));
    this.columns.set(agent, col);
    return col;
  }

  card(agent, round) {
    const key = agent + "#" + round;
    if (this.cards.has(key)) return this.cards.get(key);
    const card = el("article", "turn pending");
    const top = el("div", "turn-top");
    top.append(el("span", "round-tag", "Round " + round));
    card.labelSlot = el("span", "label-slot");
    top.append(card.labelSlot);
    card.querySlot = el("div", "query");
    card.evidenceSlot = el("div", "evidence");
    card.responseSlot = el("div", "response");
    card.responseSlot.append(el("span", "muted thinking", "thinking…"));
    card.scoreSlot = el("div", "scores");
    card.append(top, card.querySlot, card.evidenceSlot, card.responseSlot, card.scoreSlot);
    this.column(agent).body.append(card);
    this.cards.set(key, card);
    return card;
  }

  turnStarted(ev) {
    const card = this.card(ev.agent, ev.round);
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
    const hasDocs = card.evidenceSlot.childElementCount > 0;
    if (ev.consistency !== null && ev.consistency !== undefined) {
      card.scoreSlot.append(gauge("consistency", ev.consistency, null));
    }
    if (hasDocs || ev.faithfulness !== null && ev.faithfulness !== undefined) {
      card.scoreSlot.append(gauge("faithfulness", ev.faithfulness, this.thresholds.faithfulness));
    }
    if (ev.answer_relevance !== undefined) {
      card.scoreSlot.append(gauge("relevance", ev.answer_relevance, this.thresholds.relevance));
    }
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
    this.status(ev.consensus ? "Consensus reached." : "Round " + ev.round + " ended without consensus.", true);
  }

  judging() {
    this.status("The judge is weighing the debate…", true);
  }

  verdict(v) {
    const box = this.verdictBox;
    box.replaceChildren();
    box.hidden = false;
    box.className = "verdict-box " + (LABEL_CLASS[v.label] || "unparsed");
    const main = el("div", "verdict-main");
    main.append(el("span", "kicker", "verdict"), el("span", "verdict-label", v.label || "no label"));
    const rounds = (v.rounds || []).length;
    let how = "";
    if (v.decided_by === "consensus") how = "Consensus of the agents in round " + rounds;
    else if (v.decided_by === "judge") how = "Decided by the judge after " + rounds + " round" + (rounds === 1 ? "" : "s") + " without consensus";
    else if (v.decided_by === "single") how = "Single-agent answer";
    else how = "No readable label";
    main.append(el("span", "verdict-how", how));
    box.append(main);
    if (v.judge && v.judge.response) {
      const judge = el("details", "judge");
      judge.open = true;
      judge.append(el("summary", "", "Judge's reasoning"), el("p", "", v.judge.response));
      box.append(judge);
    }
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

  /* Re-draw a finished verdict (from the stream's result, the history or a results file). */
  render(v) {
    const cfg = (v.config && v.config.toolmad) || {};
    const names = [];
    (v.rounds || []).forEach(r => r.turns.forEach(t => { if (!names.includes(t.agent)) names.push(t.agent); }));
    this.start(v.claim || "", names, { faithfulness: cfg.faithfulness_threshold ?? null,
      relevance: cfg.relevance_threshold ?? null });
    (v.rounds || []).forEach(r => {
      r.turns.forEach(t => {
        this.turnStarted({ agent: t.agent, round: r.round, query: t.query, query_changed: t.query_changed,
          evidence: t.evidence || [] });
        this.answer({ agent: t.agent, round: r.round, label: t.label, response: t.response });
        if (t.faithfulness !== null || t.answer_relevance !== null || t.consistency !== null ||
            (t.score_errors || []).length) {
          this.score({ agent: t.agent, round: r.round, faithfulness: t.faithfulness,
            answer_relevance: t.answer_relevance, consistency: t.consistency, errors: t.score_errors });
        }
      });
      const labels = new Set(r.turns.map(t => t.label));
      const consensus = v.decided_by === "consensus" && r.round === v.rounds[v.rounds.length - 1].round;
      this.roundEnd({ round: r.round, consensus: consensus, labels: [...labels] });
    });
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

window.FactDebate = { DebateView, agentNames, labelChip, el, LABEL_CLASS };
