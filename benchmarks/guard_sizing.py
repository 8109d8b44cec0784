"""What a guarded reply asks of the checker model at each tier: model calls, prompt and output tokens per reply,
and the guard's own CPU per reply, for sizing the model server beside the service (docs/service.md, Sizing).

The reply is benchmarks/guard_window_call.py's six sentences (six claims, "The Eiffel Tower is in Rome." false),
checked plain in this process as the service checks it (``check_text``, resources built once), by
benchmarks/guard.py's scripted checker (the Rome claim refuted at every tier, the rest supported; its extraction
gives the sentences of the text it is shown). The passages are given (``evidence_mode: given``), so no search
runs. Rows:

- ``fast``, ``standard``, ``deep``: every claim decided at that tier only (``tier`` and ``max_tier`` both it);
- ``fast -> deep`` and ``standard -> deep``: the tier a reply starts at, a claim that is not supported going up
  a tier while one is left (``max_tier: deep``, the default ceiling; ``standard`` is the default tier).

The standard and deep tiers run ``--method`` (default Tool-MAD, the default method). Tokens are counted as
four characters a token (the scripted checker has no tokenizer): roughly what a model's tokenizer counts for
English, enough to size a server, not to price a model. The CPU is this process's over ``--replies`` replies
after one to warm up, less the scripted checker's own, the least of five rounds.

With ``--prompt-tps P --output-tps O`` (a model server's prompt reading and writing speed, tokens a second,
e.g. from benchmarks/embedded_model.py or the server's own log) it adds, per row, the model seconds a reply
costs that server one call at a time, and the replies a minute one such server keeps up with.

    PYTHONPATH=. .venv/bin/python benchmarks/guard_sizing.py --replies 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from factdebate.guard_engine.types import Tier
from factdebate.settings.model import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.guard_window_call import ANSWER, PASSAGES  # the same reply and passages
from benchmarks.results_log import add_record_flag, record

ROWS: tuple[tuple[Tier, Tier], ...] = (("fast", "fast"), ("standard", "standard"), ("deep", "deep"), ("fast", "deep"),
                                      ("standard", "deep"))
ROUNDS = 5  # the CPU per reply is the least round's: another process's work inflates a round, never lowers it


@dataclass
class Tally:
    calls: int = 0
    prompt_chars: int = 0
    output_chars: int = 0
    cpu_s: float = 0.0  # the scripted checker's own CPU, taken off the guard's


def counted(tally: list[Tally]) -> Any:
    """benchmarks/guard.py's scripted checker, each call counted in ``tally[0]``."""
    from benchmarks.guard import responder

    inner = responder()

    def respond(call: Any, messages: Any, params: Any) -> str:
        began = time.process_time()
        answer = str(inner(call, messages, params))
        counted = tally[0]
        counted.calls += 1
        counted.prompt_chars += sum(len(str(m["content"])) for m in messages)
        counted.output_chars += len(answer)
        counted.cpu_s += time.process_time() - began
        return answer

    return respond


async def measure(tier: Tier, max_tier: Tier, method: str, replies: int) -> dict[str, Any]:
    from factdebate.guard_engine import GuardEvidence, GuardOptions, check_text
    from tests.helpers import StaticTool, resources_for

    tally = [Tally()]
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources, _, _ = resources_for(counted(tally), method=method, tools=tools,
                                    guard={"tier": tier, "max_tier": max_tier})
    options = GuardOptions(tier=tier, max_tier=max_tier, method=method, deadline_s=600,
                           evidence=[GuardEvidence(text=p) for p in PASSAGES], evidence_mode="given")
    labels: set[str] = set()
    settings = cast(Settings, resources.settings)  # built by load_settings: the whole model behind the protocol
    async with resources:
        await check_text(ANSWER, settings, resources, options=options)  # warm up
        tally[0] = Tally()
        rounds = []
        for part in range(ROUNDS):
            count = replies // ROUNDS + (part < replies % ROUNDS)
            started, double = time.process_time(), tally[0].cpu_s
            for _ in range(count):
                result = await check_text(ANSWER, settings, resources, options=options)
                labels.add(str(result.label.value if result.label else None))
            rounds.append((time.process_time() - started - (tally[0].cpu_s - double)) / max(1, count))
    done = tally[0]
    return {"tier": tier if tier == max_tier else f"{tier} -> {max_tier}", "calls": done.calls / replies,
            "prompt_tokens": done.prompt_chars / 4 / replies, "output_tokens": done.output_chars / 4 / replies,
            "guard_cpu_ms": min(rounds) * 1000, "labels": sorted(labels)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replies", type=int, default=20)
    parser.add_argument("--method", default="tool-mad", help="the standard and deep tiers' method")
    parser.add_argument("--prompt-tps", type=float, default=0.0, help="a model server's prompt tokens a second")
    parser.add_argument("--output-tps", type=float, default=0.0, help="a model server's output tokens a second")
    add_record_flag(parser)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    figures: dict[str, float] = {}
    print(f"# six-claim reply, plain, scripted checker, method {args.method}, {args.replies} replies a row; "
          "tokens: four characters each")
    header = "| tier | model calls | prompt tokens | output tokens | guard CPU |"
    if args.prompt_tps and args.output_tps:
        header += f" model seconds ({args.prompt_tps:g} / {args.output_tps:g} tok/s) | replies a minute, one slot |"
    print(header)
    print("|" + " --- |" * header.count(" |"))
    for tier, max_tier in ROWS:
        row = asyncio.run(measure(tier, max_tier, args.method, args.replies))
        line = (f"| {row['tier']} | {row['calls']:.1f} | {row['prompt_tokens']:,.0f} | {row['output_tokens']:,.0f} "
                f"| {row['guard_cpu_ms']:.1f} ms |")
        if args.prompt_tps and args.output_tps:
            seconds = row["prompt_tokens"] / args.prompt_tps + row["output_tokens"] / args.output_tps
            line += f" {seconds:.1f} s | {60 / seconds:.1f} |"
        print(line)
        print(json.dumps(row), file=sys.stderr)
        name = tier if tier == max_tier else f"{tier}_to_{max_tier}"
        figures.update({f"{name}_calls": round(row["calls"], 1), f"{name}_prompt_tokens": round(row["prompt_tokens"]),
                        f"{name}_guard_cpu_ms": round(row["guard_cpu_ms"], 1)})
    if args.record:
        print(f"recorded in {record('guard_sizing', figures, load=load)}", file=sys.stderr)


if __name__ == "__main__":
    main()
