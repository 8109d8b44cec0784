"""Terminal rendering of a verdict: rounds, queries, evidence, labels, scores, the decision."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from factdebate.types import Label, Turn, Verdict

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


def render_verdict(verdict: Verdict, console: Console) -> None:
    cfg = verdict.config.get("toolmad", {})
    f_threshold = float(cfg.get("faithfulness_threshold", 0.7))
    r_threshold = float(cfg.get("relevance_threshold", 0.8))
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
