"""Terminal rendering of a verdict: rounds, queries, evidence, labels, scores, the decision."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from factdebate.types import Document, Label, Turn, Verdict

LABEL_STYLE = {Label.SUPPORTS: "bold green", Label.REFUTES: "bold red", Label.NOT_ENOUGH_INFO: "bold yellow"}


def _label(label: Label | None) -> Text:
    if label is None:
        return Text("UNPARSED", style="bold magenta")
    return Text(label.value, style=LABEL_STYLE[label])


def _score(value: float | None, threshold: float | None = None) -> Text:
    if value is None:
        return Text("n/a", style="dim")
    style = "" if threshold is None else ("green" if value >= threshold else "red")
    return Text(f"{value:.2f}", style=style)


def _turn_panel(turn: Turn, f_threshold: float, r_threshold: float) -> Panel:
    lines: list[Text | Table] = []
    if turn.query is not None:
        changed = "" if turn.query_changed is None else (" (new)" if turn.query_changed else " (kept)")
        lines.append(Text.assemble(("query ", "dim"), (f"[{turn.query}]", "cyan"), (changed, "dim")))
    for doc in turn.evidence:
        lines.append(Text.assemble(("  • ", "dim"), (doc.title, "bold"), (f"  {doc.source}", "dim")))
    lines.append(Text(turn.response.strip()))
    reasked = " (after a re-ask)" if turn.parse_retries else ""
    scores = Text.assemble(("label ", "dim"), _label(turn.label), (reasked, "dim"), ("   faithfulness ", "dim"),
                           _score(turn.faithfulness, f_threshold), ("   relevance ", "dim"),
                           _score(turn.answer_relevance, r_threshold))
    if turn.consistency is not None:
        scores.append_text(Text.assemble(("   consistency ", "dim"), _score(turn.consistency)))
    lines.append(scores)
    for error in turn.score_errors:
        lines.append(Text(f"could not score: {error}", style="magenta"))
    return Panel(Group(*lines), title=f"{turn.agent} ({turn.tool})", title_align="left")


class LiveDebate:
    """An event sink that prints each turn as soon as it is complete (answer, and scores when scoring is
    on), so a user watches the debate unfold instead of waiting for the verdict."""

    def __init__(self, console: Console, claim: str, *, scoring: bool, f_threshold: float = 0.7,
                 r_threshold: float = 0.8) -> None:
        self.console, self.claim, self.scoring = console, claim, scoring
        self.thresholds = (f_threshold, r_threshold)
        self.turns: dict[tuple[str, int], Turn] = {}
        self.rounds_shown: set[int] = set()
        self.printed = 0

    def __call__(self, event: dict[str, Any]) -> None:
        kind, key = event.get("event"), (str(event.get("agent")), int(event.get("round") or 0))
        if kind == "turn_started":
            evidence = [Document(id=str(d.get("id")), title=str(d.get("title")), text="", source=str(d.get("source")))
                        for d in event.get("evidence") or []]
            self.turns[key] = Turn(agent=key[0], tool=str(event.get("tool", "")), query=event.get("query"),
                                   query_changed=event.get("query_changed"), evidence=evidence)
        elif kind == "answer" and key in self.turns:
            turn = self.turns[key]
            turn.response, turn.label = str(event.get("response", "")), event.get("label")
            turn.parse_retries = int(event.get("parse_retries") or 0)
            if not self.scoring:
                self._show(key)
        elif kind == "score" and key in self.turns:
            turn = self.turns[key]
            turn.faithfulness, turn.answer_relevance = event.get("faithfulness"), event.get("answer_relevance")
            turn.consistency, turn.score_errors = event.get("consistency"), list(event.get("errors") or [])
            self._show(key)

    def _show(self, key: tuple[str, int]) -> None:
        if not self.printed:
            self.console.print(Text.assemble(("Claim: ", "bold"), self.claim))
        if key[1] not in self.rounds_shown:
            self.rounds_shown.add(key[1])
            self.console.rule(f"Round {key[1]}")
        self.console.print(_turn_panel(self.turns.pop(key), *self.thresholds))
        self.printed += 1


def render_verdict(verdict: Verdict, console: Console, *, rounds: bool = True) -> None:
    """The whole debate, or (``rounds=False``, after a :class:`LiveDebate`) only the judge and verdict."""
    cfg = verdict.config.get("toolmad", {})
    f_threshold = float(cfg.get("faithfulness_threshold", 0.7))
    r_threshold = float(cfg.get("relevance_threshold", 0.8))
    if rounds:
        console.print(Text.assemble(("Claim: ", "bold"), verdict.claim))
        for rnd in verdict.rounds:
            console.rule(f"Round {rnd.round}")
            for turn in rnd.turns:
                console.print(_turn_panel(turn, f_threshold, r_threshold))
    if verdict.judge is not None:
        console.rule("Judge")
        console.print(Panel(Text(verdict.judge.response.strip()), title="judge", title_align="left"))
    how = {"consensus": "consensus of the debaters", "judge": "the judge", "single": "a single answer"}
    usage = verdict.usage
    summary = Text.assemble(("Verdict: ", "bold"), _label(verdict.label),
                            (f"  decided by {how.get(verdict.decided_by, verdict.decided_by)}", ""),
                            (f" after {len(verdict.rounds)} round(s)" if verdict.rounds else "", ""))
    console.print(Panel(summary, border_style="bold"))
    console.print(Text(f"{usage.llm_calls} LLM calls ({usage.cached_calls} cached), {usage.prompt_tokens} prompt + "
                       f"{usage.completion_tokens} completion tokens, {usage.tool_calls} tool calls, "
                       f"{usage.seconds:.1f}s", style="dim"))
    if verdict.unparsed_turns:
        console.print(Text(f"{verdict.unparsed_turns} answer(s) had no readable label and were not counted "
                           "as agreement", style="magenta"))
