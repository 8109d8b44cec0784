// @ts-check
/* Two sides debating by roles (the view's `sides` and `roles`): each round's role statements in the side's
   column, what no side owns (a shared analyst) above them, and per round a referees' panel: one table with
   a row per referee (its vote, confidence and reason in a line), its scores of both sides on the view's
   ballot dimensions, its weight and whole reasoning folded in the row; then the round's weighted totals
   and, live, the outcome and the consensus. */
import { el, fixed, gauge } from "../dom.js";
import { registerMethodView } from "../views.js";
import { evidenceList } from "./debate.js";

/** @typedef {HTMLElement & {evidenceSlot: HTMLElement, responseSlot: HTMLElement, scoreSlot: HTMLElement}} RoleCard */
/** @typedef {HTMLElement & {head: HTMLElement, stateTag?: HTMLElement}} RoundBox */
/** @typedef {HTMLElement & {ballots: HTMLElement, totals: HTMLElement}} PanelBox */

/** A referee's reasoning: its "why" when the reply is a JSON ballot, else the reply as it is. @param {string} response */
function reasoning(response) {
  try {
    const parsed = JSON.parse(response);
    if (parsed && typeof parsed.why === "string" && parsed.why.trim()) return parsed.why.trim();
  } catch (_) { /* a reply in words */ }
  return response.trim();
}

/** The reason in one line: its first sentence, cut at 140 characters. @param {string} text */
export function oneLine(text) {
  const flat = text.replace(/\s+/g, " ").trim();
  const first = (flat.match(/^.*?[.!?](?=\s|$)/) || [flat])[0];
  return first.length > 140 ? first.slice(0, 139).trimEnd() + "…" : first;
}

class TeamsLayout {
  /** @param {import("../verdict-view.js").VerdictView} shell @param {import("../views.js").MethodView} view */
  constructor(shell, view) {
    this.shell = shell;
    this.view = view;
    this.root = el("div", "teams");
    this.shared = el("div", "team-shared");
    const teams = el("div", "teams-cols");
    /** @type {Record<string, HTMLElement>} */
    this.teams = {};
    Object.entries(view.sides).forEach(([side, title]) => {
      const col = el("section", "team " + side);
      col.dataset.side = side;
      const body = el("div", "team-body");
      col.append(el("h3", "team-head", title), body);
      this.teams[side] = body;
      teams.append(col);
    });
    this.referees = el("section", "referees");
    this.referees.append(el("h3", "team-head", "Referees"));
    this.root.append(this.shared, teams, this.referees);
    shell.body.append(this.root);
    /** @type {Map<string, string>} each side's state per round (live only: a saved verdict has none) */
    this.states = new Map();
    /** @type {Map<string, RoleCard>} */
    this.cards = new Map();
    /** @type {Map<string, RoundBox>} */
    this.roundBoxes = new Map();
    /** @type {Map<number, PanelBox>} */
    this.panels = new Map();
    /** @type {Map<string, HTMLElement>} each referee's ballot per round, for its model call */
    this.ballots = new Map();
  }

  reset() {
    this.cards.clear();
    this.ballots.clear();
    this.roundBoxes.clear();
    this.panels.clear();
  }

  /** A model call's turn: a role's statement, or a referee's ballot, in its round. @param {any} ev */
  callHost(ev) {
    const key = ev.agent + "#" + ev.round;
    return this.cards.get(key) || this.ballots.get(key) || null;
  }

  /** @param {string} name @param {any} ev */
  event(name, ev) {
    const role = this.view.roles[ev.role || ""];
    if (name === "turn_started" && role?.statement) { this.turnStarted(ev); return true; }
    if (name === "answer" && role?.statement) { this.answer(ev); return true; }
    if (name === "score" && this.cards.has(ev.agent + "#" + ev.round)) { this.score(ev); return true; }
    if (name === "judgement" && role && !role.statement) { this.ballot(ev); return true; }
    if (name === "panel") { this.tally(ev.round, ev.totals || {}, ev); return true; }
    if (name === "span_begin" && ev.kind === "team" && ev.attributes && ev.attributes.state) {
      this.roundBox(ev.name, ev.attributes.round, ev.attributes.state);
      return true;
    }
    if (name === "round") {
      this.shell.status(ev.round === 0 ? "Evidence gathered; the debate starts." : ev.final ? "The referees have decided."
        : this.roundWords(ev.round) + " judged; the debate goes on.", true);
      return true;
    }
    return false;
  }

  /** A round in the status line in the form's terms: the opening, then "Rebuttal 2 of at most 3" (the form's
   * "Most rebuttal rounds"), not "Round 3 of 4". @param {number} round */
  roundWords(round) {
    if (round === 1) return "Round 1 (opening)";
    const most = this.shell.mostRounds;
    return "Rebuttal " + (round - 1) + (most && round <= most ? " of at most " + (most - 1) : "");
  }

  /** @param {number} round */
  roundTitle(round) { return round === 0 ? "Setup" : round === 1 ? "Round 1 (opening)" : "Round " + round; }

  /** @param {string} side @param {number} round @param {string} [state] */
  roundBox(side, round, state) {
    const key = side + "#" + round;
    let box = this.roundBoxes.get(key);
    if (!box) {
      box = Object.assign(el("div", "team-round"), { head: el("div", "team-round-head", this.roundTitle(round)) });
      box.append(box.head);
      (this.teams[side] || this.shared).append(box);
      this.roundBoxes.set(key, box);
    }
    if (state) this.states.set(key, state);
    if (state && !box.stateTag) {
      box.stateTag = el("span", "tag team-state " + state, state);
      box.head.append(box.stateTag);
    }
    return box;
  }

  /** @param {any} ev @returns {RoleCard} */
  card(ev) {
    const key = ev.agent + "#" + ev.round;
    const known = this.cards.get(key);
    if (known) return known;
    const card = /** @type {RoleCard} */ (el("article", "role-card pending " + (ev.role || "")));
    card.dataset.role = ev.role || "";
    card.append(el("div", "role-title", (this.view.roles[ev.role] || {}).title || ev.role || ev.agent));
    card.evidenceSlot = el("div", "evidence");
    card.responseSlot = el("div", "response");
    card.responseSlot.append(el("span", "muted thinking", "working…"));
    card.scoreSlot = el("div", "scores");
    card.append(card.evidenceSlot, card.responseSlot, card.scoreSlot);
    this.roundBox(this.teams[ev.team] ? ev.team : "shared", ev.round).append(card);
    this.cards.set(key, card);
    return card;
  }

  /** @param {any} ev */
  turnStarted(ev) {
    const card = this.card(ev);
    card.evidenceSlot.replaceChildren();
    const docs = ev.evidence || [];
    if (docs.length) { // folded: each role of a round sees the same snippets
      const fold = el("details", "snippets");
      fold.append(el("summary", "", docs.length + " snippet" + (docs.length === 1 ? "" : "s")), evidenceList(docs));
      card.evidenceSlot.append(fold);
    }
    this.shell.status((ev.round ? this.roundWords(ev.round) + ": " : "Setup: ") + ev.agent + " is working…", true);
  }

  /** @param {any} ev */
  answer(ev) {
    const card = this.card(ev);
    card.classList.remove("pending");
    card.responseSlot.replaceChildren(el("p", "", ev.response || ""));
  }

  /** A statement's scores (the summarizer's confidence). @param {any} ev */
  score(ev) {
    const card = this.cards.get(ev.agent + "#" + ev.round);
    if (!card) return;
    card.scoreSlot.replaceChildren();
    Object.entries(ev.scores || {}).forEach(([name, value]) => card.scoreSlot.append(gauge(name, value, null)));
    (ev.errors || []).forEach((/** @type {string} */ msg) => card.scoreSlot.append(el("p", "score-error", msg)));
  }

  /** @param {number} round @returns {PanelBox} */
  panel(round) {
    let box = this.panels.get(round);
    if (!box) {
      box = Object.assign(el("div", "panel"), { ballots: el("tbody", ""),
        totals: el("p", "panel-totals muted", "waiting for the referees…") });
      box.dataset.round = String(round);
      const table = el("table", "ballots");
      const head = el("tr");
      ["Referee", "Vote", "Confidence", "Reason"].forEach(h => head.append(el("th", h === "Confidence" ? "num" : "", h)));
      table.append(el("thead", ""), box.ballots);
      /** @type {HTMLElement} */ (table.firstChild).append(head);
      box.append(el("div", "team-round-head", this.roundTitle(round)), table, box.totals);
      this.referees.append(box);
      this.panels.set(round, box);
    }
    return box;
  }

  /**
   * One referee's row: its vote, confidence and reason in a line; folded in it, its weight, its scores of each
   * side by dimension and its whole reasoning (and the model call that cast it, placed by the shell).
   * @param {any} ev
   */
  ballot(ev) {
    const card = el("tr", "ballot" + (ev.parsed === false ? " unparsed" : ""));
    card.dataset.referee = ev.agent;
    const side = this.view.votes[ev.vote || ""];
    const vote = el("td", "ballot-vote");
    // The side with the label it stands for, the verdict's word ("affirmative (SUPPORTS)").
    const voted = side ? side + " (" + ev.vote + ")" : "";
    vote.append(ev.parsed === false ? el("span", "label unparsed", "unreadable ballot") :
      el("span", "tag vote " + (side || "none"), voted || "no vote"));
    const why = ev.response ? reasoning(ev.response) : "";
    const reason = el("td", "ballot-reason");
    reason.append(el("span", "ballot-line", why ? oneLine(why) : "no reason given"));
    card.append(el("th", "ballot-referee", ev.agent), vote, el("td", "num ballot-confidence", fixed(ev.confidence)), reason);
    const facts = el("div", "ballot-facts muted", "confidence " + fixed(ev.confidence) + " · weight " + fixed(ev.weight));
    const table = el("table", "ballot-scores");
    const top = el("tr");
    top.append(el("th", "", "dimension"), ...Object.keys(this.view.sides).map(s => el("th", "", s)));
    table.append(top);
    const scores = ev.scores || {};
    Object.entries(this.view.ballot).forEach(([key, name]) => {
      const row = el("tr");
      const dim = el("th", "dim", key);
      dim.title = name;
      dim.append(el("span", "dim-name", " " + name));
      row.append(dim);
      const values = Object.keys(this.view.sides).map(s => scores[s + "." + key]);
      const best = Math.max(...values.map(v => (v === undefined ? -1 : v)));
      values.forEach(v => row.append(el("td", "num" + (v === best && values.filter(x => x === best).length === 1 ? " best" : ""), fixed(v))));
      table.append(row);
    });
    const fold = el("details", "ballot-why");
    fold.append(el("summary", "", "Scores and reasoning"), facts, table);
    if (why) fold.append(el("p", "", why));
    reason.append(fold);
    this.panel(ev.round).ballots.append(card);
    this.ballots.set(ev.agent + "#" + ev.round, reason);
    this.shell.status(ev.agent + " referee " + (side ? "voted " + voted : "gave no readable vote"), true);
  }

  /**
   * The round's weighted totals per side; live, the outcome and consensus the method computed too.
   * @param {number} round @param {Record<string, number>} totals @param {any} [decided]
   */
  tally(round, totals, decided) {
    const box = this.panel(round);
    box.totals.className = "panel-totals";
    const parts = Object.keys(this.view.sides).map(s => "W " + s + " " + fixed(Math.abs(totals[s] || 0)));
    box.totals.replaceChildren(el("span", "", parts.join(" · ")));
    if (decided && decided.outcome !== undefined) {
      box.totals.append(el("span", "", " → "), el("strong", "panel-outcome", decided.outcome || "no readable ballot"));
    }
    if (decided && decided.consensus !== undefined && decided.consensus !== null) {
      box.totals.append(el("span", "panel-consensus", " · consensus " + fixed(decided.consensus)));
    }
    if (decided && decided.stop !== undefined) box.totals.append(el("span", "muted", decided.stop ? " · the debate stops" : " · the debate goes on"));
    if (decided && decided.unparsed) box.totals.append(el("span", "score-error", " · " + decided.unparsed + " unreadable ballot(s) left out"));
  }

  /**
   * The run ended without its verdict: the role cards that never answered and hold nothing (no snippet, score
   * or model call) go, then the rounds left with their title alone; the sides' and referees' columns go too
   * when nothing at all was drawn in them.
   */
  ended() {
    this.cards.forEach((card, key) => {
      if (!card.classList.contains("pending") || card.evidenceSlot.childElementCount ||
        card.scoreSlot.childElementCount || card.querySelector(".model-calls")) return;
      card.remove();
      this.cards.delete(key);
    });
    this.roundBoxes.forEach((box, key) => {
      if (box.childElementCount > 1) return; // more than its title
      box.remove();
      this.roundBoxes.delete(key);
    });
    this.root.hidden = !this.cards.size && !this.roundBoxes.size && !this.panels.size;
  }

  /** A finished verdict: statements, ballots and each round's totals from the stored weights. @param {any} v */
  render(v) {
    this.root.hidden = false;
    Object.values(this.teams).forEach(body => body.replaceChildren());
    this.shared.replaceChildren();
    this.referees.replaceChildren(el("h3", "team-head", "Referees"));
    this.reset();
    const rounds = v.rounds || [];
    rounds.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
      Object.keys(this.view.sides).forEach(side => { // the states seen live, in their round's place
        const state = this.states.get(side + "#" + r.round);
        if (state) this.roundBox(side, r.round, state);
      });
      (r.turns || []).forEach((/** @type {any} */ t) => {
        const ev = { ...t, round: r.round };
        this.turnStarted(ev);
        this.answer(ev);
        if (Object.keys(t.scores || {}).length) this.score({ agent: t.agent, round: r.round, scores: t.scores, errors: t.score_errors });
      });
      const judges = r.judges || [];
      judges.forEach((/** @type {any} */ j) => this.ballot({ ...j, round: r.round }));
      if (!judges.length) return;
      /** @type {Record<string, number>} */
      const totals = {};
      judges.forEach((/** @type {any} */ j) => {
        const side = this.view.votes[j.vote || ""];
        if (side) totals[side] = (totals[side] || 0) + Math.abs(j.weight || 0);
      });
      this.tally(r.round, totals, i === rounds.length - 1 ? { consensus: v.consensus } : undefined);
    });
  }
}

registerMethodView("teams", (shell, view) => new TeamsLayout(shell, view));
