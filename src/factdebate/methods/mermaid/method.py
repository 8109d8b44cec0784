"""``mermaid``: MERMAID (Cao et al.), Algorithm 1. A decomposer turns the claim into triplets and a topic; an
executor runs a ReAct loop over MCP tool servers with evidence recalled from a memory by the decomposer's
entities; after the verdict the evidence used is written back. The verdict holds one round: the executor's
turn (its ``steps``) and the decomposer's (docs/methods/mermaid.md)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from factdebate.core.claim_context import binary_task, current_position, search_before
from factdebate.core.errors import IndexError_
from factdebate.core.events import StepTaken, ToolError, doc_refs
from factdebate.core.runtime import count_reply, emit, span
from factdebate.core.types import Document, Label, Round, Step, Turn, Verdict, VerdictWarning
from factdebate.llm.model import LLM
from factdebate.memory.settings import scoped_namespace
from factdebate.memory.store import EvidenceMemory
from factdebate.methods.base import CallProbe, Method, register
from factdebate.methods.kit.common import book_tool_call
from factdebate.methods.kit.fields import words
from factdebate.methods.kit.query_text import clean_query
from factdebate.methods.kit.turns import answered, end_round, finish, turn_started
from factdebate.methods.mermaid.decomposer import Decomposition, decompose
from factdebate.methods.mermaid.deviations import deviations
from factdebate.methods.mermaid.events import EVENTS, Decomposed, MemoryRecalled, MemoryWritten
from factdebate.methods.mermaid.executor import (
    AGENT,
    StepReply,
    answer_schema,
    answers_text,
    ask_step,
    fallback_step,
    step_schema,
)
from factdebate.methods.mermaid.memory import (
    Used,
    checked_memory,
    hit_record,
    memory_for,
    recall_documents,
    recall_text,
    write_used,
)
from factdebate.methods.mermaid.run_memory import IN_ORDER, check_memory_choice, start
from factdebate.methods.mermaid.scripted import REPLIES
from factdebate.methods.mermaid.settings import MermaidSettings, memory_settings, run_owned
from factdebate.methods.mermaid.start import ToolCallsFailed
from factdebate.methods.mermaid.toolbox import (
    MANAGED_ARGS,
    SHIPPED,
    Toolbox,
    build_toolbox,
    coerce_input,
    input_hint,
    result_documents,
    result_passages,
)
from factdebate.methods.mermaid.view import VIEW
from factdebate.methods.resources import Resources, RunScope
from factdebate.prompts import Prompt, render
from factdebate.tools.toolset import ToolResult
from factdebate.util.errors import ConfigError

if TYPE_CHECKING:
    from factdebate.core.deviations import Deviation
    from factdebate.methods.settings_protocol import RunSettings, SettingsT

PREFLIGHT_WAIT_S = 2.0  # longest wait for a locked memory file while resources are built


@dataclass
class _Shown:
    thought: str
    action: str
    observation: str


@dataclass
class _Tool:
    name: str
    description: str
    input: str


def toolbox_key(settings: RunSettings, cfg: MermaidSettings) -> str:
    # The servers with their tools: settings narrowed to other tools (the service's) get a toolbox of their own.
    servers = {name: server.tools for name, server in sorted(settings.mcp_servers.items())}
    return "mermaid-tools:" + json.dumps([cfg.servers, cfg.wikipedia_online, servers, settings.retrieval.corpus])


@register
class Mermaid(Method[MermaidSettings]):
    name = "mermaid"
    description = ("MERMAID: claim decomposer, ReAct executor over MCP tool servers, persistent evidence memory "
                   "reused across claims")
    settings_model = MermaidSettings
    roles = ("debater",)
    option_aliases: ClassVar[dict[str, tuple[str, ...]]] = {"memory": ("memory",), "memory_path": ("memory_path",),
                                                            "memory_from": ("memory_from",)}
    view = VIEW
    events = EVENTS
    scripted_replies = REPLIES
    # Its readable replies name a tool of the toolset, so the check needs the test's own toolset.
    call_probe = CallProbe(elsewhere="tests/methods/mermaid/test_method.py::test_call_bounds_hold_at_both_ends")

    def indexes(self, settings: RunSettings) -> set[str]:
        """What the shipped servers it starts open: both indexes for offline Wikipedia, BM25 for search."""
        cfg = self.cfg(settings)
        started = {name for name in cfg.servers if name not in settings.mcp_servers}
        wanted = {"local", "rag"} if "wikipedia" in started and not cfg.wikipedia_online else set()
        return wanted | ({"local"} if "search" in started else set())

    def check(self, settings: RunSettings) -> None:
        """Settings that leave the executor nothing to search (no tool server, a corpus with no local index)
        are usage errors."""
        from factdebate.corpus.builtin import BUILTIN_CORPUS
        from factdebate.corpus.lexical import LexicalIndex

        cfg = self.cfg(settings)
        check_memory_choice(cfg)
        started = [name for name in cfg.servers if name not in settings.mcp_servers]
        if not started and not settings.mcp_servers:
            raise ConfigError("MERMAID has no tool servers: methods.mermaid.servers (--mermaid-servers) is empty "
                              "and no mcp_servers are configured (a service offers its callers only those on its "
                              f"allowed_mcp_tools); name one or more of {', '.join(SHIPPED)}")
        searching = [name for name in started if name == "search" or (name == "wikipedia" and
                                                                      not cfg.wikipedia_online)]
        corpus = settings.retrieval.corpus
        if searching and corpus != BUILTIN_CORPUS:
            index = LexicalIndex(corpus)
            if not index.exists():
                raise IndexError_(f"no local search index for corpus '{corpus}' at {index.path}, which MERMAID's "
                                  f"{' and '.join(searching)} tool server(s) would search: build it with "
                                  f"`factdebate index PATH --corpus {corpus}`, or choose another --corpus")

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        cfg = self.cfg(settings)
        decomposer = 2 if cfg.decomposer else 0
        return (2 if cfg.decomposer else 1), decomposer + 2 * cfg.max_steps + 2

    def preflight(self, settings: RunSettings) -> None:
        """The memory file opens, is a memory, and is not locked (a short wait here, on the event loop; the
        first claim waits in full)."""
        cfg = self.cfg(settings)
        if cfg.memory_from and cfg.memory != "off":
            raise ConfigError("--memory-from seeds the memory of an evaluation or a batch (eval, verify --input); "
                              "one claim reads the memory --memory-path names (--memory readonly leaves it as it is)")
        memory = memory_settings(settings, cfg)
        if memory.mode != "off":
            wait = min(memory.busy_timeout_s, PREFLIGHT_WAIT_S)
            checked_memory(memory.model_copy(update={"semantic": False, "busy_timeout_s": wait}))

    def start_run(self, settings: RunSettings, run: RunScope) -> dict[str, Any]:
        """The run's own memory, or the shared ``memory_path``, prepared and checked (run_memory.py)."""
        cfg = self.cfg(settings)
        check_memory_choice(cfg)
        return start(settings, cfg, run)

    def in_order(self, settings: RunSettings) -> str | None:
        return IN_ORDER if self.cfg(settings).memory == "on" else None

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        return deviations(settings, self.cfg(settings))

    def for_caller(self, settings: SettingsT, caller: str) -> SettingsT:
        """Each caller of the service recalls only what its own claims stored: a namespace per API key id."""
        cfg = self.cfg(settings)
        if cfg.memory == "off":
            return settings
        namespace = scoped_namespace(memory_settings(settings, cfg).namespace, caller)
        methods = {**settings.methods, self.name: cfg.model_copy(update={"memory_namespace": namespace})}
        return settings.model_copy(update={"methods": methods})

    async def run(self, claim: str, resources: Resources) -> Verdict:
        settings = resources.settings
        cfg = self.cfg(settings)
        three_way = cfg.labels == "three-way" and not binary_task()  # a two-label task offers two answers
        llm = resources.debater
        with span("claim", "claim", method=self.name):
            # The tool servers first: a claim they cannot serve fails before any model call.
            toolbox = await resources.service(toolbox_key(settings, cfg),
                                              lambda: build_toolbox(settings, list(cfg.servers),
                                                                    wikipedia_online=cfg.wikipedia_online))
            await toolbox.ready()
            memory = await memory_for(resources, memory_settings(settings, cfg, resources.run))  # so is a bad file
            # In a run's own memory, the claim sees what the claims before it in the run's order stored.
            position = current_position() if run_owned(cfg, resources.run) else None
            if cfg.decomposer:
                decomposition = await decompose(llm, claim)
            else:
                decomposition = Decomposition(parsed=False)
                emit(Decomposed(agent="decomposer", parsed=False, skipped=True))
            entities = decomposition.entities
            hits = await memory.arecall(entities, before=position) if memory is not None and entities else []
            if memory is not None:
                emit(MemoryRecalled(agent=AGENT, entities=entities, hits=[hit_record(h) for h in hits],
                                    mode=cfg.memory))
            context = _Context(claim, decomposition.background(), recall_text(hits), three_way, cfg, toolbox,
                               settings.retrieval.search_before, entities[0] if entities else "")
            turn = Turn(agent=AGENT, role="executor", tool="mcp", evidence=recall_documents(hits))
            rnd = Round(round=1, turns=[turn, Turn(agent="decomposer", role="decomposer",
                                                   response=decomposition.as_json() if decomposition.parsed
                                                   else decomposition.raw)])
            turn_started(turn, 1)
            used, failures, forced = await self._loop(context, llm, turn, settings.retrieval.k)
            if context.calls and len(context.failed) == context.calls:
                # Every call that reached a server failed: a verdict now would rest on error messages alone.
                raise ToolCallsFailed(context.failed)
            answered(turn, 1)
            end_round(rnd, consensus=False, final=True)
            warnings = await _remember(memory, cfg, used, entities, position)
            failures += int(cfg.decomposer and not decomposition.parsed)
            verdict = finish(claim, self.name, turn.label, "forced" if forced else "executor", [rnd],
                             unparsed_turns=failures)
            verdict.warnings += warnings
            return verdict

    async def _loop(self, ctx: _Context, llm: LLM, turn: Turn, k: int) -> tuple[list[Used], int, bool]:
        """Algorithm 1, lines 11-27: the used passages, the unreadable replies and whether the answer was
        forced. A repeated action is not run with ``repeat_skip`` (the executor is told it has it) or
        ``repeat_stop`` (the answer is asked for), and is counted; with neither, as in Algorithm 1."""
        used: list[Used] = []
        failures = 0
        actions: dict[str, int] = {}  # each action taken, as (tool, input) JSON, and its step number
        skips = ctx.cfg.repeat_stop or ctx.cfg.repeat_skip
        for number in range(1, ctx.cfg.max_steps + 1):
            prompt = ctx.prompt("mermaid_step", turn.steps, remaining=ctx.cfg.max_steps - number + 1)
            schema = step_schema(ctx.toolbox.schemas, ctx.three_way)
            reply, raw, retries = await ask_step(llm, prompt, schema, ctx.three_way, number, answer_only=False,
                                                 claim=ctx.claim)
            turn.parse_retries += retries
            if reply is None:  # counted lost by ``llm.ask``; a refused query searches the last good one
                failures += 1
                reply = fallback_step(raw, ctx.claim, turn.steps)
            action = "" if reply is None or reply.is_answer else \
                json.dumps([reply.tool, _same_action(reply.input)], sort_keys=True, default=str)
            if reply is None:
                step = Step(thought="", tool="", observation="no valid step was given")
            elif reply.is_answer:
                step = Step(thought=reply.thought, tool="answer", arguments={"answer": reply.label.value
                                                                             if reply.label else ""})
            elif skips and action in actions:
                count_reply("mermaid_step", "repeated")
                note = (f"the same action as step {actions[action]}: not repeated" if ctx.cfg.repeat_stop else
                        render("repeated_action", step=actions[action]).text)
                step = Step(thought=reply.thought, tool=reply.tool,
                            arguments=reply.input if isinstance(reply.input, dict) else {"input": reply.input},
                            observation=note, repeats=actions[action])
            else:
                actions.setdefault(action, number)
                step, docs = await self._act(ctx, reply, number, k)
                used += docs
            turn.steps.append(step)
            emit(StepTaken(agent=AGENT, round=1, index=number, thought=step.thought, tool=step.tool,
                           arguments=step.arguments, observation=step.observation[:400],
                           evidence=doc_refs(step.evidence)))
            turn.evidence += step.evidence
            if reply is not None and reply.is_answer:
                turn.response, turn.label = raw.strip(), reply.label
                return used, failures, False
            if step.repeats is not None and ctx.cfg.repeat_stop:
                break
        # Budget spent without an answer: ForceAnswer from the whole history.
        prompt = ctx.prompt("mermaid_force", turn.steps)
        reply, raw, retries = await ask_step(llm, prompt, answer_schema(ctx.three_way), ctx.three_way,
                                             ctx.cfg.max_steps + 1, answer_only=True, claim=ctx.claim)
        turn.parse_retries += retries
        turn.response, turn.label = raw.strip(), reply.label if reply is not None else None
        return used, failures + (reply is None), True

    async def _act(self, ctx: _Context, reply: StepReply, number: int, k: int) -> tuple[Step, list[Used]]:
        """One tool call; its errors and unknown tool names come back as the observation."""
        route = ctx.toolbox.routes.get(reply.tool)
        arguments, written = _cleaned(coerce_input(route.schema, reply.input) if route else
                                      (reply.input if isinstance(reply.input, dict) else {"input": reply.input}))
        started = time.perf_counter()
        query = _query_of(arguments)
        with span(f"{reply.tool}: {query[:60]}", "tool", agent=AGENT, round=number):
            result = await ctx.toolbox.call(reply.tool, arguments, k=k,
                                            search_before=search_before(ctx.before))
            docs = result_documents(result, reply.tool, query)
            if route is not None:  # a call that reached a server (the paper's count)
                book_tool_call(reply.tool, query, k, docs, time.perf_counter() - started, agent=AGENT,
                               round=number, error=result.text[:300] if result.is_error else None, written=written)
            if result.is_error:
                emit(ToolError(tool=reply.tool, query=query, error=result.text[:300]))
            if route is not None:
                ctx.calls += 1
                if result.is_error:
                    ctx.failed.append((route.toolset.name, " ".join(result.text.split())[:300]))
        shown = {key: value for key, value in arguments.items() if key not in MANAGED_ARGS}
        step = Step(thought=reply.thought, tool=reply.tool, arguments=shown,
                    observation=_observation(result, docs, ctx.cfg.observation_chars), evidence=docs)
        # The memory keeps retrieved passages only, not a result's plain text or notes (they can echo the model).
        return step, [Used(d, reply.tool) for d in result_passages(result, reply.tool) or []]


async def _remember(memory: EvidenceMemory | None, cfg: MermaidSettings, used: list[Used],
                    entities: list[str], position: int | None) -> list[VerdictWarning]:
    """The write after the verdict; what it could not do comes back as warnings for the verdict."""
    if memory is None:
        return []
    if cfg.memory == "readonly" or not entities:
        emit(MemoryWritten(agent=AGENT, entities=entities,
                           skipped="read-only memory" if cfg.memory == "readonly" else "no entities to key on"))
        return []
    written = await write_used(memory, used, entities, position)
    emit(MemoryWritten(agent=AGENT, entities=entities, records=written.records, added=written.added,
                       not_stored=written.not_stored, error=written.error))
    return written.warnings()


@dataclass
class _Context:
    claim: str
    background: str
    memory: str
    three_way: bool
    cfg: MermaidSettings
    toolbox: Toolbox
    before: str | None = None
    entity: str = ""  # the decomposition's first entity: the example title the tool inputs show
    calls: int = 0  # tool calls that reached a server
    failed: list[tuple[str, str]] = field(default_factory=list)  # (server, error) of those that failed

    def prompt(self, name: str, steps: list[Step], remaining: int = 0) -> Prompt:
        tools = [_Tool(s.name, " ".join(s.description.split())[:300], input_hint(s, self.claim, self.entity))
                 for s in self.toolbox.schemas]
        return render(name, claim=self.claim, background=self.background, memory=self.memory,
                      steps=[_shown(s) for s in steps], tools=tools, remaining=remaining,
                      answers=answers_text(self.three_way))


def _shown(step: Step) -> _Shown:
    if step.tool == "answer":
        action = f"answer {step.arguments.get('answer', '')}"
    elif step.tool:
        action = f"{step.tool} {json.dumps(step.arguments, ensure_ascii=False)}"
    else:
        action = "(none)"
    return _Shown(step.thought, action, step.observation)


def _cleaned(arguments: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The arguments with their search query (``query`` or ``q``) cleaned, and the model's text where that
    changed it."""
    for key in ("query", "q"):
        value = arguments.get(key)
        if isinstance(value, str):
            query = clean_query(value)
            return ({**arguments, key: query.text}, query.written) if query.written is not None else (arguments, None)
    return arguments, None


def _same_action(value: Any) -> Any:
    """An action's input as compared with earlier ones: wrapping, case and punctuation aside."""
    if isinstance(value, str):
        return " ".join(words(clean_query(value).text))
    if isinstance(value, dict):
        return {key: " ".join(words(item)) if isinstance(item, str) else item
                for key, item in _cleaned(value)[0].items()}
    return value


def _query_of(arguments: dict[str, Any]) -> str:
    for key in ("query", "title", "q", "input"):
        if isinstance(arguments.get(key), str):
            return str(arguments[key])
    return json.dumps(arguments, ensure_ascii=False)[:300]


def _observation(result: ToolResult, docs: list[Document], chars: int) -> str:
    if result.is_error:
        return f"error: {result.text.strip()[:chars]}"
    if not docs:
        return result.text.strip()[:chars] or "nothing found"
    per = max(150, chars // len(docs))
    text = "\n".join(f"[{n}] {d.title}: {' '.join(d.text.split())[:per]}" for n, d in enumerate(docs, start=1))
    notes = result.data.get("notes") if isinstance(result.data, dict) else None
    if notes:
        text += "\nnotes: " + "; ".join(str(n) for n in notes)[:300]
    return text[: chars + 300]


__all__ = ["SHIPPED", "Label", "Mermaid", "MermaidSettings"]
