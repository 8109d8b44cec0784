/* DPD's live view: the affirmative and negative teams as two columns, each round's role statements
   (gatherer's snippets, rebutter, summarizer with its confidence) as they come, the shared analyst above
   them, and the judges' panel per round: each judge's E/C/N/P scores for both sides, vote, confidence and
   weight, then the weighted totals and the consensus. Registered with DebateView (debate.js); all text
   goes through textContent. */
"use strict";

(function () {
  const { el, gauge, VIEW_EXTENSIONS, viewOf } = window.FactDebate;
  const ROLES = new Set(["gatherer", "analyst", "rebutter", "summarizer"]);
  const SIDES = { affirmative: "Affirmative team — the claim is factual",
    negative: "Negative team — the claim is hallucinated" };
  const DIMS = ["E", "C", "N", "P"];
  const VOTE_NAME = { "SUPPORTS": "affirmative", "REFUTES": "negative", "NOT ENOUGH INFO": "tie" };
  const fixed = value => (value === null || value === undefined ? "n/a" : Number(value).toFixed(2));

  class DPDView {
    constructor(view) {
      this.view = view;
      this.cards = new Map();
      this.roundBoxes = new Map();
      this.panels = new Map();
      this.root = el("div", "dpd");
      this.shared = el("div", "dpd-shared");
      const teams = el("div", "dpd-teams");
      this.teams = {};
      Object.entries(SIDES).forEach(([side, title]) => {
        const col = el("section", "dpd-team " + side);
        col.append(el("h3", "dpd-team-head", title));
        col.body = el("div", "dpd-team-body");
        col.append(col.body);
        this.teams[side] = col;
        teams.append(col);
      });
      this.judges = el("section", "dpd-judges");
      this.judges.append(el("h3", "dpd-team-head", "Judges' panel"));
      this.root.append(this.shared, teams, this.judges);
      view.grid.hidden = true;
      view.grid.after(this.root);
    }

    event(name, ev) {
      if (name === "turn_started" && ROLES.has(ev.role)) { this.turnStarted(ev); return true; }
      if (name === "answer" && ROLES.has(ev.role)) { this.answer(ev); return true; }
      if (name === "score" && this.cards.has(ev.agent + "#" + ev.round)) { this.score(ev); return true; }
      if (name === "judgement" && (ev.role || "judge") === "judge") { this.judgement(ev); return true; }
      if (name === "panel") { this.panel(ev); return true; }
      if (name === "span_begin" && ev.kind === "team" && ev.attributes && ev.attributes.state) {
        this.roundBox(ev.name, ev.attributes.round, ev.attributes.state);
        return true;
      }
      if (name === "round") {
        this.view.status(ev.round === 0 ? "Evidence gathered; the debate starts." :
          ev.final ? "The judges have decided." : "Round " + ev.round + " judged; the debate goes on.", true);
        return true;
      }
      return false;
    }

    roundBox(side, round, state) {
      const key = side + "#" + round;
      let box = this.roundBoxes.get(key);
      if (!box) {
        box = el("div", "dpd-round");
        box.head = el("div", "dpd-round-head", round === 0 ? "Setup" : round === 1 ? "Round 1 (opening)" : "Round " + round);
        box.append(box.head);
        (side === "shared" ? this.shared : this.teams[side].body).append(box);
        this.roundBoxes.set(key, box);
      }
      if (state && !box.stateTag) {
        box.stateTag = el("span", "tag dpd-state " + state, state === "skeptic" ? "S2 skeptic" : "S1 trust");
        box.head.append(box.stateTag);
      }
      return box;
    }

    card(ev) {
      const key = ev.agent + "#" + ev.round;
      if (this.cards.has(key)) return this.cards.get(key);
      const side = ev.team && this.teams[ev.team] ? ev.team : "shared";
      const card = el("article", "turn pending dpd-role " + ev.role);
      const top = el("div", "turn-top");
      top.append(el("span", "round-tag", ev.role));
      card.labelSlot = el("span", "label-slot");
      top.append(card.labelSlot);
      card.evidenceSlot = el("div", "evidence");
      card.responseSlot = el("div", "response");
      card.responseSlot.append(el("span", "muted thinking", "thinking…"));
      card.scoreSlot = el("div", "scores");
      card.append(top, card.evidenceSlot, card.responseSlot, card.scoreSlot);
      this.roundBox(side, ev.round).append(card);
      this.cards.set(key, card);
      return card;
    }

    turnStarted(ev) {
      const card = this.card(ev);
      this.view.evidence(card, ev.evidence || []);
      this.view.status((ev.round ? "Round " + ev.round + ": " : "Setup: ") + ev.agent + " is working…", true);
    }

    answer(ev) {
      const card = this.card(ev);
      card.classList.remove("pending");
      card.responseSlot.replaceChildren(el("p", "", ev.response || ""));
    }

    score(ev) {
      const card = this.cards.get(ev.agent + "#" + ev.round);
      card.scoreSlot.replaceChildren();
      Object.entries(ev.scores || {}).forEach(([name, value]) => card.scoreSlot.append(gauge(name, value, null)));
      (ev.errors || []).forEach(msg => card.scoreSlot.append(el("p", "score-error", msg)));
    }

    panelBox(round) {
      let box = this.panels.get(round);
      if (!box) {
        box = el("div", "dpd-panel");
        box.append(el("div", "dpd-round-head", round === 1 ? "Round 1 (opening)" : "Round " + round));
        const table = el("table", "dpd-ballots");
        const head = el("tr");
        ["judge", ...DIMS.map(d => "A·" + d), ...DIMS.map(d => "N·" + d), "vote", "confidence", "weight"]
          .forEach(h => head.append(el("th", "", h)));
        box.body = el("tbody");
        table.append(el("thead"), box.body);
        table.firstChild.append(head);
        box.totals = el("p", "dpd-totals muted", "waiting for the judges…");
        box.append(table, box.totals);
        this.judges.append(box);
        this.panels.set(round, box);
      }
      return box;
    }

    judgement(ev) {
      const row = el("tr", ev.parsed === false ? "unparsed" : "");
      const scores = ev.scores || {};
      row.append(el("td", "", ev.agent));
      ["affirmative", "negative"].forEach(side => DIMS.forEach(d => row.append(el("td", "num", fixed(scores[side + "." + d])))));
      const vote = el("td");
      vote.append(ev.parsed === false ? el("span", "label unparsed", "unreadable") :
        el("span", "tag", VOTE_NAME[ev.vote] || "none"));
      row.append(vote, el("td", "num", fixed(ev.confidence)), el("td", "num", fixed(ev.weight)));
      row.title = ev.response || "";
      this.panelBox(ev.round).body.append(row);
      this.view.status(ev.agent + " judge voted " + (VOTE_NAME[ev.vote] || "nothing readable"), true);
    }

    panel(ev) {
      const t = ev.totals || {};
      const box = this.panelBox(ev.round);
      box.totals.className = "dpd-totals";
      box.totals.replaceChildren(
        el("span", "", "W_A " + fixed(t.affirmative) + " · W_N " + fixed(t.negative) + " (|W_N| " +
          fixed(Math.abs(t.negative || 0)) + ") · W_T " + fixed(t.tie) + " → "),
        el("strong", "dpd-outcome", ev.outcome || "no readable ballot"),
        el("span", "dpd-consensus", " · consensus " + fixed(ev.consensus)),
        el("span", "muted", ev.stop ? " · the debate stops" : " · the debate goes on"));
      if (ev.unparsed) box.totals.append(el("span", "score-error", " · " + ev.unparsed + " unreadable ballot(s) left out"));
    }

    /* A finished verdict: the same drawing from the verdict object, then the verdict box. */
    render(v) {
      // The states per round are in the explanation's lines: "round 2 (affirmative skeptic, negative trust): …".
      const states = {};
      (v.explanation || "").split("\n").forEach(line => {
        const m = /^round (\d+) \(affirmative (trust|skeptic), negative (trust|skeptic)\)/.exec(line);
        if (m) states[m[1]] = { affirmative: m[2], negative: m[3] };
      });
      (v.rounds || []).forEach(r => {
        Object.entries(states[r.round] || {}).forEach(([side, state]) => this.roundBox(side, r.round, state));
        (r.turns || []).forEach(t => {
          const ev = { ...t, round: r.round };
          this.turnStarted(ev);
          this.answer(ev);
          if (Object.keys(t.scores || {}).length) this.score({ agent: t.agent, round: r.round, scores: t.scores, errors: t.score_errors });
        });
        (r.judges || []).forEach(j => this.judgement({ ...j, round: r.round }));
        if ((r.judges || []).length) this.panel({ round: r.round, ...tally(r.judges), stop: r === v.rounds[v.rounds.length - 1] });
      });
      if (v.error) { this.view.error(v.error); return; }
      this.view.verdict(v);
      const how = this.view.verdictBox.querySelector(".verdict-how");
      if (how) how.textContent = "Decided by the judges' weighted vote · consensus " + fixed(v.consensus);
    }
  }

  /* The panel's tally from stored ballots, as methods/dpd_panel.py computes it (for redrawing a verdict). */
  function tally(judges) {
    const read = judges.filter(j => j.parsed !== false && j.vote);
    const sum = vote => read.filter(j => j.vote === vote).reduce((a, j) => a + (j.confidence || 0), 0);
    const totals = { affirmative: sum("SUPPORTS"), negative: -sum("REFUTES"), tie: 0 };
    if (!read.length) return { totals, outcome: null, consensus: null, unparsed: judges.length };
    const compared = { affirmative: totals.affirmative, negative: -totals.negative, tie: 0 };
    const best = Math.max(...Object.values(compared));
    const leaders = Object.keys(compared).filter(k => compared[k] === best);
    const outcome = leaders.length === 1 ? leaders[0] : "tie";
    const all = read.reduce((a, j) => a + (j.confidence || 0), 0);
    const agree = read.filter(j => VOTE_NAME[j.vote] === outcome).reduce((a, j) => a + (j.confidence || 0), 0);
    return { totals, outcome, consensus: all > 0 ? agree / all : 0, unparsed: judges.length - read.length };
  }

  VIEW_EXTENSIONS.push({
    view: "dpd",
    recognises: (name, ev) => (name === "turn_started" && ROLES.has(ev.role)) || name === "panel" ||
      (name === "run_started" && viewOf(ev.method) === "dpd"),
    attach: view => new DPDView(view),
  });
  window.FactDebate.dpdTally = tally;
})();
