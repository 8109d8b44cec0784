"""Tool calls with and without MERMAID's evidence memory, on the same claims in the same order (the paper's
metric: total calls to external tools; Figure 3).

    FACTDEBATE_DATA_DIR=... python benchmarks/memory.py                      # countries + FactCheck-Bench
    python benchmarks/memory.py --datasets countries --model-claims 6       # plus the embedded model

For each dataset it runs the real method (decomposer, executor, the MCP search server started as a
subprocess over BM25 of the builtin corpus, the SQLite memory) twice: memory off, then memory on over an
empty store, and prints

    tool_calls_off=… tool_calls_on=… reduction=… accuracy_off=… accuracy_on=…

The policy is scripted so that the memory's effect is measured apart from any model: it decomposes a claim
into its first and last named spans (subject, object), searches for the subject until a passage names it,
then answers True if a passage naming the subject also names the object, else False. With
``--model-claims N`` the embedded model (llama-cpp:builtin) runs the first N claims the same two ways.
FactCheck-Bench is read at run time from the shared datasets folder (``--factcheck-bench PATH``).

Claims are taken in the file's order by default, the first N of them, as the paper ran its claims in
sequence (the memory's reuse depends on which claims come before which); ``--seed S`` draws them with
eval's seeded shuffle instead (``factdebate eval --seed S``, without ``--file-order``), to see how much the
reduction depends on the order."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from factdebate.eval.datasets import Sample, select
from factdebate.eval.datasets.loader import load_dataset
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.memory import normalize_entity
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings

FACTCHECK_BENCH = Path(__file__).resolve().parents[2] / "shared/datasets/factcheck_bench/fire_data.jsonl"
_SPAN = re.compile(r"[A-Z][\w'’.-]*(?:\s+(?:of|the|de|da|von|and|van)?\s*[A-Z][\w'’.-]*)*")
_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
_SKIP = {"The", "A", "An", "In", "On", "At", "It", "This", "That", "There", "He", "She", "They", "As", "By"}
_EVIDENCE = re.compile(r"\[M?\d+\][^\n]*")
# A recalled record's line opens with the entity it is stored under and where it came from: the policy reads
# only the passage after that, or every record stored under the subject would count as naming it.
_RECALLED = re.compile(r"^\[M\d+\] .*? \(from .*?via [^)]*\): ")


def names_entity(text: str, entity: str) -> bool:
    """Whether ``text`` mentions ``entity``, both normalised the memory's way."""
    key = normalize_entity(entity)
    return bool(key) and f" {key} " in f" {normalize_entity(text)} "


def subject_object(claim: str) -> tuple[str, str]:
    spans = []
    for match in _SPAN.finditer(claim):
        words = match.group(0).split()
        while words and words[0] in _SKIP:
            words = words[1:]
        text = " ".join(words).rstrip(".,")
        if text:
            spans.append(text)
    subject = spans[0] if spans else " ".join(claim.split()[:2])
    others = [s for s in spans[1:] if s != subject]
    numbers = _NUMBER.findall(claim)
    return subject, others[-1] if others else (numbers[0] if numbers else "")


def policy(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    text = messages[0]["content"]
    claim = re.search(r"^Claim: (.*)$", text, re.M).group(1)  # type: ignore[union-attr]
    subject, obj = subject_object(claim)
    if call.prompt.startswith("mermaid_decompose"):
        return json.dumps({"triplets": [{"subject": subject, "relation": "relates to", "object": obj,
                                         "attributes": ""}], "topic": "General"})
    seen = text.split("\nTools:", 1)[0]
    passages = [_RECALLED.sub("", line) for line in _EVIDENCE.findall(seen)]
    naming = [line for line in passages if names_entity(line, subject)]
    if naming or call.prompt.startswith("mermaid_force"):
        found = bool(obj) and any(names_entity(line, obj) or obj.replace(",", "") in line.replace(",", "")
                                  for line in naming)
        return json.dumps({"thought": "evidence names the subject", "answer": "True" if found else "False"})
    tries = seen.count("Action: search_local")
    query = subject if tries == 0 else f"{subject} {obj}".strip()
    return json.dumps({"thought": f"find a passage about {subject}",
                       "action": {"name": "search_local", "reason": "no evidence yet", "input": {"query": query}}})


async def run(samples: list[Sample], memory: str, *, llm: str | None, steps: int, store: Path,
              semantic: bool = False) -> dict[str, Any]:
    settings = load_settings(overrides={
        "method": "mermaid", "llm": {"debater": llm or "scripted:agree", "cache": False},
        "methods": {"mermaid": {"servers": ["search"], "memory": memory, "memory_path": str(store),
                                "max_steps": steps, "memory_semantic": semantic}}})
    backends = None if llm else {"debater": ScriptedBackend(policy, name="scripted:memory-policy", record=False)}
    resources = build_resources(settings, backends=backends)
    calls = correct = unparsed = 0
    started = time.perf_counter()
    async with resources:
        for sample in samples:
            verdict = await run_claim(sample.claim, settings, resources)
            calls += verdict.usage.tool_calls
            correct += verdict.label is not None and verdict.label.value == sample.gold
            unparsed += verdict.label is None
    return {"calls": calls, "accuracy": correct / len(samples), "unparsed": unparsed,
            "seconds": time.perf_counter() - started}


async def compare(name: str, samples: list[Sample], *, llm: str | None, steps: int, semantic: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        off = await run(samples, "off", llm=llm, steps=steps, store=Path(tmp) / "off.sqlite")
        on = await run(samples, "on", llm=llm, steps=steps, store=Path(tmp) / "on.sqlite", semantic=semantic)
    reduction = (off["calls"] - on["calls"]) / off["calls"] if off["calls"] else 0.0
    who = llm or "scripted-policy"
    print(f"dataset={name} policy={who} claims={len(samples)} max_steps={steps} semantic={semantic} "
          f"tool_calls_off={off['calls']} tool_calls_on={on['calls']} reduction={reduction:.1%} "
          f"accuracy_off={off['accuracy']:.3f} accuracy_on={on['accuracy']:.3f} "
          f"unparsed_off={off['unparsed']} unparsed_on={on['unparsed']} "
          f"seconds_off={off['seconds']:.0f} seconds_on={on['seconds']:.0f}", flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="countries,factcheck-bench")
    parser.add_argument("--countries", type=int, default=30, help="N countries claims (the first, or drawn).")
    parser.add_argument("--factcheck-bench", type=Path, default=FACTCHECK_BENCH)
    parser.add_argument("--factcheck-limit", type=int, default=None, help="N FactCheck-Bench claims.")
    parser.add_argument("--steps", type=int, default=5, help="T_max for the scripted policy.")
    parser.add_argument("--model-claims", type=int, default=0, help="Also run the embedded model on N claims.")
    parser.add_argument("--model-steps", type=int, default=2)
    parser.add_argument("--semantic", action="store_true", help="Memory on with semantic recall (ours) rather "
                        "than the paper's keyword recall.")
    parser.add_argument("--seed", type=int, default=None, help="Draw the claims with eval's seeded shuffle "
                        "(default: the file's order, the first N claims, as the paper ran them in sequence).")
    args = parser.parse_args()
    shuffle = args.seed is not None
    for name in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        if name == "countries":
            samples = select(load_dataset("countries").samples, args.countries, args.seed or 0, shuffle=shuffle)
        elif name == "factcheck-bench":
            samples = select(load_dataset(f"factcheck-bench:{args.factcheck_bench}").samples, args.factcheck_limit,
                             args.seed or 0, shuffle=shuffle)
        else:
            raise SystemExit(f"unknown dataset {name}: use countries, factcheck-bench")
        print(f"{name}: {len(samples)} claims, " + (f"seeded shuffle (seed {args.seed})" if shuffle else
                                                    "in the file's order"), flush=True)
        await compare(name, samples, llm=None, steps=args.steps, semantic=args.semantic)
        if args.model_claims:
            await compare(name, samples[: args.model_claims], llm="llama-cpp:builtin", steps=args.model_steps)


if __name__ == "__main__":
    asyncio.run(main())
