"""Terminal rendering of any method's debate: rounds, turns, judgements, the decision; :class:`LiveDebate`
draws the same from trace events. What differs between methods comes from their view (methods/view.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from factdebate.core.deviations import Deviation
from factdebate.core.events import summary
from factdebate.core.types import Document, Judgement, Label, Step, Turn, Verdict, VerdictWarning
from factdebate.llm import near_chance
from factdebate.methods.base import Method
from factdebate.methods.view import MethodView, describe
from factdebate.tools.retrieval_record import FULL_TEXT

LABEL_STYLE = {Label.SUPPORTS: "bold green", Label.REFUTES: "bold red", Label.NOT_ENOUGH_INFO: "bold yellow",
               Label.CONFLICTING: "bold magenta"}
GENERIC = MethodView()


def view_of(method: str | None) -> MethodView:
    """The view the method declares; the generic one for a method this install does not know."""
    cls = Method.registered().get(method or "")
    return cls.view if cls is not None else GENERIC


def thresholds(config: dict[str, Any], method: str | None = None) -> dict[str, float]:
    """Score thresholds of the method's settings (``<score>_threshold`` keys), for colouring scores."""
    method = method or str(config.get("method", ""))
    section = (config.get("methods") or {}).get(method) or config.get("toolmad") or {}
    out = {key.removesuffix("_threshold"): float(value) for key, value in section.items()
           if key.endswith("_threshold") and isinstance(value, int | float)}
    if "relevance" in out:
        out.setdefault("answer_relevance", out["relevance"])
    return out


def _label(label: Label | str | None) -> Text:
    if label is None:
        return Text("UNPARSED", style="bold magenta")
    label = Label(label)
    return Text(label.value, style=LABEL_STYLE[label])


def _score(value: float | None, threshold: float | None = None) -> Text:
    if value is None:
        return Text("n/a", style="dim")
    style = "" if threshold is None else ("green" if value >= threshold else "red")
    return Text(f"{value:.2f}", style=style)


def _step_line(index: int, step: Step) -> Text:
    action = step.tool or "no valid action"
    if step.arguments:
        action += "[" + ", ".join(str(v) for v in step.arguments.values()) + "]"
    return Text.assemble((f"step {index} ", "dim"), (step.thought[:200] + " ", ""), (action, "cyan"),
                         (f"  → {step.observation[:160]}" if step.observation else "", "dim"))


def turn_panel(turn: Turn, limits: dict[str, float], view: MethodView = GENERIC) -> Panel:
    lines: list[Text] = []
    if turn.claim is not None:
        lines.append(Text.assemble(("claim ", "dim"), (turn.claim, "bold")))
    if turn.query is not None:
        changed = "" if turn.query_changed is None else (" (new)" if turn.query_changed else " (kept)")
        lines.append(Text.assemble(("query ", "dim"), (f"[{turn.query}]", "cyan"), (changed, "dim")))
    if not turn.steps:
        for doc in turn.evidence:
            lines.append(Text.assemble(("  • ", "dim"), (doc.title, "bold"), (f"  {doc.source}", "dim")))
    lines.extend(_step_line(i, step) for i, step in enumerate(turn.steps, start=1))
    lines.append(Text(turn.response.strip()))
    reasked = " (after a re-ask)" if turn.parse_retries else ""
    statement = turn.label is None and view.statement(turn.role)
    scores = Text() if statement else Text.assemble(("label ", "dim"), _label(turn.label), (reasked, "dim"))
    for name, value in turn.scores.items():
        scores.append_text(Text.assemble((f"   {name.replace('_', ' ')} ", "dim"), _score(value, limits.get(name))))
    if scores.plain:
        lines.append(scores)
    for error in turn.score_errors:
        lines.append(Text(f"could not score: {error}", style="magenta"))
    team = f", team {turn.team}" if turn.team and turn.team != turn.agent else ""
    return Panel(Group(*lines), title=f"{turn.agent} ({turn.tool}{team})", title_align="left")


def judgement_panel(judgement: Judgement, view: MethodView = GENERIC) -> Panel:
    vote = _label(judgement.vote) if judgement.vote or not judgement.parsed else Text("no decision", style="dim")
    extra = "" if judgement.confidence is None else f"   confidence {judgement.confidence:.2f}"
    extra += "" if judgement.weight == 1.0 else f"   weight {judgement.weight:g}"
    parts = [Text(judgement.response.strip()), Text.assemble(("vote ", "dim"), vote, (extra, "dim"))]
    for side in sorted({key.split(".", 1)[0] for key in judgement.scores}):
        dims = "  ".join(f"{view.ballot.get(key.split('.', 1)[1], key.split('.', 1)[1])} {value:.2f}"
                         for key, value in judgement.scores.items() if key.startswith(side + "."))
        parts.append(Text(f"{side}: {dims}", style="dim"))
    body = Group(*parts)
    return Panel(body, title=f"{judgement.agent} ({judgement.role})", title_align="left")


class LiveDebate:
    """An event sink that prints each turn once complete and each judgement as it is made."""

    def __init__(self, console: Console, claim: str, *, thresholds: dict[str, float] | None = None,
                 view: MethodView = GENERIC) -> None:
        self.console, self.claim, self.view = console, claim, view
        self.limits = thresholds or {}
        self.turns: dict[tuple[str, int], Turn] = {}
        self.answered: list[tuple[str, int]] = []
        self.rounds_shown: set[int] = set()
        self.judge_shown = False  # the "Judge" rule printed
        self.printed = 0

    def __call__(self, event: dict[str, Any]) -> None:
        kind, key = event.get("event"), (str(event.get("agent")), int(event.get("round") or 0))
        if kind == "turn_started":
            evidence = [Document(id=str(d.get("id")), title=str(d.get("title")), text="", source=str(d.get("source")))
                        for d in event.get("evidence") or []]
            self.turns[key] = Turn(agent=key[0], role=event.get("role") or "debater", team=event.get("team"),
                                   tool=str(event.get("tool", "")), query=event.get("query"),
                                   query_changed=event.get("query_changed"), claim=event.get("claim"),
                                   evidence=evidence)
        elif kind == "step" and key in self.turns:
            self.turns[key].steps.append(Step(thought=event.get("thought") or "", tool=event.get("tool") or "",
                                              arguments=event.get("arguments") or {},
                                              observation=event.get("observation") or ""))
        elif kind == "answer" and key in self.turns:
            turn = self.turns[key]
            turn.response, turn.label = str(event.get("response", "")), event.get("label")
            turn.parse_retries = int(event.get("parse_retries") or 0)
            self.answered.append(key)
        elif kind == "score" and key in self.turns:
            turn = self.turns[key]
            turn.scores, turn.score_errors = dict(event.get("scores") or {}), list(event.get("errors") or [])
            self._show(key)
        elif kind in ("round", "judgement", "verdict"):
            for pending in list(self.answered):
                self._show(pending)
            if kind == "judgement":
                self._judge_header(key[1])
                self.console.print(judgement_panel(Judgement.model_validate(
                    {k: event.get(k) for k in ("agent", "role", "response", "vote", "confidence", "weight", "parsed",
                                               "scores") if event.get(k) is not None}), self.view))
                self.printed += 1
        elif (line := summary(event)) is not None:  # a method's own event (DPD's panel tally)
            self.console.print(Text(line, style="bold"))

    def _header(self, round: int) -> None:
        if not self.printed:
            self.console.print(Text.assemble(("Claim: ", "bold"), self.claim))
        if round not in self.rounds_shown and self.view.rounds:
            self.rounds_shown.add(round)
            self.console.rule(f"Round {round}")

    def _judge_header(self, round: int) -> None:
        """A judgement after the last round is headed as the judge's; one within a round sits under it."""
        if self.rounds_shown and round > max(self.rounds_shown):
            if not self.judge_shown:
                self.judge_shown = True
                self.console.rule("Judge")
            return
        self._header(round)

    def _show(self, key: tuple[str, int]) -> None:
        if key not in self.turns:
            return
        self._header(key[1])
        self.console.print(turn_panel(self.turns.pop(key), self.limits, self.view))
        self.answered = [k for k in self.answered if k != key]
        self.printed += 1


FOLD_DEVIATIONS_OVER = 3  # more ways a run differs from its paper than this: one line with the count
PER_VERDICT = {FULL_TEXT.key}  # deviations of the verdict's own retrieval, not of the settings (never folded)


def render_verdict(verdict: Verdict, console: Console, *, rounds: bool = True, note: str | None = None,
                   all_deviations: bool = False) -> None:
    """The whole debate, or (``rounds=False``) only the decision, ``note``, cost and paper deviations."""
    limits = thresholds(verdict.config, verdict.method)
    view = view_of(verdict.method)
    if rounds:
        console.print(Text.assemble(("Claim: ", "bold"), verdict.claim))
        for rnd in verdict.rounds:
            if view.rounds:
                console.rule(f"Round {rnd.round}")
            for turn in rnd.turns:
                console.print(turn_panel(turn, limits, view))
            for judgement in rnd.judges:
                console.print(judgement_panel(judgement, view))
        if verdict.judges:
            console.rule("Judge" if len(verdict.judges) == 1 else "Judges")
            for judgement in verdict.judges:
                console.print(judgement_panel(judgement, view))
    if verdict.explanation:
        console.print(Text(verdict.explanation, style="dim"))
    usage = verdict.usage
    summary = Text.assemble(("Verdict: ", "bold"), _label(verdict.label), f"  decided by {describe(view, verdict)}",
                            models_part(verdict.usage_by_model))
    console.print(Panel(summary, border_style="bold"))
    if note:
        console.print(note, style="yellow", markup=False, highlight=False, soft_wrap=True)  # one greppable line
    print_script_notes(verdict.warnings, console)
    reasoning = f" ({usage.reasoning_tokens} of them reasoning)" if usage.reasoning_tokens else ""
    console.print(Text(f"{usage.llm_calls} LLM calls ({usage.cached_calls} cached), {usage.prompt_tokens} prompt + "
                       f"{usage.completion_tokens} completion tokens{reasoning}, {usage.tool_calls} tool calls, "
                       f"{usage.seconds:.1f}s", style="dim"))
    if usage.speculative_calls:
        console.print(Text(f"+ {usage.speculative_calls} LLM calls of speculative work that was discarded "
                           f"({usage.speculative_tokens} tokens)", style="dim"))
    if verdict.unparsed_turns:
        console.print(Text(f"{verdict.unparsed_turns} answer(s) had no readable label and were not counted "
                           "as agreement", style="magenta"))
    for warning in verdict.warnings:
        if warning.code not in near_chance.MODEL_CODES:  # those are the notes under the label
            console.print(Text(f"warning: {warning.message}", style="yellow"))
    for line in deviation_lines(verdict.deviations, every=all_deviations, also="as --json does"):
        console.print(Text(line, style="cyan"))


def deviation_lines(deviations: Sequence[Deviation], *, every: bool, also: str) -> list[str]:
    """A run's paper deviations, one line each, or past :data:`FOLD_DEVIATIONS_OVER` (unless ``every``) their
    count and where the list is (``also``)."""
    if len(deviations) > FOLD_DEVIATIONS_OVER and not every:
        # What this verdict's own searches did (the full-text index while the vectors were built) is no setting a
        # reader knows from the last run: written out whatever the fold.
        own = [f"differs from the paper: {d.line()}" for d in deviations if d.key in PER_VERDICT]
        rest = [d for d in deviations if d.key not in PER_VERDICT]
        return [*own, f"{len(rest)} settings differ from the paper ({', '.join(d.key for d in rest[:3])}, …): "
                f"--deviations lists them with the flags that restore the paper's way, {also}"]
    return [f"differs from the paper: {deviation.line()}" for deviation in deviations]


EMBEDDED_MODELS = near_chance.EMBEDDED_MODELS  # a name of this module, so a test can add a model to it


def embedded_model_note(models: list[str], what: str = near_chance.CLAIM) -> str | None:
    """One line after a verdict the embedded model decided: it answers near chance (llm/near_chance.py)."""
    return near_chance.near_chance_note(models, what, embedded=EMBEDDED_MODELS)


def models_part(usage_by_model: Mapping[str, Any]) -> str:
    """The models that answered for a verdict, as its summary line names them."""
    return f" · model {', '.join(sorted(usage_by_model))}" if usage_by_model else ""


def print_script_notes(warnings: Sequence[VerdictWarning], console: Console) -> None:
    """A scripted model's ``scripted_model`` warning as a note under the label: its label is no finding."""
    for warning in warnings:
        if warning.code == "scripted_model":
            console.print(f"note: {warning.message}.", style="yellow", markup=False, highlight=False, soft_wrap=True)


def settings_note(settings: Any, what: str | None = None) -> str | None:
    """The note above, for the models a run's settings give its roles; None for a served model."""
    from factdebate.cli.doctor import roles

    models = [settings.llm_for(role) for role in roles(settings)]
    return embedded_model_note(models, what) if what else embedded_model_note(models)


def print_embedded_note(settings: Any, console: Console, what: str | None = None) -> None:
    """The note above, printed; nothing for a served model."""
    if note := settings_note(settings, what):
        console.print(note, style="yellow", markup=False, highlight=False, soft_wrap=True)  # one greppable line
