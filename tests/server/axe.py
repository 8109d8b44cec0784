"""axe-core's accessibility audit of a page in the browser tests, and a count of the Tab stops a keyboard
user passes. axe-core is package-lock.json's (installed by `npm ci` in scripts/test.sh); a test that audits
is skipped, with the reason, where node_modules lacks it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.paths import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# What fails a test: axe's two worst impacts ("moderate" and "minor" are reported, not failed).
FAILING = ("serious", "critical")


def need_axe() -> str:
    """axe-core's source, or the test is skipped saying how to install it."""
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed at {AXE} (run `npm ci`, as scripts/test.sh does)")
    return AXE.read_text(encoding="utf-8")


def audit(page: Any, screen: str) -> list[str]:
    """axe-core's violations on ``page`` as it is now, one line each: ``screen``, impact, rule and the
    elements. Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not
    govern."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(need_axe())
    found = page.evaluate("""async () => {
      const result = await axe.run(document, {resultTypes: ['violations']});
      return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => n.target.join(' ') + (n.failureSummary ? ' — ' + n.failureSummary.split('\\n')
          .slice(1).join(' ').trim() : ''))}));
    }""")
    return [f"{screen}: {v['impact']} {v['id']} ({v['help']}): {'; '.join(v['nodes'][:6])}" for v in found]


def failing(lines: list[str]) -> list[str]:
    """The lines of ``audit`` that fail a test: serious or critical."""
    return [line for line in lines if line.split(": ", 1)[1].split(" ", 1)[0] in FAILING]


def focus_top(page: Any) -> None:
    """Focus on <body> itself, as on a page just opened: the next Tab goes to the page's first stop."""
    page.evaluate("() => { const body = document.body; body.tabIndex = -1; body.focus();"
                  " body.removeAttribute('tabindex'); }")


PAST = """(end) => {
  const at = document.activeElement;
  return !!at && at !== document.body && !end.contains(at)
    && !!(end.compareDocumentPosition(at) & Node.DOCUMENT_POSITION_FOLLOWING);
}"""


def tab_stops_past(page: Any, selector: str, most: int = 200) -> int:
    """Tab presses, from the top of the page, until focus is past the end of ``selector``'s element (on an
    element after it in the document, outside it); ``most`` + 1 when it never gets there."""
    focus_top(page)
    for presses in range(1, most + 1):
        page.keyboard.press("Tab")
        if page.eval_on_selector(selector, PAST):
            return presses
    return most + 1
