/* MERMAID's parts of the live view: the decomposition (triplets as a table, the topic, the entities),
   what the evidence memory recalled before the executor's loop and what it stored after the verdict.
   The executor's steps are ordinary "step" events, drawn by debate.js. Text only via textContent. */
"use strict";

(function () {
  const { el, viewOf } = window.FactDebate;

  function panel(view) {
    if (view.mermaidPanel && view.mermaidPanel.isConnected) return view.mermaidPanel;
    const box = el("section", "card mermaid-panel");
    box.dataset.role = "mermaid";
    view.grid.before(box);
    view.mermaidPanel = box;
    return box;
  }

  function slot(view, name, title) {
    const box = panel(view);
    let part = box.querySelector('[data-part="' + name + '"]');
    if (!part) {
      part = el("div", "mermaid-part");
      part.dataset.part = name;
      box.append(part);
    }
    part.replaceChildren(el("span", "kicker", title));
    view.mermaidParts = view.mermaidParts || {};
    view.mermaidParts[name] = part;
    return part;
  }

  function decomposition(view, ev) {
    if (!ev.fromVerdict) { view.mermaidParts = {}; view.mermaidClaim = view.claimText; }
    const part = slot(view, "decomposition", "decomposition");
    if (ev.skipped) { part.append(el("p", "muted", "decomposer off (w/o decomposer ablation): the executor works from the claim")); return; }
    if (ev.parsed === false) { part.append(el("p", "muted", "no readable decomposition: the executor works from the claim")); return; }
    const table = el("table", "triplets");
    const head = el("tr");
    ["subject", "relation", "object", "attributes"].forEach(h => head.append(el("th", "", h)));
    table.append(head);
    (ev.triplets || []).forEach(t => {
      const row = el("tr");
      ["subject", "relation", "object", "attributes"].forEach(h => row.append(el("td", "", t[h] || "")));
      table.append(row);
    });
    part.append(table);
    if (ev.topic) part.append(el("p", "", "Topic: " + ev.topic));
    if ((ev.entities || []).length) part.append(el("p", "muted", "Memory keys: " + ev.entities.join(", ")));
    view.status("Claim decomposed", true);
  }

  function records(part, items, empty) {
    if (!items.length) { part.append(el("p", "muted", empty)); return; }
    const list = el("ol", "docs");
    items.forEach(r => {
      const item = el("li");
      const how = r.match && r.match !== "exact" ? " (" + r.match + " " + Number(r.score).toFixed(2) + ")" : "";
      item.append(el("span", "doc-title", (r.stored_entity || r.entity || "") + how),
        el("span", "doc-source", " " + (r.tool || "") + (r.source ? ": " + r.source : "")));
      if (r.text) item.append(el("p", "muted", r.text));
      list.append(item);
    });
    part.append(list);
  }

  function recall(view, ev) {
    const part = slot(view, "recall", "memory recalled (" + (ev.mode || "on") + ")");
    records(part, ev.hits || [], "nothing remembered for " + ((ev.entities || []).join(", ") || "this claim"));
    view.status("Memory: " + (ev.hits || []).length + " record(s) recalled", true);
  }

  function write(view, ev) {
    const part = slot(view, "write", "memory written");
    if (ev.skipped) { part.append(el("p", "muted", "nothing written: " + ev.skipped)); return; }
    if (ev.error) part.append(el("p", "muted", "not written: " + ev.error));
    if ((ev.not_stored || []).length) part.append(el("p", "muted", ev.not_stored.length + " passage(s) not stored: "
      + ev.not_stored[0].reason));
    part.append(el("p", "muted", (ev.added || 0) + " new record(s)"));
    records(part, ev.records || [], "no used evidence named the claim's entities");
  }

  /* A finished verdict: the decomposer's turn holds the decomposition as JSON. */
  function fromVerdict(view, v) {
    if (viewOf(v.method) !== "mermaid") return;
    // The live stream's memory panels are not in the verdict: keep them when the result redraws the view.
    const saved = view.mermaidClaim === v.claim ? (view.mermaidParts || {}) : {};
    view.mermaidParts = {};
    const turns = ((v.rounds || [])[0] || {}).turns || [];
    const dec = turns.find(t => t.role === "decomposer");
    if (!dec) return;
    let parsed = null;
    try { parsed = JSON.parse(dec.response || ""); } catch (e) { parsed = null; }
    decomposition(view, parsed && parsed.triplets ? { triplets: parsed.triplets, topic: parsed.topic, fromVerdict: true }
      : { parsed: false, skipped: !(dec.response || "").trim(), fromVerdict: true });
    ["recall", "write"].forEach(name => {
      if (saved[name]) { panel(view).append(saved[name]); view.mermaidParts[name] = saved[name]; }
    });
    view.mermaidClaim = v.claim;
  }

  window.FactDebateExtras = Object.assign(window.FactDebateExtras || {}, {
    decomposition: decomposition, memory_recall: recall, memory_write: write, __verdict: fromVerdict,
  });
})();
