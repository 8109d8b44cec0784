// @ts-check
/* One agent's trajectory: the parts the method declares (drawn from its own events: MERMAID's
   decomposition and recalled memory), then the agent's steps in order as a timeline (thought, action,
   observation), its answer, then the parts that came after the steps (what the memory stored). No rounds. */
import { el, labelChip } from "../dom.js";
import { readable } from "../answer-text.js";
import { unique } from "../reason.js";
import { registerMethodView } from "../views.js";
import { evidenceList, observationFold, stepText } from "./debate.js";

/**
 * A part's rows as the table's cells, rows alike in every column but the first shown once with each of their
 * first column's values: MERMAID's memory stores each passage under every entity of the claim, and the same
 * passage row after row, once per entity, read as the same passage found again.
 * @param {any[]} rows @param {string[]} columns @returns {string[][]}
 */
export function mergeRows(rows, columns) {
  /** @type {Map<string, string[]>} */
  const byRest = new Map();
  rows.forEach(row => {
    const cells = columns.map(c => (row[c] === undefined || row[c] === null ? "" : String(row[c])));
    const rest = JSON.stringify(cells.slice(1));
    const known = byRest.get(rest);
    if (!known || columns.length < 2) { byRest.set(columns.length < 2 ? String(byRest.size) : rest, cells); return; }
    const firsts = known[0].split("; ");
    if (!firsts.includes(cells[0])) known[0] = [...firsts, cells[0]].join("; ");
  });
  return [...byRest.values()];
}

class TimelineLayout {
  /** @param {import("../verdict-view.js").VerdictView} shell @param {import("../views.js").MethodView} view */
  constructor(shell, view) {
    this.shell = shell;
    this.view = view;
    this.before = el("div", "parts before");
    this.steps = el("ol", "timeline");
    this.answerBox = el("div", "timeline-answer");
    this.evidence = el("div", "timeline-evidence");
    this.after = el("div", "parts after");
    this.trail = el("section", "card trajectory");
    this.trail.append(el("span", "kicker", "steps"), this.steps, this.answerBox, this.evidence);
    shell.body.append(this.before, this.trail, this.after);
    /** @type {Map<string, HTMLElement>} */
    this.parts = new Map();
    /** @type {Map<number, HTMLElement>} each step's body by its number, for the model call that chose it */
    this.stepItems = new Map();
  }

  /**
   * A model call's place: the agent's step it chose (its call's round is the step's number), or the part an
   * agent of its own draws (MERMAID's decomposer).
   * @param {any} ev
   */
  callHost(ev) {
    const step = this.stepItems.get(Number(ev.round));
    if (step && step.dataset.agent === ev.agent) return step;
    const part = this.view.parts.find(p => p.event === this.view.roles[ev.agent || ""]?.part);
    return (part && this.parts.get(part.event)) || null;
  }

  /** @param {string} name @param {any} ev */
  event(name, ev) {
    const part = this.view.parts.find(p => p.event === name);
    if (part) { this.part(part, ev); return true; }
    const role = this.view.roles[ev.role || ""];
    if ((name === "turn_started" || name === "answer") && role?.part) return true; // drawn as its part
    if (name === "step") { this.step(ev); return true; }
    if (name === "turn_started") { this.shell.status(ev.agent + " is working…", true); return true; }
    if (name === "answer") { this.answer(ev); return true; }
    return name === "round" || name === "score";
  }

  /** A declared part from its event: a table of rows, lines of fields, and its note. @param {import("../views.js").PartView} part @param {any} ev */
  part(part, ev) {
    let box = this.parts.get(part.event);
    if (!box) {
      box = el("section", "card part");
      box.dataset.part = part.event;
      (this.steps.childElementCount ? this.after : this.before).append(box);
      this.parts.set(part.event, box);
    }
    box.replaceChildren(el("span", "kicker", part.title));
    const rows = part.rows ? ev[part.rows] || [] : [];
    const merged = mergeRows(rows, part.columns);
    if (merged.length) {
      // "stacked": where it is narrow (a phone, a column of Compare) each row is a block of "column: value" lines.
      const table = el("table", "part-table stacked");
      const head = el("tr", "head-row");
      part.columns.forEach(c => head.append(el("th", "", c.replace(/_/g, " "))));
      table.append(head);
      merged.forEach(cells => {
        const tr = el("tr");
        part.columns.forEach((c, i) => {
          const td = el("td", "", cells[i]);
          td.dataset.label = c.replace(/_/g, " ");
          tr.append(td);
        });
        table.append(tr);
      });
      box.append(table);
      if (merged.length < rows.length) {
        const first = part.columns[0].replace(/_/g, " ");
        box.append(el("p", "muted part-merged", rows.length + " rows: those alike in all but their " + first +
          " are shown once, with each " + first + "."));
      }
    }
    Object.entries(part.lines).forEach(([field, label]) => {
      const value = ev[field];
      if (value === undefined || value === null || value === "" || (Array.isArray(value) && !value.length)) return;
      box.append(el("p", "part-line", label + ": " + (Array.isArray(value) ? value.join(", ") : value)));
    });
    if (ev[part.note]) box.append(el("p", "muted part-note", ev[part.note]));
    this.shell.status(part.title, true);
  }

  /** @param {any} ev */
  step(ev) {
    const item = el("li", "timeline-step" + (ev.tool ? "" : " invalid"));
    const n = ev.index || this.steps.childElementCount + 1;

    item.append(el("span", "step-no", n));
    const body = el("div", "step-body");
    body.dataset.agent = ev.agent || ""; // its model call goes under it
    this.stepItems.set(n, body);
    if (ev.thought) body.append(el("p", "step-thought", ev.thought));
    const action = el("p", "step-action");
    action.append(el("span", "kicker", "action"), el("code", "", stepText(ev)));
    body.append(action);
    if (ev.observation) body.append(observationFold(ev, this.steps, false));
    item.append(body);
    this.steps.append(item);
    this.shell.status("Step " + n + ": " + (ev.tool || "no valid action"), true);
  }

  /** @param {any} ev */
  answer(ev) {
    this.answerBox.replaceChildren(el("span", "kicker", "answer"), labelChip(ev.label), el("p", "", readable(ev.response)));
  }

  /** The run ended without its verdict: the trajectory goes when no step, answer or passage came to it. */
  ended() {
    this.trail.hidden = !this.steps.childElementCount && !this.answerBox.childElementCount &&
      !this.evidence.childElementCount && !this.trail.querySelector(".model-calls");
  }

  /** A finished verdict: its steps and answer; parts drawn live (recalled memory) are kept. @param {any} v */
  render(v) {
    this.trail.hidden = false;
    const turns = (v.rounds || []).flatMap((/** @type {any} */ r) => r.turns || []);
    turns.forEach((/** @type {any} */ t) => {
      const role = this.view.roles[t.role || ""];
      const part = role?.part ? this.view.parts.find(p => p.event === role.part) : undefined;
      if (part && !this.parts.has(part.event)) {
        let parsed = null;
        try { parsed = JSON.parse(t.response || ""); } catch (_) { parsed = null; }
        this.part(part, parsed && typeof parsed === "object" ? parsed : { [part.note]: (t.response || "").trim() ?
          "No readable " + part.title.toLowerCase() + "." : "Not made for this claim." });
      }
    });
    const agent = turns.find((/** @type {any} */ t) => (t.steps || []).length) || turns.find((/** @type {any} */ t) => !this.view.roles[t.role || ""]?.part);
    if (!agent) return;
    this.steps.replaceChildren();
    this.stepItems.clear();
    (agent.steps || []).forEach((/** @type {any} */ s, /** @type {number} */ i) =>
      this.step({ ...s, agent: s.agent || agent.agent, index: i + 1 }));
    this.answer(agent);
    this.evidence.replaceChildren();
    const read = unique(agent.evidence || []); // each passage once: a recalled one its search found again too
    if (read.length) {
      const more = el("details", "");
      more.append(el("summary", "", read.length + (read.length === 1 ? " passage" : " passages") + " the agent read"),
        evidenceList(read));
      this.evidence.append(more);
    }
  }
}

registerMethodView("timeline", (shell, view) => new TimelineLayout(shell, view));
