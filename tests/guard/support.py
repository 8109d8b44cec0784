"""A scripted chatbot reply and checker models for the guard's tests."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

from factdebate.core.types import Document
from factdebate.guard_engine import GuardOptions, GuardResult, check_text
from factdebate.llm.base import Completion, GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.llm.scripted_library import stance_of
from factdebate.settings.model import Settings
from tests.helpers import StaticTool, resources_for

REPLY = ("Hi! Great question. Paris is the capital of France. The Eiffel Tower is in Rome. "
         "I think Paris is lovely in spring. Visit the Louvre early to avoid queues. Would you like more?")
CLAIMS = ["Paris is the capital of France.", "The Eiffel Tower is in Rome."]
PARIS_DOC = Document(id="web-1", title="Eiffel Tower", text="The Eiffel Tower is a tower in Paris. It opened in 1889.",
                     source="https://example.org/eiffel")


def _label_of(reply: str) -> str:
    """The label a fast reply gives, or "" where it has none (a reply written unreadable on purpose)."""
    try:
        value = json.loads(reply)
    except json.JSONDecodeError:
        return ""
    return str(value.get("label", "")) if isinstance(value, dict) else ""


def _claim_of(text: str) -> str:
    found = re.search(r"^(?:Statement|Claim): (.*)$", text, re.M)
    return found.group(1) if found else ""


def _about(claim: str, passage: str) -> bool:
    """Whether ``passage`` shares a word (of four letters or more) with ``claim``."""
    words = {w for w in re.findall(r"\w+", claim.lower()) if len(w) > 3}
    return bool(words & set(re.findall(r"\w+", passage.lower())))


def quoted_sentence(prompt: str, claim: str) -> str:
    """The sentence of the first passage the prompt shows that a model quotes against ``claim``, copied as it
    quotes it (after the passage's title, which may hold colons of its own: a tool call's arguments). A capable
    model quotes the sentence that says otherwise: where the claim writes a number, a sentence that writes one
    ("It opened in 1889." against "The Eiffel Tower opened in 1920."); among those, the one sharing most of the
    claim's words past the passage's subject (its title's words); the first sentence on a tie."""
    first = re.search(r"^\[1\] (.*)$", prompt, re.M)
    if first is None:
        return ""
    title, _, text = first.group(1).rpartition(": ")
    subject = {w.lower() for w in re.findall(r"\w+", title)}
    said = {w.lower() for w in re.findall(r"\w+", claim)} - subject
    dated = bool(re.search(r"\d", claim))

    def score(sentence: str) -> tuple[bool, int]:
        words = {w.lower() for w in re.findall(r"\w+", sentence)}
        return dated and bool(re.search(r"\d", sentence)), len(said & words)

    sentences = [x.strip() for x in re.split(r"(?<=\.) ", text) if x.strip()]
    best = max(sentences, key=score, default="") if sentences else ""
    return best.rstrip(".") + "."


def window_answer(prompt: str, extract: Callable[[str], str], fast: Callable[[str], str],
                  correct: Callable[[str, str], str | None] | None = None) -> str:
    """The fast tier's window call (guard_window) answered as a capable model answers it: the claims a double's
    extraction gives of the same sentences, each with the verdict its fast tier gives over the same passages
    (shown to it with those about the claim first, in the window's order, as the fast tier's own list for
    the claim has them), and a refuted claim's correction as ``correct`` (claim, quote -> sentence, None: none)
    writes it. So a double that answers the prompts apart answers the window's call alike, and the verdicts
    of a check do not depend on which way it was asked. A verdict the fast tier's double writes unreadably is
    left out of its claim's item (the claim is then asked alone, as a model's unusable item is); a correction
    left out is asked of the corrector."""
    as_extraction = prompt.replace("\nAnswer:\n", "\nText:\n").replace(
        "Reply with one JSON object only, as in the example.", "Reply with a JSON object only, as in the example.")
    section = prompt[prompt.find("\nPassages:\n") + len("\nPassages:\n"):prompt.find("\nAnswer:\n")]
    passages = [p.strip() for p in re.split(r"^\[\d+\] ", section, flags=re.M)[1:]]
    value = json.loads(extract(as_extraction))
    items: list[Any] = []
    for item in value["claims"] if isinstance(value, dict) else value:
        entry = dict(item) if isinstance(item, dict) else {"claim": item}
        order = sorted(range(len(passages)), key=lambda i: not _about(entry["claim"], passages[i]))
        shown = "".join(f"[{n}] {passages[i]}\n" for n, i in enumerate(order, 1))
        try:
            verdict = json.loads(fast(f"Statement: {entry['claim']}\n\nPassages:\n{shown}"))
        except json.JSONDecodeError:
            verdict = {}
        if not isinstance(verdict, dict):
            items.append(entry)
            continue
        if isinstance(verdict.get("passage"), int) and 1 <= verdict["passage"] <= len(order):
            verdict["passage"] = order[verdict["passage"] - 1] + 1
        if verdict.get("label") == "REFUTES" and correct is not None:
            verdict["correction"] = correct(entry["claim"], str(verdict.get("quote", ""))) or ""
        items.append({**entry, "correction": "", **verdict})
    return json.dumps({"claims": items})


def extracting_by(extracted: Callable[[str], str]) -> Any:
    """:func:`script`'s checker (Rome refuted at every tier, the rest supported, its corrector's sentence the
    correction) whose extraction is ``extracted`` (the extractor's prompt -> its JSON reply), asked apart or in
    the fast tier's window call (:func:`window_answer`)."""
    inner = script()
    fixed = "The Eiffel Tower is in Paris."  # the correction the script's corrector writes

    def respond(call: Any, messages: Any, params: Any) -> str:
        name = call.prompt.split(":")[0]
        if name == "claims_extract":
            return extracted(messages[0]["content"])
        if name == "guard_window":
            def fast(text: str) -> str:
                return str(inner(CallInfo(prompt="guard_fast"), [{"role": "user", "content": text}], params))

            return window_answer(messages[0]["content"], extracted, fast, lambda claim, quote: fixed)
        return str(inner(call, messages, params))

    return respond


def script(*, fast: Callable[[str], str] | None = None, debate: Callable[[CallInfo, str], str] | None = None,
           claims: list[str] | None = None, correction: str = "The Eiffel Tower is in Paris.") -> Any:
    """Extraction gives ``claims`` (default: the two facts of REPLY); the fast tier refutes claims naming
    Rome, quoting the first passage, and supports the rest (``fast`` overrides: claim -> reply text); the
    debate methods answer through ``debate`` (call, claim -> label) or support everything."""

    def extracted(text: str) -> str:
        return json.dumps({"claims": claims if claims is not None else CLAIMS})

    def fast_reply(text: str) -> str:
        claim = _claim_of(text)
        if fast is not None:
            return fast(claim)
        first = re.search(r"^\[1\] [^:]*: (.*)$", text, re.M)
        label = "REFUTES" if "Rome" in claim else "SUPPORTS"
        quote = first.group(1).split(". ")[0] if first else ""
        return json.dumps({"label": label, "passage": 1,
                           "quote": quote if not quote or quote.endswith(".") else quote + "."})

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        prompt = call.prompt.split(":")[0]
        text = messages[0]["content"]
        if prompt == "claims_extract":
            return extracted(text)
        if prompt == "guard_fast":
            return fast_reply(text)
        if prompt == "guard_window":
            return window_answer(text, extracted, fast_reply, lambda claim, quote: correction)
        if prompt == "guard_correct":
            return json.dumps({"sentence": correction})
        if prompt == "guard_stance":
            return stance_of(text, lambda claim: _label_of(fast_reply(f"Statement: {claim}\n[1] Passage: ")))
        claim = _claim_of(text)
        label = debate(call, claim) if debate is not None else "REFUTES" if "is in Rome" in text else "SUPPORTS"
        if prompt in ("single", "cot", "label_reask", "judge"):
            return label
        if prompt == "debate_answer":
            return f"Document [1] says so.\n{label}"
        if prompt == "query_select":
            return f"[{claim}]"
        if prompt == "faithfulness_statements":
            return "1. A statement."
        if prompt == "faithfulness_verdicts":
            return "1: yes"
        if prompt == "relevance_questions":
            return "1. Is it true?\n2. Is it so?\n3. Is that right?"
        raise AssertionError(f"unexpected prompt {call.prompt}")

    return respond


class SlowBackend(ScriptedBackend):
    """Calls whose prompt text contains one of ``slow`` take ``seconds`` (the rest answer at once)."""

    def __init__(self, responder: Any, slow: dict[str, float]) -> None:
        super().__init__(responder)
        self.slow = slow

    async def complete(self, messages: list[Message], params: GenParams) -> Completion:
        for marker, seconds in self.slow.items():
            if marker in messages[0]["content"]:
                await asyncio.sleep(seconds)
        return await super().complete(messages, params)


async def run_check(respond: Any, text: str = REPLY, *, method: str = "single", backend: ScriptedBackend | None = None,
                    docs: list[Document] | None = None, guard: dict[str, Any] | None = None,
                    events: list[dict[str, Any]] | None = None, response: dict[str, Any] | None = None,
                    **options: Any) -> tuple[GuardResult, Any]:
    tools = {"rag": StaticTool("rag", docs or [PARIS_DOC]), "search": StaticTool("local", docs or [PARIS_DOC])}
    resources, scripted, _ = resources_for(respond, method=method, tools=tools, guard=guard or {},
                                           response=response or {})
    settings = resources.settings
    assert isinstance(settings, Settings)  # typed as the methods' protocol; what resources_for builds
    if backend is not None:
        from factdebate.run.build import build_resources
        from tests.helpers import BagOfWordsEncoder

        resources = build_resources(settings, backends={"debater": backend},
                                    tool_factory=lambda kind: tools[kind], encoder_factory=BagOfWordsEncoder)
        scripted = backend
    reviser = options.pop("reviser", None)
    caller = options.pop("caller", None)
    question = options.pop("question", None)
    messages = options.pop("messages", ())  # the conversation before the reply
    async with resources:
        result = await check_text(text, settings, resources, options=GuardOptions(**options),
                                  question=question, sinks=[events.append] if events is not None else None,
                                  reviser=reviser, caller=caller, messages=messages)
    return result, scripted
