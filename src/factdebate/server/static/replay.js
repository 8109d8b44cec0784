/* Reading saved runs: verdicts of schema 1 are upgraded to the current shape, and a trace (JSONL events from
   `--trace`) is split into its runs, each replayed through the same handlers that draw a debate live. */
"use strict";

(() => {
  const SCORE_FIELDS = ["faithfulness", "answer_relevance", "consistency"];

  /* Schema 1 (before the method plug-ins): one `judge`, score fields on turns, a vote tally as a judge,
     MAD's moderator as a turn, ReAct's steps as rounds. Mirrors factdebate.core.schema.upgrade. */
  function upgradeVerdict(v) {
    if (!v || (v.schema_version || 1) >= 2) return v;
    const out = JSON.parse(JSON.stringify(v));
    (out.rounds || []).forEach(r => (r.turns || []).forEach(t => {
      t.scores = t.scores || {};
      SCORE_FIELDS.forEach(name => {
        if (t[name] !== null && t[name] !== undefined) t.scores[name] = t[name];
        delete t[name];
      });
    }));
    const judge = out.judge;
    delete out.judge;
    out.judges = judge ? [{ agent: "judge", role: "judge", response: judge.response, vote: judge.label,
      parsed: judge.label !== null && judge.label !== undefined }] : [];
    if (out.method === "vote" && out.judges.length) {
      out.explanation = out.judges[0].response;
      out.judges = [];
    }
    if (out.method === "mad") {
      (out.rounds || []).forEach(r => {
        const moderator = (r.turns || []).filter(t => t.agent === "moderator");
        r.turns = (r.turns || []).filter(t => t.agent !== "moderator");
        r.judges = moderator.map(t => ({ agent: "moderator", role: "moderator", response: t.response,
          vote: /preference:\s*yes/i.test(t.response || "") ? t.label : null, parsed: true }));
      });
    }
    if (out.method === "react" && (out.rounds || []).length) {
      const turns = out.rounds.flatMap(r => r.turns || []);
      const final = turns[turns.length - 1];
      const loop = final.tool === "none" ? turns.slice(0, -1) : turns; // "none": the forced final answer
      const steps = loop.map(t => t.query ? { tool: t.tool, arguments: { query: t.query }, thought: t.response }
        : t.label ? { tool: "finish", arguments: { label: t.label }, thought: t.response }
        : { tool: "", arguments: {}, thought: t.response, observation: "no valid action was given" });
      out.rounds = [{ round: 1, turns: [Object.assign({}, final, { steps: steps })] }];
    }
    out.schema_version = 2;
    return out;
  }

  function isTrace(rows) {
    return rows.length > 0 && rows.every(r => r && typeof r.event === "string");
  }

  /* One row per run of the trace, with what the results table shows and the run's events. */
  function runs(events) {
    const byRun = new Map();
    events.forEach(ev => {
      const id = ev.run || "";
      if (!byRun.has(id)) byRun.set(id, { claim: "", label: null, decided_by: "", method: "", events: [] });
      const row = byRun.get(id);
      row.events.push(ev);
      if (ev.event === "run_started") { row.claim = ev.claim; row.method = ev.method; }
      if (ev.event === "run_finished") { row.label = ev.label; row.decided_by = ev.decided_by; }
    });
    return [...byRun.values()];
  }

  /* Feeds the events to `view` with their own pacing (gaps shortened to at most 0.4 s). */
  async function play(view, events) {
    const started = events.find(e => e.event === "run_started") || {};
    view.start(started.claim || "", [], {});
    let rounds = 0;
    let previous = null;
    for (const ev of events) {
      if (previous !== null && ev.t && previous) {
        await new Promise(done => setTimeout(done, Math.min(400, Math.max(0, (ev.t - previous) * 1000))));
      }
      previous = ev.t || previous;
      if (ev.event === "round") rounds += 1;
      if (view.event(ev.event, ev)) continue;
      if (ev.event === "run_finished") {
        view.verdict({ label: ev.label, decided_by: ev.decided_by, usage: ev.usage,
          rounds: Array.from({ length: rounds }, (_, i) => ({ round: i + 1 })) });
      }
    }
  }

  window.FactDebate.upgradeVerdict = upgradeVerdict;
  window.FactDebate.Replay = { isTrace, runs, play };
})();
