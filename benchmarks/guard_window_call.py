"""Model calls, prompt and output tokens, CPU and the wait after the last token, per reply, at the guard's
fast tier: the extraction, the verdicts and the correction asked apart (``guard.window_call: false``) and in
one call per reply window (``guard.window_call: true``, the default: guard_engine/window_call.py).

The reply is benchmarks/guard_check_cpu.py's six-sentence one (six claims, the Rome one refuted), checked plain
(``check_text``) and streamed word by word (``StreamingCheck``, policy annotate) as the service checks a reply,
with the resources built once, by tests/guard/support.py's scripted checker: its extraction gives the claims
whose sentences the prompt shows, its fast tier refutes the Rome claim over the passage that names the tower,
its corrector proposes "The Eiffel Tower is in Paris.", and it answers the window's call as all of them at
once. Tokens are counted as a model's tokenizer would roughly count them, four characters a token (the scripted
checker has no tokenizer): the figures compare the ways, they do not price a model.

Two runs of each way. With a checker that answers at once and the words streamed without a pause: the calls,
tokens and CPU per reply (the process's CPU, less the scripted checker's own, over ``--replies`` replies
after one to warm up, in five rounds, the least reported; a served model's client work is not in it). With a
checker that takes ``--call-s`` a call (a served model) and a stream of ``--words-per-s``: the calls made
then, and the time from the reply's last token to its verdict (plain: from the call, the whole reply being its
last token; streamed: from the last word given to the result), the median over ``--timed`` replies.

``--before SRC`` measures another checkout's code in the same run, its ``src`` folder first on the path, in a
process of its own as this checkout's is; where the switch is not yet a setting it is set through
``factdebate.guard_engine.window_call.ENABLED``.

    PYTHONPATH=. .venv/bin/python benchmarks/guard_window_call.py --replies 100
    git worktree add --detach /tmp/wt-window COMMIT   # the code to compare with
    PYTHONPATH=. .venv/bin/python benchmarks/guard_window_call.py --replies 100 --before /tmp/wt-window/src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ANSWER = ("Paris is the capital of France. The Louvre is a museum in Paris. The Eiffel Tower is in Rome. "
          "The Seine flows through Paris. Montmartre is a hill in Paris. The Pantheon stands in Paris.")
CLAIMS = [s.strip() + "." for s in ANSWER.split(".") if s.strip()]
PASSAGES = ["Paris is the capital of France. The Eiffel Tower is a tower in Paris. The Louvre is a museum.",
            "The Seine flows through Paris. Montmartre is a hill in Paris.", "The Pantheon stands in Paris."]
OPTIONS: dict[str, Any] = {"llm": "scripted:agree", "search": "local", "cache": False, "tier": "fast",
                           "max_tier": "fast", "method": "single", "evidence": PASSAGES, "evidence_mode": "given"}
WAYS = ("apart", "window")
# The CPU per reply is taken in rounds and the least round's reported: on a shared machine another process's
# work inflates a round's figure (caches, frequency), never lowers it.
ROUNDS = 5


@dataclass
class Tally:
    """What the scripted checker was asked and answered."""

    calls: int = 0
    prompt_chars: int = 0
    output_chars: int = 0
    prompts: list[str] = field(default_factory=list)
    cpu_s: float = 0.0  # the double's own CPU


def answers(tally: list[Tally]) -> Any:
    """The scripted checker's answers, counted in ``tally[0]`` with the CPU they took (the double's, not the
    guard's: taken off the guard's CPU)."""
    from factdebate.llm.base import GenParams, Message
    from factdebate.llm.calls import CallInfo
    from tests.guard.support import script, window_answer

    base = script(claims=CLAIMS)
    fixed = "The Eiffel Tower is in Paris."

    def extracted(text: str) -> str:  # the claims of the sentences shown, as a capable model gives them
        body = text.split("\nText:\n", 1)[-1]  # the sentences to read, not the conversation before them
        return json.dumps({"claims": [c for c in CLAIMS if c in body]})

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        began = time.process_time()

        def fast(text: str) -> str:
            return str(base(CallInfo(prompt="guard_fast"), [{"role": "user", "content": text}], params))

        prompt, text = call.prompt.split(":")[0], str(messages[-1]["content"])
        answer = (extracted(text) if prompt == "claims_extract"
                  else window_answer(text, extracted, fast, lambda claim, quote: fixed)
                  if prompt == "guard_window" else str(base(call, messages, params)))
        counted = tally[0]
        counted.calls += 1
        counted.prompt_chars += sum(len(str(m["content"])) for m in messages)
        counted.output_chars += len(answer)
        counted.prompts.append(call.prompt)
        counted.cpu_s += time.process_time() - began
        return answer

    return respond


@contextmanager
def way(name: str) -> Iterator[dict[str, Any]]:
    """The guard settings that check a reply ``name``'s way: the setting where this code has it, else none (and
    the switch this code had set)."""
    from factdebate.guard_engine import window_call
    from factdebate.settings.model import GuardSettings

    on = name == "window"
    if "window_call" in GuardSettings.model_fields:
        yield {"window_call": on}
        return
    switch = window_call.ENABLED  # type: ignore[attr-defined]  # a checkout before the setting
    token = switch.set(on)
    try:
        yield {}
    finally:
        switch.reset(token)


async def one(streamed: bool, resources: Any, *, pause: float = 0.0) -> tuple[str | None, float]:
    """One reply checked as the service checks it, with resources built once: (its label, seconds from its last
    token to its verdict)."""
    from factdebate.guard_engine import GuardEvidence, GuardOptions, StreamingCheck, check_text

    options = GuardOptions(tier="fast", max_tier="fast", evidence=[GuardEvidence(text=p) for p in PASSAGES],
                           evidence_mode="given")
    if streamed:
        check = StreamingCheck(resources.settings, resources, options=options)
        for word in re.findall(r"\S+\s*", ANSWER):
            if pause:
                await asyncio.sleep(pause)
            check.feed(word)
        last = time.perf_counter()
        result = await check.finish()
    else:
        last = time.perf_counter()
        result = await check_text(ANSWER, resources.settings, resources, options=options)
    return (result.label.value if result.label else None), time.perf_counter() - last


async def measure(name: str, streamed: bool, replies: int, timed: int, call_s: float,
                  words_per_s: float) -> dict[str, Any]:
    from tests.helpers import StaticTool, resources_for

    fast, slow = Tally(), Tally()
    tally = [fast]  # the tally the checker adds to: the fast runs', then the timed ones'
    with way(name) as guard:
        tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
        resources, backend, _ = resources_for(answers(tally), method="single", tools=tools,
                                              guard={"tier": "fast", "max_tier": "fast", **guard})
        async with resources:
            tally[0] = Tally()
            await one(streamed, resources)  # warm up
            tally[0] = fast
            labels: set[str | None] = set()
            rounds = []  # the CPU per reply of each fifth of the replies: the least is the one reported
            for part in range(ROUNDS):
                started, double = time.process_time(), fast.cpu_s
                count = replies // ROUNDS + (part < replies % ROUNDS)
                for _ in range(count):
                    labels.add((await one(streamed, resources))[0])
                rounds.append((time.process_time() - started - (fast.cpu_s - double)) / max(1, count))
            cpu = min(rounds)
            tally[0] = slow
            backend.latency = call_s
            waits = []
            for _ in range(timed):
                label, waited = await one(streamed, resources, pause=1 / words_per_s)
                labels.add(label)
                waits.append(waited)
    return {"calls": fast.calls / replies, "prompt_tokens": fast.prompt_chars / 4 / replies,
            "output_tokens": fast.output_chars / 4 / replies, "cpu_ms": cpu * 1000,
            "timed_calls": slow.calls / max(1, timed), "wait_s": sorted(waits)[len(waits) // 2] if waits else 0.0,
            "labels": sorted(map(str, labels)), "prompts": sorted(set(fast.prompts))}


def rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = []
    for streamed in (False, True):
        for name in WAYS:
            row = asyncio.run(measure(name, streamed, args.replies, args.timed, args.call_s, args.words_per_s))
            out.append({"reply": "streamed" if streamed else "plain", "way": name, **row})
    return out


def _run_in(src: str | None, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The rows measured in a process of their own, ``src`` (a checkout's ``src``) first on its path."""
    root = Path(__file__).resolve().parent.parent
    path = [p for p in (src, str(root)) if p]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    command = [sys.executable, __file__, "--rows", "--replies", str(args.replies), "--timed", str(args.timed),
               "--call-s", str(args.call_s), "--words-per-s", str(args.words_per_s)]
    done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replies", type=int, default=20, help="replies measured for calls, tokens and CPU")
    parser.add_argument("--timed", type=int, default=5, help="replies measured with a checker that takes time")
    parser.add_argument("--call-s", type=float, default=0.3, help="seconds each checker call takes when timed")
    parser.add_argument("--words-per-s", type=float, default=50.0, help="the stream's words a second when timed")
    parser.add_argument("--before", help="another checkout's src folder, measured in the same run")
    parser.add_argument("--rows", action="store_true", help=argparse.SUPPRESS)  # one process's rows, as JSON
    args = parser.parse_args()
    if args.rows:
        print(json.dumps(rows(args)))
        return
    measured = [("before", r) for r in _run_in(args.before, args)] if args.before else []
    measured += [("now", r) for r in _run_in(None, args)]
    print(f"checker at once: calls, tokens and CPU per reply ({args.replies} replies); checker at "
          f"{args.call_s:g} s a call, stream at {args.words_per_s:g} words/s: calls and the median wait from the "
          f"last token to the verdict ({args.timed} replies)")
    print(f"{'code':<8}{'reply':<10}{'way':<8}{'calls':>7}{'prompt tok':>12}{'output tok':>12}{'CPU ms':>9}"
          f"{'timed calls':>13}{'last token->verdict s':>23}  label")
    for code, row in measured:
        print(f"{code:<8}{row['reply']:<10}{row['way']:<8}{row['calls']:>7.1f}{row['prompt_tokens']:>12.0f}"
              f"{row['output_tokens']:>12.0f}{row['cpu_ms']:>9.1f}{row['timed_calls']:>13.1f}"
              f"{row['wait_s']:>23.2f}  {','.join(row['labels'])}")


if __name__ == "__main__":
    main()
