"""The one way to ask a model for something a parser must read: ask, parse, and re-ask once with the
problem if the reply cannot be read.

Callers keep their own parser, prompt, constraint and re-ask template; shared here are the re-ask's
conversation, its prompt name (``<prompt>:reask`` unless named) and the record of the problem. A reply that
stays unreadable is ``value=None`` plus a ``parse_failure`` :class:`~factdebate.core.events.ParseProblem`, never
a default; a re-ask that worked is a ``parse_recovered``. Both are traced here and nowhere else, and every reply
is counted in the run's ``parse_counts`` (asked, re-asked, recovered, lost, cut, by ``what``).

A reply that only copies its format's placeholders (``echoes``) or the problem it was told is no answer. A
re-ask quotes the reply it replaces (:func:`brief`): re-asked with the problem alone, small models wrote it
again word for word. Free text goes through :func:`say` so that its cut replies are counted too."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from factdebate.core.events import ParseProblem, ReplyCut
from factdebate.core.runtime import count_reply, emit
from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.model import LLM
from factdebate.prompts import Prompt, render

T = TypeVar("T")
CLIP = 200  # characters kept from each end of a reply in the record


class Unreadable(ValueError):
    """Raised by a parser that can say what is wrong with a reply; the re-ask quotes ``problem``. ``reask``
    asks for the whole reply again where the caller's asks for a part (``Parsed.replaced``)."""

    def __init__(self, problem: str, reask: Reask | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.reask = reask


@dataclass(frozen=True)
class Reask:
    """How an unreadable reply is asked again: ``template`` rendered with ``problem`` and ``variables``;
    ``params`` None: the first ask's (:func:`reask_params`); ``name`` None: ``<first prompt>:reask``."""

    template: str = "reask_format"
    params: GenParams | None = None
    name: str | None = None
    variables: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Parsed(Generic[T]):
    value: T | None  # None: not readable even after the re-ask (``problem`` says why)
    raw: str  # the last reply
    constrained: bool  # the last reply was held to the format by the backend
    first: str = ""  # the first reply (the same as ``raw`` when it was readable)
    problem: ParseProblem | None = None  # set when the first reply could not be read
    # The parser's own re-ask asked for the whole reply again: ``raw`` is the answer, not a part beside ``first``.
    replaced: bool = False

    @property
    def retries(self) -> int:
        return 0 if self.problem is None else 1


def format_reask(max_tokens: int, grammar: str | None = None,
                 json: tuple[dict[str, Any], str] | None = None) -> Reask:
    """The shared re-ask held to ``grammar``, or to ``json`` (schema, template) on servers without grammars."""
    schema, template = json if json and grammar else (None, None)
    return Reask(params=GenParams(temperature=0.0, max_tokens=max_tokens, grammar=grammar, json_schema=schema,
                                  json_template=template))


REASK_TEMPERATURE = 0.7  # the least a re-ask samples at when its constraint is the first ask's


def _constraint(params: GenParams) -> tuple[object, ...]:
    return params.choices, params.grammar, repr(params.json_schema), params.json_template


def reask_params(first: GenParams, reask: GenParams | None) -> GenParams:
    """The re-ask's parameters: a new constraint changes the reply; otherwise it samples at
    :data:`REASK_TEMPERATURE` at least, above the first ask's temperature where it can: at temperature 0 a small
    model under the same constraint repeated its first reply word for word."""
    params = reask or first
    if params.has_constraint and _constraint(params) != _constraint(first):
        return params
    if params.temperature > first.temperature:
        return params
    return replace(params, temperature=round(max(REASK_TEMPERATURE, min(1.0, first.temperature + 0.3)), 2))


QUOTE_CHARS = 160  # the most of a failed reply a re-ask quotes


def brief(text: str, keep: int = QUOTE_CHARS) -> str:
    """A failed reply on one line, its start and end where longer than ``keep`` (as :func:`clip` says why)."""
    flat = " ".join(text.split())
    if len(flat) <= keep:
        return flat
    half = (keep - 3) // 2
    return f"{flat[:half].rstrip()} … {flat[-half:].lstrip()}"


def clip(text: str, keep: int = CLIP) -> str:
    """The start and the end of a reply: JSON goes wrong at its start, a missing label at the end."""
    return text if len(text) <= 2 * keep + 3 else f"{text[:keep]} … {text[-keep:]}"


# Not a letter or digit: one regex pass instead of a Python step per character (every reply is read through it).
_NOT_ALNUM = re.compile(r"[\W_]+")


def _words(text: str) -> str:
    return " ".join(_NOT_ALNUM.sub(" ", text.lower()).split())


def _repeats(again: str, first: str) -> bool:
    """The re-ask's reply writes the first again, word for word or as quoted ("…" included)."""
    said, quoted = f" {_words(again)} ", _words(brief(first))
    return said.strip() == _words(first) or (bool(quoted) and f" {quoted} " in said)


def echoed(text: str, phrases: Sequence[str]) -> str | None:
    """The first of ``phrases`` that ``text`` repeats, word for word without case or punctuation."""
    said = f" {_words(text)} "
    return next((p for p in phrases if _words(p) and f" {_words(p)} " in said), None)


def cut_off(reply: Completion, params: GenParams) -> bool:
    """The reply stopped at the token limit (what a cached reply cannot say is read from its length)."""
    return reply.finish_reason == "length" or (reply.completion_tokens >= params.max_tokens > 0)


def note_cut(what: str, reply: Completion, params: GenParams, *, agent: str = "", round: int = 0,
             prompt: str = "") -> None:
    """Count and trace ``reply`` under ``what`` if it stopped at the token limit."""
    if cut_off(reply, params):
        count_reply(what, "cut")
        emit(ReplyCut(what=what, agent=agent, round=round, prompt=prompt, max_tokens=params.max_tokens,
                      completion_tokens=reply.completion_tokens))


async def say(llm: LLM, prompt: Prompt, params: GenParams, *, agent: str = "", round: int = 0, draw: str = "",
              what: str | None = None) -> Completion:
    """Free text: one call, nothing re-asked; counted under ``what`` (default: the prompt's name)."""
    what = what or prompt.name
    count_reply(what, "asked")
    reply = await llm.complete([{"role": "user", "content": prompt.text}], params, agent=agent, round=round,
                               prompt=prompt.name, draw=draw)
    note_cut(what, reply, params, agent=agent, round=round, prompt=prompt.name)
    return reply


def _read(parse: Callable[[str], T | None], reply: Completion, params: GenParams, problem: str,
          echoes: Sequence[str]) -> tuple[T | None, str, Reask | None]:
    """The value, or why there is none and the re-ask the parser asked for (None: the caller's)."""
    if (copied := echoed(reply.text, echoes)) is not None:
        return None, f"it repeated '{copied}' from the instructions instead of answering", None
    own: Reask | None = None
    try:
        value = parse(reply.text)
    except Unreadable as exc:
        value, problem, own = None, exc.problem, exc.reask
    if value is not None:
        return value, "", None
    if cut_off(reply, params):
        return (None, f"it was cut at the token limit ({params.max_tokens} tokens) before it was complete ({problem})",
                own)
    return None, problem, own


async def ask(llm: LLM, prompt: Prompt, parse: Callable[[str], T | None], *, what: str, params: GenParams,
              problem: str = "the reply was not in the requested format", reask: Reask | None = None,
              agent: str = "", round: int = 0, echoes: Sequence[str] = ()) -> Parsed[T]:
    """Ask ``prompt``; if ``parse`` cannot read the reply (None, or :class:`Unreadable`) or it repeats one of
    ``echoes``, re-ask once in the same conversation and record the problem as ``what``."""
    messages: list[Message] = [{"role": "user", "content": prompt.text}]
    count_reply(what, "asked")
    reply = await llm.complete(messages, params, agent=agent, round=round, prompt=prompt.name)
    note_cut(what, reply, params, agent=agent, round=round, prompt=prompt.name)
    value, why, own = _read(parse, reply, params, problem, echoes)
    if value is not None:
        return Parsed(value, reply.text, reply.constrained, reply.text)
    reask = own or reask or Reask()
    again_prompt = render(reask.template, problem=why, failed=brief(reply.text), **reask.variables)
    messages = [*messages, {"role": "assistant", "content": reply.text},
                {"role": "user", "content": again_prompt.text}]
    count_reply(what, "reasked", agent, round)
    again_params = reask_params(params, reask.params)
    again = await llm.complete(messages, again_params, agent=agent, round=round,
                               prompt=reask.name or f"{prompt.name}:reask")
    note_cut(what, again, again_params, agent=agent, round=round, prompt=reask.name or f"{prompt.name}:reask")
    value, again_why, _ = _read(parse, again, again_params, problem, (*echoes, problem, why))
    if value is None and _repeats(again.text, reply.text):
        again_why = f"it repeated the reply it was asked to replace ({again_why})"
    count_reply(what, "lost" if value is None else "recovered")
    record = ParseProblem(event="parse_failure" if value is None else "parse_recovered", what=what, agent=agent,
                          round=round, prompt=prompt.name, problem=why, reply=clip(reply.text),
                          reask_reply=clip(again.text), constrained=again.constrained,
                          reask_problem=again_why)
    emit(record)
    return Parsed(value, again.text, again.constrained, reply.text, record, replaced=own is not None)


# Characters per token when a format's free parts are sized to close within its cap: English runs about four,
# two leaves room for names and numbers. An unbounded ``[^.]+`` part was written to the cap.
CHARS_PER_TOKEN = 2


def part_chars(max_tokens: int, parts: int, fixed: int) -> int:
    """The most characters each of ``parts`` free parts may hold beside ``fixed`` characters of fixed text."""
    return max(1, (max_tokens * CHARS_PER_TOKEN - fixed) // parts)


def numbered_lines_grammar(count: int, item: str = '[^\\n]+') -> str:
    """GBNF for exactly ``count`` lines "1. <item>" ... (used to constrain re-asks on llama.cpp)."""
    lines = " \"\\n\" ".join(f'"{i}. " item' for i in range(1, count + 1))
    return f"root ::= {lines}\nitem ::= {item}\n"


def verdict_lines_grammar(count: int) -> str:
    """GBNF for exactly ``count`` lines "1: yes" / "1: no"."""
    lines = " \"\\n\" ".join(f'"{i}: " yn' for i in range(1, count + 1))
    return f'root ::= {lines}\nyn ::= "yes" | "no"\n'


def verdict_lines_json(count: int) -> tuple[dict[str, Any], str]:
    """The JSON twin of :func:`verdict_lines_grammar` and the template that turns it back into its lines."""
    keys = [f"statement_{i}" for i in range(1, count + 1)]
    schema = {"type": "object", "properties": {key: {"type": "string", "enum": ["yes", "no"]} for key in keys},
              "required": keys, "additionalProperties": False}
    return schema, "\n".join(f"{i}: {{{key}}}" for i, key in enumerate(keys, 1))
