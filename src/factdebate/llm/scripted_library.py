"""Named scripted behaviours (``--llm scripted:agree``) for demos without a model, the web page's end-to-end
test and the load benchmarks, in the prompts' output formats. ``scripted:unsure`` answers as ``agree`` with
every label turned into NOT ENOUGH INFO, ``scripted:conflicting`` with every SUPPORTS or REFUTES turned into
CONFLICTING EVIDENCE/CHERRYPICKING: what a run does with a model that keeps answering that label.

This module answers the shared prompts; each method family declares the replies to its own
(``Method.scripted_replies``), added here when the method registers."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import Responder, ScriptedBackend
from factdebate.util.errors import ConfigError

_CLAIM = re.compile(r"^Claim: (.*)$", re.M)
_STATEMENTS = re.compile(r"^\d+\. ", re.M)


@dataclass(frozen=True)
class Asked:
    """One call as a scripted reply sees it."""

    call: CallInfo
    prompt: str  # the prompt's name, without a ":reask" suffix
    text: str  # the first message: the rendered prompt
    claim: str  # its "Claim: ..." line ("the claim" when it has none)
    disagree: bool  # scripted:disagree rather than scripted:agree


ScriptedReply = Callable[[Asked], str]
# Prompt name -> reply, filled by the methods as they register (methods.base.register).
REPLIES: dict[str, ScriptedReply] = {}


def add_replies(replies: Mapping[str, ScriptedReply]) -> None:
    """A method's replies to its own prompts. A prompt answered two ways is a programming error."""
    for prompt, reply in replies.items():
        if REPLIES.get(prompt, reply) is not reply:
            raise TypeError(f"the scripted backend already answers prompt '{prompt}' otherwise")
    REPLIES.update(replies)


def remove_replies(prompts: Iterable[str]) -> None:
    for prompt in prompts:
        REPLIES.pop(prompt, None)


def _claim(messages: list[Message]) -> str:
    match = _CLAIM.search(messages[0]["content"])
    return match.group(1).strip() if match else "the claim"


def protocol_responder(disagree: bool) -> Responder:
    """The methods' own replies (agreeing on SUPPORTS, some dissent with ``disagree``) and the scorers'."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        claim = _claim(messages)
        prompt = call.prompt.split(":")[0]
        own = REPLIES.get(prompt)
        if own is not None:
            return own(Asked(call=call, prompt=prompt, text=messages[0]["content"], claim=claim, disagree=disagree))
        if prompt == "label_reask":
            return "SUPPORTS"
        if prompt == "claims_extract":  # response-level checks: one claim per sentence
            text = messages[0]["content"].split("Text:", 1)[-1].split("Reply with", 1)[0]
            return json.dumps({"claims": _sentences(text)})
        if prompt == "guard_fast":  # the guard's fast tier: what the first passage says settles it
            said = re.search(r"^Statement: (.*)$", messages[0]["content"], re.M)
            return json.dumps(_fast(messages[0]["content"], said.group(1) if said else "", disagree))
        if prompt == "guard_window":  # the fast tier's window call: the extraction's claims with their verdicts
            content = messages[0]["content"]
            text = content.split("\nAnswer:\n", 1)[-1].split("Reply with", 1)[0]
            items = []
            for claim in _sentences(text):
                verdict = _fast(content, claim, disagree)
                # a refuted claim's correction: what its quote says (as the corrector answers)
                items.append({"claim": claim, **verdict,
                              "correction": verdict["quote"] if verdict["label"] == "REFUTES" else ""})
            return json.dumps({"claims": items})
        if prompt == "guard_stance":  # the stance step agrees with what the fast tier's double answered
            return stance_of(messages[0]["content"], lambda claim: "REFUTES" if disagree else "SUPPORTS")
        if prompt == "guard_correct":
            quote = re.search(r'^Passage \(.*?\): "(.*)"$', messages[0]["content"], re.M)
            return json.dumps({"sentence": quote.group(1) if quote else "No correction."})
        if prompt == "faithfulness_statements":
            answer = messages[0]["content"].split("Answer:", 1)[-1].split("\n")[0].strip()
            return f"1. {answer}"
        if prompt == "faithfulness_verdicts":
            count = len(_STATEMENTS.findall(messages[0]["content"].split("Statements:", 1)[-1]))
            return "\n".join(f"{i}: yes" for i in range(1, count + 1))
        if prompt == "relevance_questions":
            answer = messages[0]["content"].split("Answer:", 1)[-1].strip().split("\n")[0]
            fact = answer.removeprefix("Document [1] states that ").rstrip(".")
            return "\n".join(f"{i}. Is it true that {fact}?" for i in (1, 2, 3))
        return "SUPPORTS"

    return respond


def stance_of(prompt: str, label: Callable[[str], str]) -> str:
    """A double's answer to the stance step (prompt ``guard_stance``): the stance that matches ``label`` (the
    label the double's fast tier gives the prompt's statement), and ``states`` of a statement its passage
    writes word for word (a correction checked against its quote)."""
    said = re.search(r"^Statement: (.*)$", prompt, re.M)
    quote = re.search(r'^Passage \(.*?\): "(.*)"$', prompt, re.M)
    claim = said.group(1).strip() if said else ""
    if quote and _folded_words(claim) and _folded_words(claim) == _folded_words(quote.group(1)):
        return "states"
    return {"SUPPORTS": "states", "REFUTES": "contradicts"}.get(label(claim), "neither")


def _folded_words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _sentences(text: str) -> list[str]:
    """One claim per sentence of ``text`` (a sentence's number, "[S2] ", kept: it says where the claim is from)."""
    return [s.strip() + "." for s in text.strip().split(".") if s.strip()][:12]


def _fast(prompt: str, claim: str, disagree: bool) -> dict[str, object]:
    """The fast tier's verdict of ``claim`` over the prompt's passages: what the first one says settles it."""
    first = re.search(r"^\[1\] [^:]*: (.*)$", prompt, re.M)
    label = "REFUTES" if disagree and first else "SUPPORTS" if first else "NOT ENOUGH INFO"
    if first and _folded_words(claim) == _folded_words(first.group(1)):
        label = "SUPPORTS"  # a statement copied from its passage (a correction checked against its quote)
    # the first passage's sentence that shares most words with the claim, as a checker quotes what it rests on
    said = set(re.findall(r"\w+", claim.lower()))
    sentences = [s.strip().rstrip(".") for s in first.group(1).split(". ") if s.strip()] if first else []
    quote = max(sentences, key=lambda s: len(said & set(re.findall(r"\w+", s.lower()))), default="")
    return {"label": label, "passage": 1 if first else 0, "quote": quote}


_LABEL = re.compile(r"\b(?:SUPPORTS|REFUTES)\b")
_VOTE = re.compile(r'("vote":\s*)"(?:affirmative|negative)"')
_TRUE_FALSE = re.compile(r'("answer":\s*)"(?:True|False)"')


def unsure_responder() -> Responder:
    """``scripted:unsure``: the ``agree`` replies with every label answered NOT ENOUGH INFO."""
    agree = protocol_responder(False)

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        reply = agree(call, messages, params)
        reply = _VOTE.sub(r'\1"tie"', _TRUE_FALSE.sub(r'\1"NOT ENOUGH INFO"', reply))
        return _LABEL.sub("NOT ENOUGH INFO", reply)

    return respond


def conflicting_responder() -> Responder:
    """``scripted:conflicting``: the ``agree`` replies with every label answered CONFLICTING EVIDENCE/
    CHERRYPICKING (re-asked outside a four-label task)."""
    agree = protocol_responder(False)

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        return _LABEL.sub(CONFLICTING, agree(call, messages, params))

    return respond


CONFLICTING = "CONFLICTING EVIDENCE/CHERRYPICKING"
BEHAVIOURS = ("agree", "disagree", "unsure", "conflicting")


def scripted_backend(target: str) -> ScriptedBackend:
    """``agree``, ``disagree``, ``unsure`` or ``conflicting``, optionally ``@<seconds>`` of latency a call."""
    name, _, latency = target.partition("@")
    if name not in BEHAVIOURS:
        raise ConfigError(f"unknown scripted behaviour '{name}'; use scripted:agree, scripted:disagree, "
                          "scripted:unsure or scripted:conflicting")
    try:
        delay = float(latency) if latency else 0.0
    except ValueError as exc:
        raise ConfigError(f"bad latency in 'scripted:{target}'") from exc
    responder = unsure_responder() if name == "unsure" else conflicting_responder() if name == "conflicting" \
        else protocol_responder(name == "disagree")
    return ScriptedBackend(responder, latency=delay,
                           name=f"scripted:{target}", record=False)
