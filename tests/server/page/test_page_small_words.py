"""Two small pieces of the page's drawing, run under Node as the ES module the page imports (skipped without
Node): a score that could not be computed is an empty outlined bar saying so, not a full
grey one (dom.js ``gauge``), and counts agree with their nouns ("1 model call · 1 search", dom.js
``usageText``). ``gauge`` builds DOM nodes, so the script gives it a document of plain objects that records
what was built: only what ``el`` uses (createElement, className, classList, textContent, style, append)."""

from __future__ import annotations

import json
from typing import Any

from tests.readiness import run
from tests.server.page.test_page_scripts import NODE, STATIC, pytestmark, run_module  # noqa: F401

# The smallest document dom.js's el() and gauge() need, serialised back as {tag, cls, text, width, title, kids}.
DOCUMENT = """
class Node_ {
  constructor(tag) { this.tag = tag; this.className = ""; this.textContent = ""; this.title = ""; this.style = {};
    this.kids = []; }
  get classList() { const self = this; return { add: (...names) => {
    self.className = [...self.className.split(" ").filter(Boolean), ...names].join(" "); } }; }
  append(...nodes) { this.kids.push(...nodes); }
  toJSON() { return { tag: this.tag, cls: this.className, text: this.textContent, width: this.style.width ?? null,
    left: this.style.left ?? null, kids: this.kids }; }
}
globalThis.document = { createElement: tag => new Node_(tag) };
"""


def gauge(value: float | None, threshold: float | None) -> dict[str, Any]:
    script = (DOCUMENT + f"const m = await import({json.dumps((STATIC / 'dom.js').as_uri())});\n"
              f"process.stdout.write(JSON.stringify(m.gauge('faithfulness', {json.dumps(value)}, "
              f"{json.dumps(threshold)})));\n")
    out = run([str(NODE), "--input-type=module", "-e", script], what="node on dom.js")
    assert out.returncode == 0, out.stderr
    built: dict[str, Any] = json.loads(out.stdout)
    return built


def bar(built: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The gauge's value text and what its bar holds (a fill, a threshold tick)."""
    head, drawn = built["kids"]
    return head["kids"][1]["text"], drawn["kids"]


def test_a_score_that_could_not_be_computed_is_an_empty_bar_that_says_so() -> None:
    missing = gauge(None, 0.7)
    text, inside = bar(missing)
    assert "na" in missing["cls"].split()  # app.css: outlined, no background
    assert text == "could not be scored"
    # No fill at all (a fill without a width spans the bar: the full grey bar of the issue); the threshold
    # still shows where the score would have had to reach.
    assert [(part["cls"], part["left"]) for part in inside] == [("gauge-tick", "70%")]
    scored = gauge(0.42, 0.7)
    text, inside = bar(scored)
    assert "na" not in scored["cls"].split()
    assert text == "0.42 / 0.7"
    assert [(part["cls"], part["width"]) for part in inside] == [("gauge-fill low", "42%"), ("gauge-tick", None)]


def test_usage_counts_agree_with_their_nouns() -> None:
    one = {"llm_calls": 1, "tool_calls": 1, "prompt_tokens": 1, "completion_tokens": 0, "seconds": 0.4}
    assert run_module("dom.js", "m.usageText(data)", one) == "1 model call · 1 search · 1 token · 0.4\u00a0s"
    many = {"llm_calls": 12, "tool_calls": 0, "prompt_tokens": 900, "completion_tokens": 100, "seconds": 3.0}
    assert run_module("dom.js", "m.usageText(data)", many) == "12 model calls · 0 searches · 1000 tokens · 3.0\u00a0s"
