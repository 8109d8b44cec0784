"""Token caps that fit the answer they hold: a reply held to a format must be able to
finish it within its ``max_tokens``, or the backend cuts it and the call is lost or re-asked. A format's
longest answer is counted in characters and given one token per two characters at least (English text runs
about four characters a token in SmolLM2's vocabulary; two leaves room for names and numbers)."""

from __future__ import annotations

import json

from factdebate.core.types import Label
from factdebate.guard_engine.fast import SCHEMA as FAST_SCHEMA
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.baselines.react import STEP_TOKENS
from factdebate.methods.kit.formats import QUERY_TOKENS
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for

CHARS_PER_TOKEN = 2
LONGEST_LABEL = max(len(label.value) for label in Label)


def fits(max_tokens: int, chars: int) -> bool:
    return max_tokens * CHARS_PER_TOKEN >= chars


def test_reacts_step_fits_its_longest_step() -> None:
    # "Thought: " + 200 characters, "\nAction: search[" + 100 characters + "]", or a finish with a label.
    longest = len("Thought: ") + 200 + max(len("\nAction: search[") + 100 + 1,
                                           len("\nAction: finish[") + LONGEST_LABEL + 1)
    assert fits(STEP_TOKENS, longest)


def test_a_bracketed_query_fits_its_cap() -> None:
    assert fits(QUERY_TOKENS, 1 + 100 + 1)


def test_the_guards_fast_reply_fits_its_cap() -> None:
    quote = FAST_SCHEMA["properties"]["quote"]["maxLength"]  # type: ignore[index]
    frame = json.dumps({"label": "NOT ENOUGH INFO", "passage": 40, "quote": ""})
    assert fits(300, len(frame) + quote)


async def test_single_is_held_to_the_label_alone_within_its_cap() -> None:
    seen: list[GenParams] = []

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        if call.prompt == "single":
            seen.append(params)
        return str(truthful(call, messages, params))

    resources, _, _ = resources_for(respond, method="single")
    await run_claim(CLAIM, resources.settings, resources)
    (params,) = seen
    # Five sentences of reasoning did not fit its 60 tokens (4 of 6 replies cut); the label alone does.
    assert params.grammar is not None and "sentence" not in params.grammar and "reason" not in params.grammar
    assert params.choices and fits(params.max_tokens, max(len(c) for c in params.choices))
