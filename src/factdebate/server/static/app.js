/* The page: API key, the claim form driving a streamed debate, recent checks, and the results viewer. */
"use strict";

(() => {
  const { DebateView, OptionsForm, Replay, labelChip, el } = window.FactDebate;
  const $ = id => document.getElementById(id);
  const KEY_STORE = "factdebate.apiKey";
  const HISTORY_STORE = "factdebate.history";
  const HISTORY_MAX = 25;
  let catalogue = null;
  let running = null; // AbortController of the debate in progress

  /* ---------- API key and server status ---------- */

  const keyInput = $("api-key");
  keyInput.value = localStorage.getItem(KEY_STORE) || "";
  keyInput.addEventListener("change", () => {
    localStorage.setItem(KEY_STORE, keyInput.value.trim());
    loadCatalogue();
  });
  $("key-form").addEventListener("submit", e => { e.preventDefault(); keyInput.dispatchEvent(new Event("change")); });

  function headers(extra) {
    const h = Object.assign({}, extra || {});
    const key = keyInput.value.trim();
    if (key) h["Authorization"] = "Bearer " + key;
    return h;
  }

  async function errorText(response) {
    try {
      const body = await response.json();
      if (body && body.detail) return typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    } catch (_) { /* not JSON */ }
    return response.status + " " + response.statusText;
  }

  async function checkHealth() {
    const dot = $("server-status");
    try {
      const r = await fetch("/v1/health");
      const ok = r.ok;
      dot.className = "dot " + (ok ? "up" : "down");
      dot.title = ok ? "server is up" : "server answered " + r.status;
    } catch (_) {
      dot.className = "dot down";
      dot.title = "server unreachable";
    }
  }

  /* ---------- form choices ---------- */

  function fillSelect(select, values, chosen, labels) {
    select.replaceChildren();
    values.forEach(v => {
      const opt = el("option", "", labels ? labels[v] || v : v);
      opt.value = v;
      if (v === chosen) opt.selected = true;
      select.append(opt);
    });
  }

  async function loadCatalogue() {
    const r = await fetch("/v1/methods", { headers: headers() });
    if (!r.ok) {
      showFormError(r.status === 401 ? "Enter a valid API key (top right) to use this server." : await errorText(r));
      return;
    }
    hideFormError();
    catalogue = await r.json();
    window.FactDebate.learnViews(catalogue.methods);
    const d = catalogue.defaults;
    fillSelect($("method"), catalogue.methods.map(m => m.name), d.method);
    fillSelect($("search"), catalogue.search_engines, d.search);
    fillSelect($("llm"), catalogue.llms, d.llm);
    $("llm-field").hidden = catalogue.llms.length < 2;
    form.load(catalogue);
    showMethod();
    $("claim").maxLength = d.max_claim_chars;
    updateCount();
    document.dispatchEvent(new CustomEvent("factdebate:catalogue", { detail: catalogue })); // response.js
  }

  // The method's own options are drawn from its settings model; method, search and model have their selects.
  const form = new OptionsForm($("method-options"), $("more-options"), ["method", "search", "llm"]);

  function showMethod() {
    const method = $("method").value;
    $("method").title = (catalogue.methods.find(m => m.name === method) || {}).description || "";
    form.show(method);
  }
  $("method").addEventListener("change", showMethod);

  function updateCount() {
    const max = catalogue ? catalogue.defaults.max_claim_chars : null;
    const n = $("claim").value.trim().length;
    $("claim-count").textContent = max ? n + " / " + max + " characters" : "";
  }
  $("claim").addEventListener("input", updateCount);

  function showFormError(msg) { const p = $("form-error"); p.textContent = msg; p.hidden = false; }
  function hideFormError() { $("form-error").hidden = true; }

  function requestBody() {
    const body = Object.assign({ claim: $("claim").value.trim(), method: $("method").value,
      search: $("search").value }, form.read());
    if (!$("llm-field").hidden) body.llm = $("llm").value;
    return body;
  }

  /* ---------- streaming a debate ---------- */

  const live = new DebateView($("live"));

  /* Reads an SSE response body (fetch, since EventSource cannot POST) and calls onEvent(name, data). */
  async function readSSE(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = "message";
        const data = [];
        frame.split("\n").forEach(line => {
          if (line.startsWith(":")) return;
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        });
        if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      }
    }
  }

  function handleEvent(name, data, ctx) {
    if (live.event(name, data)) return; // turns, steps, scores, judgements, rounds: any method
    switch (name) {
      case "result":
        ctx.verdict = data;
        live.render(data);
        break;
      case "error":
        ctx.failed = data.message;
        live.error(data.message);
        break;
      default: break; // llm_call, tool_call, run_started... are in the raw trace, not drawn
    }
  }

  $("claim-form").addEventListener("submit", async e => {
    e.preventDefault();
    if (running || e.currentTarget.dataset.mode === "response") return; // a whole response: static/response.js
    hideFormError();
    const body = requestBody();
    if (!body.claim) { showFormError("Type a claim to check."); return; }
    const controller = new AbortController();
    running = controller;
    setBusy(true);
    live.start(body.claim, [], form.thresholds(body));
    const ctx = { verdict: null, failed: null };
    try {
      const r = await fetch("/v1/verify/stream", { method: "POST", signal: controller.signal,
        headers: headers({ "Content-Type": "application/json", "Accept": "text/event-stream" }),
        body: JSON.stringify(body) });
      if (!r.ok) {
        const msg = await errorText(r);
        live.clear();
        showFormError(r.status === 401 ? "The server needs a valid API key (top right)." : msg);
        return;
      }
      await readSSE(r, (name, data) => handleEvent(name, data, ctx));
      if (ctx.verdict) remember(ctx.verdict);
      else if (!ctx.failed) live.error("the stream ended before a verdict arrived");
    } catch (err) {
      if (err.name === "AbortError") live.error("stopped by you");
      else live.error(String(err.message || err));
    } finally {
      running = null;
      setBusy(false);
    }
  });

  // Stop acts on the visible mode's run only (a response's check: static/response.js).
  $("cancel").addEventListener("click", () => { if (running && $("claim-form").dataset.mode !== "response") running.abort(); });

  function setBusy(busy) {
    $("claim-form").dataset.busy = busy ? "claim" : ""; // read by static/response.js when the mode changes
    $("submit").disabled = busy;
    $("submit").textContent = busy ? "Debating…" : $("claim-form").dataset.mode === "response" ? "Check response"
      : "Verify claim"; // the tab may have changed to "Check a response" (static/response.js) meanwhile
    $("cancel").hidden = !busy;
  }

  /* ---------- history ---------- */

  function loadHistory() {
    try { return JSON.parse(localStorage.getItem(HISTORY_STORE) || "[]"); } catch (_) { return []; }
  }

  function saveHistory(items) {
    // Verdicts can be large: on a full quota, drop the oldest entries until it fits.
    while (items.length) {
      try { localStorage.setItem(HISTORY_STORE, JSON.stringify(items)); return; } catch (_) { items.pop(); }
    }
    localStorage.removeItem(HISTORY_STORE);
  }

  function remember(verdict) {
    const items = loadHistory();
    const response = verdict.kind === "response"; // a whole answer's check (static/response.js)
    items.unshift({ at: Date.now(), kind: response ? "response" : "claim",
      claim: response ? String(verdict.response || "").slice(0, 300) : verdict.claim, label: verdict.label,
      decided_by: verdict.decided_by, verdict: verdict });
    saveHistory(items.slice(0, HISTORY_MAX));
    drawHistory();
  }

  function drawHistory() {
    const items = loadHistory();
    const list = $("history");
    list.replaceChildren();
    $("history-empty").hidden = items.length > 0;
    items.forEach(item => {
      const li = el("li");
      const btn = el("button", "history-item");
      btn.type = "button";
      btn.dataset.kind = item.kind || "claim";
      const response = item.kind === "response";
      btn.append(labelChip(item.label), el("span", "history-claim", item.claim));
      btn.append(el("span", "history-meta", new Date(item.at).toLocaleString() + " · " + (response ?
        ((item.verdict || {}).claims || []).length + " claims · " : "") + item.decided_by));
      if (response) btn.prepend(el("span", "history-kind", "response"));
      btn.addEventListener("click", () => {
        if (response) {
          document.dispatchEvent(new CustomEvent("factdebate:open-response", { detail: item.verdict }));
          return;
        }
        $("claim").value = item.claim;
        updateCount();
        live.render(item.verdict);
      });
      li.append(btn);
      list.append(li);
    });
  }

  $("clear-history").addEventListener("click", () => { localStorage.removeItem(HISTORY_STORE); drawHistory(); });

  /* ---------- results viewer ---------- */

  const viewer = new DebateView($("results-debate"));
  let rows = [];
  let filter = "all";
  const ALIASES = { "SUPPORTED": "SUPPORTS", "SUPPORT": "SUPPORTS", "TRUE": "SUPPORTS", "REFUTED": "REFUTES",
    "REFUTE": "REFUTES", "FALSE": "REFUTES", "NEI": "NOT ENOUGH INFO", "NOT_ENOUGH_INFO": "NOT ENOUGH INFO",
    "NOTENOUGHINFO": "NOT ENOUGH INFO" };

  function normLabel(value) {
    if (value === null || value === undefined) return null;
    const up = String(value).trim().toUpperCase();
    return ALIASES[up] || ALIASES[up.replace(/\s+/g, "_")] || up;
  }

  function goldOf(row) {
    const gold = row.gold ?? row.label_gold ?? row.gold_label;
    return gold === undefined ? null : normLabel(gold);
  }

  function outcome(row) {
    if (row.error) return "error";
    const gold = goldOf(row);
    if (gold === null) return "unknown";
    return normLabel(row.label) === gold ? "correct" : "wrong";
  }

  function parseJsonl(text) {
    const out = [];
    text.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return;
      try { out.push(JSON.parse(line)); } catch (_) { throw new Error("line " + (i + 1) + " is not valid JSON"); }
    });
    return out;
  }

  function showResults(parsed) {
    $("results-error").hidden = true;
    rows = parsed.filter(r => r && typeof r === "object");
    $("results-panel").hidden = false;
    $("results-response").hidden = true;
    viewer.clear();
    const counts = { correct: 0, wrong: 0, error: 0, unknown: 0 };
    rows.forEach(r => { counts[outcome(r)] += 1; });
    const scored = counts.correct + counts.wrong;
    const summary = $("results-summary");
    summary.replaceChildren(el("strong", "", rows.length + " claims"));
    if (scored) {
      summary.append(el("span", "", " · accuracy " + (100 * counts.correct / scored).toFixed(1) + "% (" +
        counts.correct + "/" + scored + ")"));
    } else {
      summary.append(el("span", "muted", " · no gold labels (gold / label_gold) to compare with"));
    }
    if (counts.error) summary.append(el("span", "", " · " + counts.error + " errors"));
    drawRows();
  }

  function drawRows() {
    const body = $("results-body");
    body.replaceChildren();
    const query = $("results-search").value.trim().toLowerCase();
    rows.forEach((row, i) => {
      const result = outcome(row);
      if (filter !== "all" && result !== filter) return;
      const claim = String(row.claim || row.response || ""); // a response's row: its answer
      if (query && !claim.toLowerCase().includes(query)) return;
      const tr = el("tr", "row-" + result);
      tr.append(el("td", "muted", i + 1), el("td", "claim-cell", claim));
      const gold = el("td");
      if (goldOf(row)) gold.append(labelChip(goldOf(row)));
      const pred = el("td");
      if (row.error) pred.append(el("span", "label failed", "error")); else pred.append(labelChip(row.label));
      const mark = { correct: "✓", wrong: "✗", error: "!", unknown: "" }[result];
      tr.append(gold, pred, el("td", "muted", row.error ? row.error : row.decided_by || ""), el("td", "mark " + result, mark));
      tr.addEventListener("click", () => {
        body.querySelectorAll("tr.selected").forEach(t => t.classList.remove("selected"));
        tr.classList.add("selected");
        if (row.kind === "response") { viewer.clear(); openResponse(row); return; }
        $("results-response").hidden = true;
        if (row.events) Replay.play(viewer, row.events); else viewer.render(row);
        $("results-debate").scrollIntoView({ behavior: "smooth", block: "start" });
      });
      body.append(tr);
    });
  }

  $("results-file").addEventListener("change", async e => {
    const file = e.target.files[0];
    if (!file) return;
    try { openFile(await file.text()); } catch (err) { showResultsError(err.message); }
  });

  /* A results file, one saved verdict (pretty-printed or not), or a trace: its runs become rows that are
     replayed as they were drawn live. */
  function openFile(text) {
    let parsed;
    try { parsed = [JSON.parse(text)]; } catch (_) { parsed = parseJsonl(text); }
    if (Replay.isTrace(parsed)) parsed = Replay.runs(parsed);
    const isResponse = r => r && typeof r === "object" && r.kind === "response";
    if (!parsed.some(r => isResponse(r) || (r && typeof r === "object" && typeof r.claim === "string"))) {
      throw new Error("This file is neither a claim's verdict (factdebate verify --json), a response's verdict " +
        "(factdebate check-response --json), results rows (JSONL) nor a trace: nothing in it names a claim.");
    }
    if (parsed.length === 1 && isResponse(parsed[0])) {
      $("results-panel").hidden = true;
      $("results-error").hidden = true;
      openResponse(parsed[0]);
      return;
    }
    showResults(parsed);
  }

  /* A response's verdict is drawn by the response view (static/response.js), below the results. */
  function openResponse(verdict) {
    $("results-response").hidden = false;
    window.FactDebate.showSavedResponse(verdict, $("results-response"));
  }

  $("load-batch").addEventListener("click", async () => {
    const id = $("batch-id").value.trim();
    if (!/^[A-Za-z0-9_-]+$/.test(id)) { showResultsError("Enter a batch id."); return; }
    const r = await fetch("/v1/batches/" + id + "/results", { headers: headers() });
    if (!r.ok) { showResultsError(await errorText(r)); return; }
    try { showResults(parseJsonl(await r.text())); } catch (err) { showResultsError(err.message); }
  });

  function showResultsError(msg) { const p = $("results-error"); p.textContent = msg; p.hidden = false; }

  document.querySelectorAll(".chip-btn").forEach(btn => btn.addEventListener("click", () => {
    document.querySelectorAll(".chip-btn").forEach(b => b.classList.toggle("active", b === btn));
    filter = btn.dataset.filter;
    drawRows();
  }));
  $("results-search").addEventListener("input", drawRows);

  /* ---------- tabs ---------- */

  document.querySelectorAll("button.tab").forEach(tab => tab.addEventListener("click", () => {
    document.querySelectorAll("button.tab").forEach(t => {
      const on = t === tab;
      t.classList.toggle("active", on);
      t.setAttribute("aria-selected", String(on));
    });
    document.querySelectorAll(".view").forEach(v => { v.hidden = v.id !== "view-" + tab.dataset.view; });
  }));

  // What the response view (static/response.js) shares with the claim form.
  window.FactDebate.page = { headers, errorText, readSSE, requestBody, showFormError, hideFormError, remember,
    thresholds: values => form.thresholds(values) };

  checkHealth();
  loadCatalogue();
  drawHistory();
})();
