"""Model calls, prompt and output tokens and CPU per reply at the guard's fast tier, with the extraction and
the verdicts asked apart ("before") and in one call per reply window ("after", guard/window_call.py).

The reply is benchmarks/guard_check_cpu.py's six-sentence one (six claims, the Rome one refuted), checked plain
(``check_text``) and streamed word by word (``aguard_stream``, policy annotate), with tests/guard/support.py's
scripted checker: its extraction gives the claims whose sentences the prompt shows, its fast tier refutes the
Rome claim over the first passage, and it answers the window's call as both at once. Tokens are counted as a
model's tokenizer would roughly count them, four characters a token (the scripted checker has no tokenizer):
the figures compare the two ways, they do not price a model. CPU is the process's, per reply, over ``--replies``
replies after one to warm up.

    PYTHONPATH=. .venv/bin/python benchmarks/guard_window_call.py --replies 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import factdebate as fd
from factdebate.guard import window_call
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from tests.guard.support import script, window_answer

ANSWER = ("Paris is the capital of France. The Louvre is a museum in Paris. The Eiffel Tower is in Rome. "
          "The Seine flows through Paris. Montmartre is a hill in Paris. The Pantheon stands in Paris.")
CLAIMS = [s.strip() + "." for s in ANSWER.split(".") if s.strip()]
PASSAGES = ["Paris is the capital of France. The Eiffel Tower is a tower in Paris. The Louvre is a museum.",
            "The Seine flows through Paris. Montmartre is a hill in Paris.", "The Pantheon stands in Paris."]
OPTIONS: dict[str, Any] = {"llm": "scripted:agree", "search": "local", "cache": False, "tier": "fast",
                           "max_tier": "fast", "method": "single", "evidence": PASSAGES, "evidence_mode": "given"}


@dataclass
class Tally:
    """What the scripted checker was asked and answered."""

    calls: int = 0
    prompt_chars: int = 0
    output_chars: int = 0
    prompts: list[str] = field(default_factory=list)


def checker(tally: Tally) -> ScriptedBackend:
    base = script(claims=CLAIMS)
    params = GenParams()

    def extracted(text: str) -> str:  # the claims of the sentences shown, as a capable model gives them
        body = text.split("\nText:\n", 1)[-1]  # the sentences to read, not the conversation before them
        return json.dumps({"claims": [c for c in CLAIMS if c in body]})

    def fast(text: str) -> str:
        return str(base(CallInfo(prompt="guard_fast"), [{"role": "user", "content": text}], params))

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        prompt, text = call.prompt.split(":")[0], str(messages[-1]["content"])
        answer = (extracted(text) if prompt == "claims_extract" else window_answer(text, extracted, fast)
                  if prompt == "guard_window" else str(base(call, messages, params)))
        tally.calls += 1
        tally.prompt_chars += sum(len(str(m["content"])) for m in messages)
        tally.output_chars += len(answer)
        tally.prompts.append(call.prompt)
        return answer

    return ScriptedBackend(respond)


async def _deltas(text: str) -> AsyncIterator[str]:
    for word in re.findall(r"\S+\s*", text):
        yield word


async def one(streamed: bool, tally: Tally) -> str | None:
    backends = {"debater": checker(tally)}
    if streamed:
        outs = [out async for out in fd.aguard_stream(_deltas(ANSWER), backends=backends, **OPTIONS)]
        result = outs[-1].result
    else:
        result = await fd.aguard(ANSWER, backends=backends, **OPTIONS)
    assert result is not None
    return result.label.value if result.label else None


async def measure(streamed: bool, together: bool, replies: int) -> dict[str, Any]:
    token = window_call.ENABLED.set(together)
    try:
        await one(streamed, Tally())  # warm up
        tally = Tally()
        labels: set[str | None] = set()
        started = time.process_time()
        for _ in range(replies):
            labels.add(await one(streamed, tally))
        cpu = (time.process_time() - started) / replies
    finally:
        window_call.ENABLED.reset(token)
    return {"calls": tally.calls / replies, "prompt_tokens": tally.prompt_chars / 4 / replies,
            "output_tokens": tally.output_chars / 4 / replies, "cpu_ms": cpu * 1000, "labels": sorted(map(str, labels))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replies", type=int, default=20)
    args = parser.parse_args()
    print(f"{'reply':<10}{'way':<8}{'calls':>7}{'prompt tok':>12}{'output tok':>12}{'CPU ms':>9}  label")
    for streamed in (False, True):
        for together in (False, True):
            row = asyncio.run(measure(streamed, together, args.replies))
            print(f"{'streamed' if streamed else 'plain':<10}{'after' if together else 'before':<8}"
                  f"{row['calls']:>7.1f}{row['prompt_tokens']:>12.0f}{row['output_tokens']:>12.0f}"
                  f"{row['cpu_ms']:>9.1f}  {','.join(row['labels'])}")


if __name__ == "__main__":
    main()
