"""Tool-MAD's control flow against the authors' round structure.

The authors' research code (GitHub ``seyeonJeong/ToolMAD``) is replayed here from the issue's description of
it, not from its text: every agent makes a query-selection call each round (round 1's from the claim alone),
retrieves again only when its query changed, answers, and is scored (faithfulness, answer relevance); a round
passes when every agent gave the same label and each of the round's own four scores is strictly above its
threshold (0.7, 0.8), and the debate then stops; after a round that ended in agreement, each agent whose own
score was at or under a threshold reads a note in its next prompt; after round T the judge decides, given the
running sums of the scores. Where the authors' code departs from the paper (the judge never reads round 3, the
search agent reads the RAG agent's same-round answer) the replay keeps to the paper, as factdebate does
(docs/methods/tool-mad.md), so that the comparison is of the control flow alone.

Both sides answer from ONE scripted model (:func:`world_model`), each claim scripted per agent and round: its
label, how many of its statements the documents back, whether its questions restate the claim, and a new query
or none. factdebate runs the real method (``run_claim``, static tools, the bag-of-words encoder); the replay
asks the same model the same questions and computes the scores the same way (the supported share of the
statements, the mean cosine between the claim and each question). Calls are counted per round in factdebate's
units (a faithfulness score is two calls, statements then verdicts; relevance one), since what is compared is
when each call is made, not how RAGAS splits its work.

    python -m benchmarks.toolmad_control_flow            # every scripted claim, a table and JSON
    python -m benchmarks.toolmad_control_flow --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from factdebate.core.parsing import parse_label
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.scripted import ScriptedBackend
from factdebate.methods.toolmad.score_note import WHY
from factdebate.run.build import build_resources
from factdebate.run.claim import run_claim
from factdebate.settings.load import load_settings
from tests.helpers import BagOfWordsEncoder, StaticTool

AGENTS = ("rag", "search")
ROUNDS = 3
FAITHFULNESS, RELEVANCE = 0.7, 0.8
KINDS = {"query_select": "query", "debate_answer": "answer", "faithfulness_statements": "faithfulness",
         "faithfulness_verdicts": "faithfulness", "relevance_questions": "relevance", "judge": "judge"}


@dataclass(frozen=True)
class Move:
    """What the scripted model does for one agent in one round."""

    label: str
    backed: int = 2  # statements the documents back
    statements: int = 2
    relevant: bool = True  # the questions restate the claim (relevance 1) or not (0)
    query: str | None = None  # a new query (None: keep the previous one; round 1: the claim's words)


@dataclass(frozen=True)
class Script:
    id: str
    claim: str
    moves: dict[tuple[str, int], Move]
    judge: str = "REFUTES"
    what: str = ""


def same(label: str, **kw: Any) -> dict[tuple[str, int], Move]:
    return {(agent, r): Move(label, **kw) for agent in AGENTS for r in range(1, ROUNDS + 1)}


# Each claim exercises one path of the control flow.
CLAIMS = [
    Script("agree-pass", "Paris is the capital of France", same("SUPPORTS"),
           what="agreement in round 1, every score above its threshold: stop"),
    Script("disagree", "The Moon is made of cheese", {**same("REFUTES"), **{("search", r): Move("SUPPORTS")
                                                                           for r in (1, 2, 3)}},
           judge="REFUTES", what="no agreement in any round: the judge"),
    Script("low-then-pass", "Water boils at 100 degrees at sea level",
           {**same("SUPPORTS"), ("rag", 1): Move("SUPPORTS", backed=1)},
           what="agreement in round 1 with rag's faithfulness 0.5: a note to rag, agreement with passing scores "
                "in round 2"),
    Script("at-threshold", "Mount Everest is the highest mountain on Earth",
           {**same("SUPPORTS"), ("search", 1): Move("SUPPORTS", backed=7, statements=10)},
           what="faithfulness exactly 0.7 in round 1: fails the strict test, a note, stop in round 2"),
    Script("always-low", "The Great Wall is visible from space",
           {**same("REFUTES", relevant=False)}, judge="NOT ENOUGH INFO",
           what="agreement every round, relevance 0 every round: notes each round, then the judge"),
    Script("new-query", "Tokyo is the most populous city in Japan",
           {**same("SUPPORTS"), ("rag", 1): Move("REFUTES"),
            ("rag", 2): Move("SUPPORTS", query="Tokyo population Japan largest city")},
           what="disagreement in round 1, rag changes its query in round 2 (a new search), agreement then"),
]


def _claim_of(text: str) -> str | None:
    found = re.search(r"^Claim: (.*)$", text, re.M)
    return found.group(1).strip() if found else None


_ANSWER_TAG = re.compile(r"On claim ([\w-]+), (\w+) argues in round (\d+)")


def world_model(scripts: list[Script]) -> Any:
    """The one scripted model both sides ask: every reply follows the claim's script."""
    by_claim = {s.claim: s for s in scripts}
    by_id = {s.id: s for s in scripts}

    def move_in(text: str) -> tuple[Script, Move]:
        tag = _ANSWER_TAG.search(text)
        assert tag is not None, text[:200]
        script = by_id[tag.group(1)]
        return script, script.moves[(tag.group(2), int(tag.group(3)))]

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        prompt = call.prompt.split(":")[0]
        text = messages[0]["content"]
        if prompt == "debate_answer":
            script = by_claim[_claim_of(text) or ""]
            move = script.moves[(call.agent, call.round)]
            return f"On claim {script.id}, {call.agent} argues in round {call.round}.\n{move.label}"
        if prompt == "query_select":
            script = by_claim[_claim_of(text) or ""]
            chosen = script.moves[(call.agent, call.round)].query
            if chosen:
                return f"[{chosen}]"
            kept = re.search(r"previous query: (.*)", text)
            return f"[{kept.group(1).strip() if kept and call.round > 1 else script.claim}]"
        if prompt == "judge":
            return f"The judge weighs both sides.\n{by_claim[_claim_of(text) or ''].judge}"
        if prompt == "faithfulness_statements":
            _, move = move_in(text)
            return "\n".join(f"{i}. The documents back point {i}." if i <= move.backed else
                             f"{i}. Nothing shown supports point {i}." for i in range(1, move.statements + 1))
        if prompt == "faithfulness_verdicts":
            listed = re.findall(r"^(\d+)\. (.*)$", text.split("Statements:", 1)[-1], re.M)
            return "\n".join(f"{n}: {'yes' if 'documents back' in said else 'no'}" for n, said in listed)
        if prompt == "relevance_questions":
            script, move = move_in(text)
            return "\n".join(f"{i}. {script.claim if move.relevant else 'unrelated banana zebra quantum'}"
                             for i in (1, 2, 3))
        raise AssertionError(f"the scripted model has no reply for {call.prompt}")

    return respond


@dataclass
class Flow:
    """What one side did on one claim."""

    calls: list[Counter[str]] = field(default_factory=list)  # per round: kind -> calls
    searches: list[list[str]] = field(default_factory=list)  # per round: the agents that searched
    notes: list[list[str]] = field(default_factory=list)  # per round: the agents told of a low score
    labels: list[list[str | None]] = field(default_factory=list)
    decider: str = ""
    label: str | None = None
    judge_calls: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"rounds": len(self.calls), "calls": [dict(sorted(c.items())) for c in self.calls],
                "searches": self.searches, "notes": self.notes, "labels": self.labels, "decider": self.decider,
                "label": self.label, "judge_calls": self.judge_calls}


async def authors_flow(script: Script, respond: Any, encoder: BagOfWordsEncoder) -> Flow:
    """The authors' round structure, replayed (see the module's docstring)."""
    flow = Flow()
    queries: dict[str, str] = {}
    sums = {agent: [0.0, 0.0] for agent in AGENTS}
    notes: dict[str, bool] = {}
    claim_vec = (await encoder.aencode([script.claim]))[0]

    def ask(prompt: str, agent: str, round_: int, text: str, counter: Counter[str]) -> str:
        counter[KINDS[prompt]] += 1
        return str(respond(CallInfo(role="debater", agent=agent, round=round_, prompt=prompt),
                           [{"role": "user", "content": text}], GenParams()))

    for round_ in range(1, ROUNDS + 1):
        counter: Counter[str] = Counter()
        searched, told, labels, passed = [], [a for a in AGENTS if notes.get(a)], [], []
        for agent in AGENTS:
            previous = queries.get(agent)
            asked = f"Claim: {script.claim}\n" + (f"previous query: {previous}\n" if previous else "")
            query = ask("query_select", agent, round_, asked, counter).strip()[1:-1]
            if query != previous:  # the code searches only for a new query
                searched.append(agent)
            queries[agent] = query
            answer = ask("debate_answer", agent, round_, f"Claim: {script.claim}", counter)
            label = parse_label(answer)
            statements = ask("faithfulness_statements", agent, round_, f"Answer: {answer}", counter)
            verdicts = ask("faithfulness_verdicts", agent, round_, f"Statements:\n{statements}", counter)
            said = re.findall(r"^\d+: (yes|no)", verdicts, re.M)
            faithfulness = said.count("yes") / len(said)
            questions = re.findall(r"^\d+\. (.*)$", ask("relevance_questions", agent, round_,
                                                          f"Answer: {answer}", counter), re.M)
            vectors = await encoder.aencode(questions)
            relevance = float(np.mean([_cosine(claim_vec, v) for v in vectors]))
            sums[agent][0] += faithfulness
            sums[agent][1] += relevance
            labels.append(label.value if label else None)
            passed.append((faithfulness > FAITHFULNESS, relevance > RELEVANCE))  # strictly above
        flow.calls.append(counter)
        flow.searches.append(searched)
        flow.notes.append(told)
        flow.labels.append(labels)
        agreed = None not in labels and len(set(labels)) == 1
        if agreed and all(f and r for f, r in passed):
            flow.decider, flow.label = "consensus", labels[0]
            return flow
        # After an agreement, each agent with a score at or under its threshold is told so next round.
        notes = {agent: agreed and not (f and r) for agent, (f, r) in zip(AGENTS, passed, strict=True)}
    # Round T without a passing agreement: the judge, with the running sums (S / T).
    judged = respond(CallInfo(role="judge", prompt="judge"),
                     [{"role": "user", "content": f"Claim: {script.claim}\nscores: {sums}"}], GenParams())
    flow.judge_calls = 1
    found = parse_label(str(judged))
    flow.decider, flow.label = "judge", found.value if found else None
    return flow


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norm if norm else 0.0


async def our_flow(script: Script, respond: Any, options: dict[str, Any] | None = None) -> Flow:
    """factdebate's Tool-MAD on the claim, read back from the calls the model got and the verdict.
    ``options``: ``methods.tool-mad`` settings over the defaults (the code-settled options are the defaults)."""
    settings = load_settings(overrides={"method": "tool-mad", "llm": {"cache": False},
                                        "methods": {"tool-mad": {"speculate": False, **(options or {})}}},
                             environ={})
    backend = ScriptedBackend(respond)
    tools = {"rag": StaticTool("rag"), "search": StaticTool("local")}
    resources = build_resources(settings, backends={"debater": backend}, tool_factory=lambda kind: tools[kind],
                                encoder_factory=BagOfWordsEncoder)
    async with resources:
        verdict = await run_claim(script.claim, settings, resources)
    flow = Flow(decider=verdict.decided_by or "", label=verdict.label.value if verdict.label else None)
    answers: dict[tuple[str, int], str] = {}
    judge_rounds = 0
    per_round: dict[int, Counter[str]] = {}
    for info, messages in backend.calls:
        kind = KINDS[info.prompt.split(":")[0]]
        if kind == "judge":
            judge_rounds += 1
            continue
        per_round.setdefault(info.round, Counter())[kind] += 1  # a scorer's call carries its round too
        if kind == "answer":
            answers[(info.agent, info.round)] = messages[0]["content"]
    flow.judge_calls = judge_rounds
    for index, played in enumerate(verdict.rounds, start=1):
        flow.calls.append(per_round.get(index, Counter()))
        flow.searches.append([t.agent for t in played.turns if index == 1 or t.query_changed])
        flow.notes.append([t.agent for t in played.turns
                           if any(why in answers.get((t.agent, index), "") for why in WHY.values())])
        flow.labels.append([t.label.value if t.label else None for t in played.turns])
    return flow


async def compare(scripts: list[Script], options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One row per claim: what each side did and, per field, whether they are the same."""
    respond = world_model(scripts)
    encoder = BagOfWordsEncoder()
    rows = []
    for script in scripts:
        theirs = await authors_flow(script, respond, encoder)
        ours = await our_flow(script, respond, options)
        a, o = theirs.as_dict(), ours.as_dict()
        rows.append({"claim": script.id, "what": script.what, "authors": a, "factdebate": o,
                     "same": {key: a[key] == o[key] for key in ("decider", "label", "rounds", "calls", "searches",
                                                                "notes", "judge_calls")}})
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| claim | authors: decider, label, rounds | factdebate | calls per round (query/answer/faithfulness/"
             "relevance), authors = factdebate | searches, notes | same |", "|---|---|---|---|---|---|"]
    for row in rows:
        a, o = row["authors"], row["factdebate"]
        calls = "; ".join("/".join(str(c.get(k, 0)) for k in ("query", "answer", "faithfulness", "relevance"))
                          for c in a["calls"])
        ours = "; ".join("/".join(str(c.get(k, 0)) for k in ("query", "answer", "faithfulness", "relevance"))
                         for c in o["calls"])
        differ = [key for key, equal in row["same"].items() if not equal]
        lines.append(f"| {row['claim']} | {a['decider']}, {a['label']}, {a['rounds']} | {o['decider']}, {o['label']}, "
                     f"{o['rounds']} | {calls} = {ours} | {a['searches']} {a['notes']} | "
                     f"{'NO: ' + ', '.join(differ) if differ else 'yes'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write every row here")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a methods.tool-mad setting for factdebate's side (JSON value), e.g. "
                             "'threshold_pass=\"at_least\"' or score_note=false")
    args = parser.parse_args()
    options = {key: json.loads(value) for key, _, value in (o.partition("=") for o in args.option)}
    rows = asyncio.run(compare(CLAIMS, options))
    print(table(rows))
    print(f"{sum(all(r['same'].values()) for r in rows)} of {len(rows)} claims the same")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
