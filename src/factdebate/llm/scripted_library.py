"""Named scripted behaviours (``--llm scripted:agree``) for demos of the protocol without a model, the
web page's end-to-end test and the load benchmarks. They follow the prompts' output formats exactly."""

from __future__ import annotations

import json
import re

from factdebate.core.errors import ConfigError
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import Responder, ScriptedBackend

_CLAIM = re.compile(r"^Claim: (.*)$", re.M)
_STATEMENTS = re.compile(r"^\d+\. ", re.M)


def _claim(messages: list[Message]) -> str:
    match = _CLAIM.search(messages[0]["content"])
    return match.group(1).strip() if match else "the claim"


def protocol_responder(disagree: bool) -> Responder:
    """Debaters agree on SUPPORTS (with ``disagree``, the search agent, or the second of two agents with the
    same tool, says REFUTES and the judge sides with the first); scorers give well-formed, supportive output."""

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        claim = _claim(messages)
        prompt = call.prompt.split(":")[0]
        if prompt == "debate_answer":
            second = call.agent.startswith("search") or call.agent.endswith("-2")
            label = "REFUTES" if disagree and second else "SUPPORTS"
            return f"Document [1] states that {claim.rstrip('.')}.\nSo the evidence points one way.\n{label}"
        if prompt == "query_select":
            return f"[{claim} evidence round {call.round}]"
        if prompt == "judge":
            return "The RAG agent's answers were better supported by its documents.\nSUPPORTS"
        if prompt == "label_reask":
            return "SUPPORTS"
        if prompt == "claims_extract":  # response-level checks: one claim per sentence
            text = messages[0]["content"].split("Text:", 1)[-1].split("Reply with", 1)[0]
            return json.dumps({"claims": [s.strip() + "." for s in text.strip().split(".") if s.strip()][:12]})
        if prompt == "faithfulness_statements":
            answer = messages[0]["content"].split("Answer:", 1)[-1].split("\n")[0].strip()
            return f"1. {answer}"
        if prompt == "faithfulness_verdicts":
            count = len(_STATEMENTS.findall(messages[0]["content"].split("Statements:", 1)[-1]))
            return "\n".join(f"{i}: yes" for i in range(1, count + 1))
        if prompt.startswith("mermaid_"):
            return _mermaid(prompt, claim, messages[0]["content"])
        if prompt == "relevance_questions":
            answer = messages[0]["content"].split("Answer:", 1)[-1].strip().split("\n")[0]
            fact = answer.removeprefix("Document [1] states that ").rstrip(".")
            return "\n".join(f"{i}. Is it true that {fact}?" for i in (1, 2, 3))
        if prompt.startswith("dpd_"):
            return dpd_reply(prompt, call, claim, disagree)
        return "SUPPORTS"

    return respond


_VERB = re.compile(r"\s(is|was|are|were|has|had)\s", re.I)
_TOOL = re.compile(r"^- (search_\w+):", re.M)


def _mermaid(prompt: str, claim: str, text: str) -> str:
    """MERMAID: a decomposition split at the first verb, one search with the first search tool listed,
    then "True"."""
    if prompt == "mermaid_decompose":
        parts = _VERB.split(claim.rstrip("."), maxsplit=1)
        subject, verb, obj = (parts[0], parts[1], parts[2]) if len(parts) == 3 else (claim, "states", "")
        return json.dumps({"triplets": [{"subject": subject, "relation": verb, "object": obj, "attributes": ""}],
                           "topic": "General"})
    tool = _TOOL.search(text)
    if prompt == "mermaid_step" and "(none yet)" in text and tool:
        return json.dumps({"thought": "Look for evidence first.",
                           "action": {"name": tool.group(1), "reason": "no evidence yet", "input": {"query": claim}}})
    return json.dumps({"thought": "The evidence found agrees with the claim.", "answer": "True"})


def scripted_backend(target: str) -> ScriptedBackend:
    """``agree`` or ``disagree``, optionally ``@<seconds>`` of latency per call (``disagree@0.05``)."""
    name, _, latency = target.partition("@")
    if name not in ("agree", "disagree"):
        raise ConfigError(f"unknown scripted behaviour '{name}'; use scripted:agree or scripted:disagree")
    try:
        delay = float(latency) if latency else 0.0
    except ValueError as exc:
        raise ConfigError(f"bad latency in 'scripted:{target}'") from exc
    return ScriptedBackend(protocol_responder(name == "disagree"), latency=delay,
                           name=f"scripted:{target}", record=False)


def dpd_reply(prompt: str, call: CallInfo, claim: str, disagree: bool) -> str:
    """DPD's roles: queries as JSON, plain statements, and judges' ballots (with ``disagree`` the logical
    judge votes for the negative side, less confidently than the other two vote for the affirmative)."""
    if prompt == "dpd_queries":
        return json.dumps({"support": claim[:80], "refute": f"{claim[:70]} false"})
    if prompt == "dpd_judge":
        against = disagree and call.agent == "logical"
        side = {"evidence": 0.8, "logic": 0.7, "neutrality": 0.9, "persuasiveness": 0.7}
        weak = {"evidence": 0.4, "logic": 0.5, "neutrality": 0.8, "persuasiveness": 0.4}
        return json.dumps({"why": "The better-supported side wins.", "affirmative": weak if against else side,
                           "negative": side if against else weak,
                           "vote": "negative" if against else "affirmative", "confidence": 0.6 if against else 0.9})
    return f"{call.agent} (round {call.round}): the evidence bears on whether {claim.rstrip('.')}."
