"""A results file of real evaluation records for the results viewer's tests and screenshots: the evaluation
runner (eval/runner.py) runs the CoT baseline over a small FEVER-format file with a scripted model that gets
some claims right, some wrong, leaves two unparsed and fails on one, so every part of the viewer's analysis
has something to show."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from factdebate.eval.runner import execute, make_plan
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.settings.load import load_settings
from tests.helpers import resources_for

S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
# (claim, gold): what the model answers follows from the words in the claim (reply() below).
CLAIMS = [
    ("The Eiffel Tower is in Paris.", S), ("The Louvre is in Paris.", S), ("Notre-Dame stands in Paris.", S),
    ("The Brandenburg Gate is in Berlin.", S), ("The Colosseum is in Berlin.", R), ("Big Ben is in Berlin.", R),
    ("The Eiffel Tower was moved to Paris in 2001.", R), ("The tower's first paint colour is unknown.", N),
    ("Someone once sold the Eiffel Tower, maybe in Paris.", N), ("A garbled claim about the Seine.", S),
    ("A garbled claim about Berlin.", R), ("A claim that crashes the model.", R),
    ("The Sagrada Familia is in Barcelona, not Berlin.", S), ("Madrid's tallest tower is unknown.", R),
]


def reply(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """CoT's reply: reasoning, then the label on the last line; a "garbled" claim gets no label (and no
    better on the re-ask), a "crashes" claim an error, as a dead model's would be."""
    text = "\n".join(m["content"] for m in messages)
    if "crashes" in text:
        raise RuntimeError("the model server closed the connection")
    if "garbled" in text:
        return "I would rather not commit to anything here."
    label = R if "Berlin" in text else S if "Paris" in text else N
    return f"Reasoning about the claim.\n{label}"


def write_results(folder: Path, answer: Callable[[CallInfo, list[Message], GenParams], str] = reply) -> Path:
    """Runs the evaluation into ``folder`` and returns its results.jsonl (the claims in file order);
    ``answer`` is the scripted model (another one makes a second run to compare with)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "claims.jsonl"
    data.write_text("".join(json.dumps({"id": f"c{i + 1:02d}", "claim": claim, "label": gold}) + "\n"
                            for i, (claim, gold) in enumerate(CLAIMS)), encoding="utf-8")
    settings = load_settings(overrides={"method": "cot", "llm": {"cache": False}}, environ={})
    plan = make_plan(settings, f"fever:{data}", folder / "run", limit=None, seed=0, order="file")
    resources, _, _ = resources_for(answer, method="cot")
    # In a thread of its own: the caller may be inside an event loop (pytest-asyncio's), where asyncio.run fails.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, execute(plan, resources, concurrency=1, progress=False)).result()
    return plan.output / "results.jsonl"
