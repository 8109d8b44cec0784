"""Each method's ``call_bounds`` (what ``--dry-run`` prints) holds against scripted runs: a run where every
first reply is unreadable and every re-ask readable, with the debaters never agreeing, costs exactly the
upper bound; a run where everyone answers well at once costs at least the lower bound.

What such a run answers is each method's own declaration (``Method.call_probe``), so this file names no
method: a new one is checked as soon as it registers."""

from __future__ import annotations

from typing import Any

import pytest

from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.methods.base import CallProbe, Method
from factdebate.run.claim import run_claim
from tests.eval.support import truthful
from tests.helpers import CLAIM, resources_for

# Readable re-asks of the shared prompts (Tool-MAD's scoring); a method's own are in its probe.
SHARED = {
    "faithfulness_statements": "1. One.\n2. Two.\n3. Three.",
    "faithfulness_verdicts": "1: yes\n2: yes\n3: yes",
    "relevance_questions": "1. q\n2. q\n3. q",
}


def probes() -> dict[str, CallProbe]:
    """Every registered method's probe (a method without one fails test_every_method_declares_its_probe)."""
    return {name: cls.call_probe for name, cls in Method.registered().items() if cls.call_probe is not None}


def probed() -> list[str]:
    """The methods the generic run fits (the others name the test that checks their bounds)."""
    return [name for name, probe in probes().items() if not probe.elsewhere]


def _merged(part: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for name, probe in probes().items():
        for prompt, reply in getattr(probe, part).items():
            assert merged.setdefault(prompt, reply) == reply, f"{name} answers {prompt} unlike another method"
    return merged


def probe_settings(method: str) -> dict[str, dict[str, Any]]:
    """Nested ``methods`` overrides of resources_for for ``method``'s probe run."""
    return {method: dict(probes()[method].settings)}


def reask_everything(call: CallInfo, messages: list[Message], params: GenParams) -> str:
    """Any method's probe run: first replies unreadable, re-asks readable, dissenters never agreeing."""
    if call.prompt == "label_reask":  # debaters split, so the debate always runs to its judge
        dissent = any(call.agent in probe.dissenters for probe in probes().values())
        return "REFUTES" if dissent else "SUPPORTS"
    if call.prompt.endswith(":reask"):
        return {**SHARED, **_merged("reasks")}[call.prompt.removesuffix(":reask")]
    return _merged("unreadable").get(call.prompt, "")


def test_every_method_declares_its_probe() -> None:
    methods = Method.registered()
    assert not [name for name, cls in methods.items() if cls.call_probe is None]
    assert {"dpd", "tool-mad", "vote", "factool"} <= set(probed())  # the registry was read
    for name, probe in probes().items():
        if probe.elsewhere:  # "tests/<file>.py::<test>": that test exists
            path, _, test = probe.elsewhere.partition("::")
            assert f"def {test}(" in open(path, encoding="utf-8").read(), name


async def upper_bound_is_reached(method: str) -> None:
    resources, backend, _ = resources_for(reask_everything, method=method, methods=probe_settings(method))
    low, high = Method.named(method).call_bounds(resources.settings)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert verdict.usage.llm_calls == len(backend.calls) == high and low <= high


async def lower_bound_holds(method: str) -> None:
    resources, _, _ = resources_for(truthful, method=method, methods=probe_settings(method))
    low, high = Method.named(method).call_bounds(resources.settings)
    verdict = await run_claim(CLAIM, resources.settings, resources)
    assert low <= verdict.usage.llm_calls <= high and verdict.label is not None


@pytest.mark.parametrize("method", probed())
async def test_the_upper_bound_is_reached_when_everything_is_reasked(method: str) -> None:
    await upper_bound_is_reached(method)


@pytest.mark.parametrize("method", probed())
async def test_the_lower_bound_holds_when_everyone_answers_at_once(method: str) -> None:
    await lower_bound_holds(method)
