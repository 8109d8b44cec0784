/* "Check a response": a whole answer is sent to POST /v1/check-response/stream, split into claims by the
   server, and each claim verified with the chosen method. The claims are listed as soon as they are known,
   each with its live status; a click opens that claim's debate, drawn by the page's own DebateView from the
   claim's events (every claim is its own run, nested in a `subclaim` span of the response's run). At the end:
   the response's label, the counts, and the claims marked in the answer where their words appear in it.
   All text goes through textContent, as in debate.js. */
"use strict";

(() => {
  const { DebateView, labelChip, el, LABEL_CLASS } = window.FactDebate;
  const page = window.FactDebate.page;
  const $ = id => document.getElementById(id);
  const formNode = $("claim-form");
  let maxChars = null;
  let running = null; // AbortController of the check in progress

  const HOW = {
    "any-false": "at least one claim is false",
    "all-true": "every claim is supported",
    "unverified": "no claim is false, but not every claim could be verified",
    "no-claims": "no checkable claim was found in the answer",
    "unparsed": "no label: a claim without one might be the false one, or the claims could not be read",
  };
  const STATE_TEXT = { pending: "waiting", running: "checking…", error: "error", stopped: "not finished" };

  /* ---------- one claim of the response ---------- */

  class ClaimRow {
    constructor(index, text, onOpen, debateId) {
      this.index = index;
      this.text = text;
      this.events = []; // [name, event] of this claim's run, replayed when the claim is opened
      this.state = "pending";
      this.label = null;
      this.decidedBy = "";
      this.confidence = null;
      this.verdict = null; // the full verdict, once the result has arrived
      this.error = null;
      this.rounds = 0;
      this.node = el("li", "claim-item");
      this.button = el("button", "claim-button");
      this.button.type = "button";
      this.button.setAttribute("aria-pressed", "false");
      this.button.setAttribute("aria-controls", debateId);
      this.stateSlot = el("span", "claim-state");
      this.metaSlot = el("span", "claim-meta muted");
      this.button.append(el("span", "claim-num", index + 1), el("span", "claim-words", text), this.stateSlot,
        this.metaSlot);
      this.button.addEventListener("click", () => onOpen(this));
      this.node.append(this.button);
      this.draw();
    }

    get finished() { return this.state === "done" || this.state === "error"; }

    /* Reads what the list shows from the claim's own events: confidence (a judge's, or a DPD panel's
       consensus) and the verdict. */
    note(name, ev) {
      if (name === "judgement" && ev.confidence !== null && ev.confidence !== undefined) this.confidence = ev.confidence;
      if (name === "panel" && ev.consensus !== null && ev.consensus !== undefined) this.confidence = ev.consensus;
      if (name === "round") this.rounds += 1;
      if (name === "run_finished") {
        this.label = ev.label;
        this.decidedBy = ev.decided_by;
        this.state = "done";
        this.draw();
      }
    }

    settle(check, config) {
      this.verdict = check.verdict || null;
      // A claim's verdict leaves its settings to the response's record; the debate view reads thresholds there.
      if (this.verdict && !Object.keys(this.verdict.config || {}).length) this.verdict.config = config || {};
      this.error = check.error || null;
      this.label = check.label ?? null;
      if (this.verdict) {
        this.decidedBy = this.verdict.decided_by;
        const judges = this.verdict.judges || [];
        const judged = judges.length ? judges[judges.length - 1].confidence : null;
        if (this.verdict.consensus !== null && this.verdict.consensus !== undefined) this.confidence = this.verdict.consensus;
        else if (judged !== null && judged !== undefined) this.confidence = judged;
      }
      this.state = this.error ? "error" : "done";
      this.draw();
    }

    fail(message) {
      this.error = message;
      this.state = "error";
      this.draw();
    }

    draw() {
      this.node.className = "claim-item state-" + this.state + (this.state === "done" ?
        " " + (LABEL_CLASS[this.label] || "unparsed") : "");
      this.stateSlot.replaceChildren();
      if (this.state === "done") this.stateSlot.append(labelChip(this.label));
      else {
        if (this.state === "running") this.stateSlot.append(el("span", "spinner"));
        this.stateSlot.append(el("span", "label " + (this.state === "error" ? "failed" : "unparsed"),
          STATE_TEXT[this.state]));
      }
      const meta = [];
      if (this.state === "done" && this.decidedBy) meta.push(this.decidedBy);
      if (this.state === "done" && this.confidence !== null) meta.push("confidence " + Number(this.confidence).toFixed(2));
      if (this.error) meta.push(this.error);
      this.metaSlot.textContent = meta.join(" · ");
      this.metaSlot.hidden = !meta.length;
    }
  }

  /* ---------- one response check, drawn into #response-live ---------- */

  class ResponseView {
    constructor(host, debateId) {
      this.host = host;
      this.debateId = debateId || "response-debate"; // one id per view: the results viewer has its own
    }

    start(text, question, thresholds) {
      this.text = text;
      this.thresholds = thresholds;
      this.claims = [];
      this.bySpan = new Map(); // subclaim span id -> claim
      this.byRun = new Map(); // a claim's run id -> claim
      this.selected = null;
      this.result = null;
      this.judged = null;
      this.host.replaceChildren();
      this.host.hidden = false;

      const card = el("div", "card response-card");
      this.verdictBox = el("div", "response-verdict");
      this.verdictBox.hidden = true;
      const statusLine = el("div", "status-line");
      this.spinner = el("span", "spinner");
      this.statusText = el("span", "response-status", "sending…");
      this.statusText.setAttribute("role", "status");
      this.statusText.setAttribute("aria-live", "polite");
      statusLine.append(this.spinner, this.statusText);
      this.problemBox = el("p", "response-problem error");
      this.problemBox.setAttribute("role", "alert");
      this.problemBox.hidden = true;
      if (question) card.append(el("p", "response-question muted", "Question: " + question));
      card.append(this.verdictBox, statusLine, this.problemBox);

      const body = el("div", "response-body");
      const listCol = el("section", "response-claims");
      listCol.setAttribute("aria-label", "claims");
      listCol.append(el("h2", "", "Claims"));
      this.listHint = el("p", "muted small", "Extracting the claims…");
      this.list = el("ol", "claim-list");
      listCol.append(this.listHint, this.list);
      const answerCol = el("section", "response-answer");
      answerCol.setAttribute("aria-label", "the answer");
      answerCol.append(el("h2", "", "The answer"));
      this.answerBox = el("div", "answer-text");
      this.answerNote = el("p", "muted small");
      answerCol.append(this.answerBox, this.answerNote);
      body.append(listCol, answerCol);
      card.append(body);

      this.debateHost = el("div", "debate-host");
      this.debateHost.id = this.debateId;
      this.debate = new DebateView(this.debateHost);
      this.host.append(card, this.debateHost);
      this.drawAnswer();
    }

    status(text, busy) {
      this.statusText.textContent = text;
      this.spinner.hidden = !busy;
    }

    problem(message) {
      this.problemBox.textContent = message;
      this.problemBox.hidden = false;
    }

    /* One SSE event of the stream. */
    event(name, ev) {
      const claim = ev && ev.run ? this.byRun.get(ev.run) : undefined;
      if (claim) return this.claimEvent(claim, name, ev);
      switch (name) {
        case "span_begin":
          if (ev.kind === "extraction") this.status("Extracting the claims…", true);
          if (ev.kind === "subclaim") this.claimStarted(ev);
          break;
        case "claims_extracted": this.setClaims(ev.claims || [], ev.parsed !== false); break;
        case "run_started": {
          const owner = this.bySpan.get(ev.span_id);
          if (owner) { this.byRun.set(ev.run, owner); this.claimEvent(owner, name, ev); }
          break;
        }
        case "span_end":
          if (ev.kind === "subclaim") {
            const ended = this.bySpan.get(ev.span_id);
            // A claim's span that closes without a verdict: checking it raised; the reason comes with the result.
            if (ended && !ended.finished) ended.fail("checking this claim failed");
            this.progress();
          }
          break;
        case "response_verdict": this.judged = ev; break;
        case "result": this.finish(ev); break;
        case "error": this.stopped("The check failed: " + (ev.message || "unknown error")); break;
        default: break; // llm_call, parse problems... are in the raw trace
      }
      return true;
    }

    setClaims(texts, parsed) {
      this.list.replaceChildren();
      this.claims = texts.map((text, i) => new ClaimRow(i, text, c => this.open(c), this.debateId));
      this.claims.forEach(c => this.list.append(c.node));
      this.listHint.textContent = !parsed ? "The model's list of claims could not be read, even after one re-ask: " +
        "nothing was checked." : texts.length ? "Select a claim to follow its debate." : "No claim was found.";
      this.progress();
      this.drawAnswer();
    }

    claimStarted(ev) {
      const index = (ev.attributes || {}).index;
      const claim = this.claims[index];
      if (!claim) return;
      this.bySpan.set(ev.span_id, claim);
      claim.state = "running";
      claim.draw();
      if (this.selected === claim) this.debate.status("Checking this claim…", true);
    }

    claimEvent(claim, name, ev) {
      claim.events.push([name, ev]);
      claim.note(name, ev);
      if (this.selected === claim) this.feed(claim, name, ev);
      if (name === "run_finished") { this.progress(); this.drawAnswer(); }
      return true;
    }

    /* Draws one of a claim's events on the debate view, as the results tab replays a trace. */
    feed(claim, name, ev) {
      if (this.debate.event(name, ev)) return;
      if (name === "run_finished") {
        this.debate.verdict({ label: ev.label, decided_by: ev.decided_by, usage: ev.usage,
          rounds: Array.from({ length: claim.rounds }, (_, i) => ({ round: i + 1 })) });
      }
    }

    open(claim) {
      this.selected = claim;
      this.claims.forEach(c => c.button.setAttribute("aria-pressed", String(c === claim)));
      if (claim.verdict) {
        this.debate.render(claim.verdict);
      } else {
        this.debate.start(claim.text, [], this.thresholds);
        const replay = claim.rounds;
        claim.rounds = 0; // counted again while replaying, so the verdict line names the right round
        claim.events.forEach(([name, ev]) => { if (name === "round") claim.rounds += 1; this.feed(claim, name, ev); });
        claim.rounds = Math.max(claim.rounds, replay);
        if (claim.error) this.debate.error(claim.error);
        else if (claim.state === "pending") this.debate.status("Waiting for its turn (claims are checked a few at a time)…", false);
        else if (claim.state === "stopped") this.debate.status("Not finished: the check stopped.", false);
        else if (!claim.events.length) this.debate.status("Checking this claim…", true);
      }
    }

    counts() {
      const n = { SUPPORTS: 0, REFUTES: 0, "NOT ENOUGH INFO": 0, none: 0, error: 0, open: 0 };
      this.claims.forEach(c => {
        if (c.state === "error") n.error += 1;
        else if (c.state !== "done") n.open += 1;
        else if (n[c.label] !== undefined) n[c.label] += 1;
        else n.none += 1;
      });
      return n;
    }

    progress() {
      if (this.result || !this.claims.length) {
        if (!this.result && !this.claims.length) this.status("No claim to check.", true);
        return;
      }
      const n = this.counts();
      const total = this.claims.length;
      this.status("Checking claims: " + (total - n.open) + " of " + total + " done" +
        (n.REFUTES ? " (" + n.REFUTES + " false so far)" : "") + ".", n.open > 0);
    }

    /* The answer with each claim marked where its words appear in it (claims carry no character offsets:
       the extractor rewrites them to stand alone, so a claim that was reworded is listed only). */
    drawAnswer() {
      const found = [];
      let missing = 0;
      this.claims.forEach(c => {
        const span = locate(this.text, c.text, found);
        if (span) found.push({ ...span, claim: c }); else missing += 1;
      });
      found.sort((a, b) => a.start - b.start);
      this.answerBox.replaceChildren();
      let at = 0;
      found.forEach(({ start, end, claim }) => {
        if (start > at) this.answerBox.append(document.createTextNode(this.text.slice(at, start)));
        const kind = claim.state === "done" ? LABEL_CLASS[claim.label] || "unparsed" : claim.state;
        const mark = el("mark", "claim-span " + kind, this.text.slice(start, end));
        mark.title = "Claim " + (claim.index + 1) + ": " + (claim.state === "done" ? claim.label || "no label" :
          STATE_TEXT[claim.state]);
        mark.dataset.claim = String(claim.index + 1);
        mark.addEventListener("click", () => this.open(claim));
        this.answerBox.append(mark, el("sup", "claim-ref", claim.index + 1));
        at = end;
      });
      if (at < this.text.length) this.answerBox.append(document.createTextNode(this.text.slice(at)));
      this.answerNote.textContent = !this.claims.length ? "" : missing === 0 ?
        "Green: supported · red: refuted · grey: not enough information, no label or not checked yet." :
        missing + " of " + this.claims.length + " claims are worded differently from the answer, so they are " +
        "listed but not marked in it.";
    }

    finish(verdict) {
      this.result = verdict;
      const extraction = verdict.extraction || {};
      if (!this.claims.length && (extraction.claims || []).length) this.setClaims(extraction.claims, extraction.parsed !== false);
      if (extraction.parsed === false) {
        this.problem("The model's list of claims could not be read, even after one re-ask, so nothing was checked.");
      }
      (verdict.claims || []).forEach(check => {
        const claim = this.claims[check.index];
        if (!claim) return;
        claim.settle(check, verdict.config);
        if (this.selected === claim) this.open(claim);
      });
      this.drawAnswer();
      this.showVerdict(verdict);
      this.status("Done.", false);
    }

    showVerdict(v) {
      const box = this.verdictBox;
      box.hidden = false;
      box.className = "response-verdict verdict-box " + (LABEL_CLASS[v.label] || "unparsed");
      const main = el("div", "verdict-main");
      main.append(el("span", "kicker", "the response"), el("span", "verdict-label", v.label || "no label"),
        el("span", "verdict-how", HOW[v.decided_by] || v.decided_by));
      const n = this.counts();
      const parts = [[n.SUPPORTS, "supported"], [n.REFUTES, "refuted"], [n["NOT ENOUGH INFO"], "not enough info"],
        [n.none, "no label"], [n.error, "failed"]].filter(([count]) => count > 0);
      const counts = el("p", "response-counts", this.claims.length + " claim" + (this.claims.length === 1 ? "" : "s") +
        (parts.length ? ": " + parts.map(([count, what]) => count + " " + what).join(" · ") : ""));
      box.replaceChildren(main, counts);
      if (v.usage) {
        const u = v.usage;
        box.append(el("p", "usage muted", u.llm_calls + " model calls · " + u.tool_calls + " searches · " +
          (u.prompt_tokens + u.completion_tokens) + " tokens · " + Number(u.seconds || 0).toFixed(1) + " s"));
      }
    }

    /* A finished check drawn at once from its saved verdict (Recent checks, the results viewer): the claims
       and their verdicts as they were when the check ended. */
    show(v) {
      this.start(String(v.response || ""), v.question || "", {});
      const extraction = v.extraction || {};
      const texts = (extraction.claims || []).length ? extraction.claims : (v.claims || []).map(c => c.claim);
      this.setClaims(texts, extraction.parsed !== false);
      this.finish(v);
      if (v.error) this.problem("The check failed: " + v.error);
    }

    /* The stream ended early: what was checked stays shown, the rest is marked as not finished. */
    stopped(message) {
      this.claims.forEach(c => { if (!c.finished) { c.state = "stopped"; c.draw(); } });
      this.drawAnswer();
      this.problem(message + (this.claims.some(c => c.state === "done") ?
        " The claims checked so far are kept below." : ""));
      this.status("Stopped.", false);
      if (this.selected && !this.selected.finished) this.open(this.selected);
    }
  }

  /* Where `claim` appears in `text`, case and spacing aside (a final full stop optional), not overlapping
     `taken`; null if it is not there word for word. */
  function locate(text, claim, taken) {
    const words = claim.trim().replace(/[.!?]+$/, "").split(/\s+/).filter(Boolean);
    if (!words.length) return null;
    const pattern = new RegExp(words.map(w => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+") + "[.!?]?", "gi");
    let match;
    while ((match = pattern.exec(text)) !== null) {
      const start = match.index;
      const end = start + match[0].length;
      if (!taken.some(s => start < s.end && s.start < end)) return { start, end };
      pattern.lastIndex = start + 1;
    }
    return null;
  }

  /* ---------- the form in response mode ---------- */

  const view = new ResponseView($("response-live"));
  const claimLabel = document.querySelector("label[for=claim]");

  /* Stop acts on the run of the visible mode only: the other mode's run goes on, its tab is marked busy and
     the form says where it is (app.js and setBusy below set data-busy to the mode whose run is going on). */
  const claimTab = document.querySelector("button.tab[data-view=check]:not([data-mode])");
  const responseTab = document.querySelector("button.tab[data-mode=response]");
  const elsewhere = el("p", "run-elsewhere muted");
  elsewhere.setAttribute("role", "status");
  elsewhere.hidden = true;
  $("form-error").before(elsewhere);

  function syncBusy() {
    const busy = formNode.dataset.busy || "";
    const mode = formNode.dataset.mode || "claim";
    $("cancel").hidden = busy !== mode;
    claimTab.classList.toggle("busy", busy === "claim");
    responseTab.classList.toggle("busy", busy === "response");
    elsewhere.hidden = !busy || busy === mode;
    elsewhere.textContent = busy === "claim" ? "A claim is being checked under “Check a claim”: open that tab to " +
      "follow or stop it. You can check a response once it ends." : busy === "response" ? "A response is " +
      "being checked under “Check a response”: open that tab to follow or stop it." : "";
    if (busy && busy !== mode) $("submit").textContent = mode === "response" ? "Check response" : "Verify claim";
    if (busy === "claim" && mode === "claim") $("submit").textContent = "Debating…";
  }
  new MutationObserver(syncBusy).observe(formNode, { attributes: true, attributeFilter: ["data-busy"] });

  function setMode(mode) {
    const response = mode === "response";
    formNode.dataset.mode = mode;
    $("response-fields").hidden = !response;
    $("claim").hidden = response;
    claimLabel.hidden = response;
    $("claim").required = !response; // a hidden required field would block the form
    $("live").hidden = response;
    $("response-live").hidden = !response || !$("response-live").childElementCount;
    if (!$("submit").disabled) $("submit").textContent = response ? "Check response" : "Verify claim";
    page.hideFormError();
    if (response) updateCount(); else $("claim").dispatchEvent(new Event("input"));
    syncBusy();
  }

  document.querySelectorAll("button.tab").forEach(tab => tab.addEventListener("click", () => {
    if (tab.dataset.view === "check") setMode(tab.dataset.mode || "claim");
  }));
  // A past claim opened from the history is drawn in the claim view; a past response (app.js sends
  // factdebate:open-response) in this one, with its answer back in the form.
  $("history").addEventListener("click", e => {
    const item = e.target.closest(".history-item");
    if (item && item.dataset.kind !== "response" && formNode.dataset.mode === "response") claimTab.click();
  });
  document.addEventListener("factdebate:open-response", e => {
    if (running) { page.showFormError("A response is being checked: stop it or let it end to open a past one."); return; }
    if (formNode.dataset.mode !== "response") responseTab.click();
    const v = e.detail || {};
    $("response-text").value = String(v.response || "");
    $("response-question").value = v.question || "";
    updateCount();
    view.show(v);
  });

  function updateCount() {
    if (formNode.dataset.mode !== "response") return;
    const n = $("response-text").value.trim().length;
    const count = $("claim-count");
    count.textContent = maxChars ? n + " / " + maxChars + " characters" : n + " characters";
    count.classList.toggle("over", Boolean(maxChars) && n > maxChars);
  }
  $("response-text").addEventListener("input", updateCount);
  document.addEventListener("factdebate:catalogue", e => { maxChars = e.detail.defaults.max_response_chars; updateCount(); });

  function setBusy(busy) {
    formNode.dataset.busy = busy ? "response" : "";
    $("submit").disabled = busy;
    $("submit").textContent = busy ? "Checking…" : "Check response";
    $("cancel").hidden = !busy;
    // The claim form's tab waits; the results viewer and back stay open while the check runs.
    document.querySelector("button.tab[data-view=check]:not([data-mode])").disabled = busy;
  }

  formNode.addEventListener("submit", async e => {
    if (formNode.dataset.mode !== "response") return;
    e.preventDefault();
    if (running) return;
    page.hideFormError();
    const text = $("response-text").value.trim();
    if (!text) { page.showFormError("Paste the answer to check."); return; }
    const question = $("response-question").value.trim();
    const body = page.requestBody();
    delete body.claim;
    body.response = text;
    if (question) body.question = question;
    const controller = new AbortController();
    running = controller;
    setBusy(true);
    let started = false;
    let ended = false;
    try {
      const r = await fetch("/v1/check-response/stream", { method: "POST", signal: controller.signal,
        headers: page.headers({ "Content-Type": "application/json", "Accept": "text/event-stream" }),
        body: JSON.stringify(body) });
      if (!r.ok) {
        // The answer stays in the box and the last check stays shown: nothing to redo but the fix.
        const msg = await page.errorText(r);
        page.showFormError(r.status === 401 ? "The server needs a valid API key (top right)." : msg);
        return;
      }
      view.start(text, question, page.thresholds(body));
      started = true;
      await page.readSSE(r, (name, data) => {
        if (name === "result" || name === "error") ended = true;
        if (name === "result") page.remember(data); // before the view adds each claim's settings to it
        view.event(name, data);
      });
      if (!ended) view.stopped("The stream ended before the response's verdict arrived.");
    } catch (err) {
      const msg = err.name === "AbortError" ? "Stopped by you." : "The connection broke: " + String(err.message || err) + ".";
      if (started) view.stopped(msg); else page.showFormError(msg);
    } finally {
      running = null;
      setBusy(false);
    }
  });

  $("cancel").addEventListener("click", () => { if (running && formNode.dataset.mode === "response") running.abort(); });

  if (location.hash === "#response") document.querySelector("button.tab[data-mode=response]").click();

  // The results viewer (app.js) opens a saved response verdict (check-response --json) here.
  const saved = new WeakMap();
  window.FactDebate.showSavedResponse = (verdict, host) => {
    if (!saved.has(host)) saved.set(host, new ResponseView(host, host.id + "-debate"));
    saved.get(host).show(verdict);
  };
  window.FactDebate.ResponseView = ResponseView;
})();
