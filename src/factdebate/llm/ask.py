"""The one way to ask a model for something a parser must read: ask, parse, and re-ask once with the
problem if the reply cannot be read.

Every caller keeps its own parser, prompt, constraint (grammar, JSON schema, choices) and re-ask
template; what they share is here: the conversation of the re-ask, its prompt name in usage and trace
(``<prompt>:reask`` unless named), and the record of the problem. A reply that stays unreadable is
``value=None`` plus a :class:`~factdebate.core.events.ParseProblem` (``parse_failure``), never a default:
the caller records it as unparsed. A re-ask that worked is a ``parse_recovered``. Both are traced as they
are recorded, by this module and nowhere else, and every reply is counted in the run's ``parse_counts``
(asked, re-asked, recovered, lost, by ``what``), which the verdict and an evaluation's summary carry.

A reply is not read when it only copies the format it was given: the caller names the format's
placeholders (``echoes``: MAD's "Reason: one sentence"), and a re-ask's reply that repeats the problem it
was told ("the query was not inside square brackets") is no answer either. A reply cut at the token limit
(``finish_reason: length``) is reported as such, not as whatever the parser missed in the cut text.

A re-ask quotes the reply it replaces, briefly (:func:`brief`), beside why it could not be used, so that the
model is shown what not to write again: a small model re-asked with the problem alone wrote its first reply
again, word for word, in all but one of six re-asks. A re-ask's reply that still repeats the first one is
recorded as such (``reask_problem``). A parser that finds the whole reply unusable, not only its format (a
labelled answer whose reasoning is the prompt's own instructions), names the re-ask that asks for the whole
reply again (``Unreadable.reask``) in place of the caller's.

Every reply cut at its token limit, read or not, is counted (``cut`` under its kind) and traced
(``reply_cut``); free text, which no parser reads and nothing re-asks, is asked through :func:`say` so that
its cut replies are counted the same way, under its prompt's name."""

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
    """Raised by a parser that can say what is wrong with a reply; the re-ask quotes ``problem``. ``reask``:
    how to ask again where the caller's re-ask would not do (it asks for a part, a label, while the whole
    reply is unusable); its reply then replaces the first (``Parsed.replaced``)."""

    def __init__(self, problem: str, reask: Reask | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.reask = reask


@dataclass(frozen=True)
class Reask:
    """How an unreadable reply is asked again: ``template`` is rendered with ``problem`` and ``variables``;
    ``params`` holds the answer to a format (None: the first ask's parameters); ``name`` is the call's
    prompt name in usage, trace and cache keys (None: ``<first prompt>:reask``). Whatever ``params`` says,
    the re-ask changes what decides its output (:func:`reask_params`)."""

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
    # The re-ask asked for the whole reply again (the parser's own re-ask, ``Unreadable.reask``): ``raw`` is the
    # answer, not a part of it to read beside ``first``.
    replaced: bool = False

    @property
    def retries(self) -> int:
        return 0 if self.problem is None else 1


def format_reask(max_tokens: int, grammar: str | None = None,
                 json: tuple[dict[str, Any], str] | None = None) -> Reask:
    """The shared re-ask (``reask_format``) held to ``grammar`` on backends with grammars, or to ``json``
    (a schema and the template that turns it into the same text) on servers that take schemas only."""
    schema, template = json if json and grammar else (None, None)
    return Reask(params=GenParams(temperature=0.0, max_tokens=max_tokens, grammar=grammar, json_schema=schema,
                                  json_template=template))


REASK_TEMPERATURE = 0.7  # the least a re-ask samples at when its constraint is the first ask's


def _constraint(params: GenParams) -> tuple[object, ...]:
    return params.choices, params.grammar, repr(params.json_schema), params.json_template


def reask_params(first: GenParams, reask: GenParams | None) -> GenParams:
    """The re-ask's parameters: ``reask`` (or the first ask's), changed where they would decide the reply as
    the first ask did. A re-ask held to a constraint the first ask lacked (or another one) is changed by
    it; otherwise it samples at :data:`REASK_TEMPERATURE` at least, above the first ask's temperature where
    it can: at temperature 0 a small model given the same constraint repeated its first reply word for word
    (MERMAID 3 of 5 re-asks, Tool-MAD, FacTool and DPD every one, with SmolLM2). The problem quoted in the
    re-ask's prompt changes its input in either case."""
    params = reask or first
    if params.has_constraint and _constraint(params) != _constraint(first):
        return params
    if params.temperature > first.temperature:
        return params
    return replace(params, temperature=round(max(REASK_TEMPERATURE, min(1.0, first.temperature + 0.3)), 2))


QUOTE_CHARS = 160  # the most of a failed reply a re-ask quotes


def brief(text: str, keep: int = QUOTE_CHARS) -> str:
    """A failed reply as its re-ask quotes it: on one line, its start and its end where it is longer than
    ``keep`` characters (a format goes wrong at its start, a missing label at the end)."""
    flat = " ".join(text.split())
    if len(flat) <= keep:
        return flat
    half = (keep - 3) // 2
    return f"{flat[:half].rstrip()} … {flat[-half:].lstrip()}"


def clip(text: str, keep: int = CLIP) -> str:
    """The start and the end of a reply: JSON goes wrong at its start, a missing label at the end."""
    return text if len(text) <= 2 * keep + 3 else f"{text[:keep]} … {text[-keep:]}"


# What is not a letter or digit (str.isalnum's: \w less the underscore), replaced in one pass by the regex
# engine instead of a Python step per character (every reply is read through it).
_NOT_ALNUM = re.compile(r"[\W_]+")


def _words(text: str) -> str:
    return " ".join(_NOT_ALNUM.sub(" ", text.lower()).split())


def _repeats(again: str, first: str) -> bool:
    """The re-ask's reply writes the first reply again: word for word, or as the re-ask quoted it (SmolLM2
    copied the quote, "…" included, into its re-ask's answer)."""
    said, quoted = f" {_words(again)} ", _words(brief(first))
    return said.strip() == _words(first) or (bool(quoted) and f" {quoted} " in said)


def echoed(text: str, phrases: Sequence[str]) -> str | None:
    """The first of ``phrases`` (a format's placeholders, a problem the model was told) that ``text``
    repeats, compared word for word without case or punctuation; None if it repeats none."""
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
    """Free text: one call, any reply usable, nothing re-asked; counted as asked under ``what`` (the
    prompt's name unless given), and as cut when it stopped at the token limit."""
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
    """Ask ``prompt``; if ``parse`` cannot read the reply (it returns ``None``, or raises
    :class:`Unreadable` naming the problem), or the reply repeats one of ``echoes`` (the format's
    placeholders), re-ask once in the same conversation and record the problem as ``what`` (see the
    module docstring). Two calls at most."""
    messages: list[Message] = [{"role": "user", "content": prompt.text}]
    count_reply(what, "asked")
    reply = await llm.complete(messages, params, agent=agent, round=round, prompt=prompt.name)
    note_cut(what, reply, params, agent=agent, round=round, prompt=prompt.name)
    value, why, own = _read(parse, reply, params, problem, echoes)
    if value is not None:
        return Parsed(value, reply.text, reply.constrained, reply.text)
    reask = own or reask or Reask()
    # The failed reply is quoted as what not to write: with the problem alone, small models wrote it again.
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


# Characters a format's free parts may hold so that the whole closes within its token cap, at two characters a
# token (English runs about four in SmolLM2's vocabulary; two leaves room for names and numbers). A part of
# ``[^.]+`` fits no cap: SmolLM2 behind llama-cpp-python's server wrote such parts to the cap.
CHARS_PER_TOKEN = 2


def part_chars(max_tokens: int, parts: int, fixed: int) -> int:
    """The most characters each of ``parts`` free parts may hold when the format's fixed text (labels,
    numbering, separators) takes ``fixed`` characters of a reply capped at ``max_tokens``."""
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
    """The JSON twin of :func:`verdict_lines_grammar`, for servers that take schemas only: one "yes"/"no"
    field per statement (named, as strict schemas want an object with fixed keys) and the template that
    turns the object back into the "1: yes" lines the parser reads."""
    keys = [f"statement_{i}" for i in range(1, count + 1)]
    schema = {"type": "object", "properties": {key: {"type": "string", "enum": ["yes", "no"]} for key in keys},
              "required": keys, "additionalProperties": False}
    return schema, "\n".join(f"{i}: {{{key}}}" for i, key in enumerate(keys, 1))
