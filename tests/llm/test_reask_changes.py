"""A re-ask that can change the answer: at temperature 0 and under the first ask's
constraint a small model repeated its first reply word for word, so the re-ask samples warmer unless it is
held to another constraint; the problem it was told is quoted either way."""

from __future__ import annotations

from factdebate.llm.ask import REASK_TEMPERATURE, Reask, ask, format_reask, reask_params
from factdebate.llm.base import GenParams, Message
from factdebate.llm.calls import CallInfo
from factdebate.llm.model import LLM
from factdebate.llm.scripted import ScriptedBackend
from factdebate.prompts import Prompt

PROMPT = Prompt("question", "How many moons has Mars? Answer 'Moons: <n>'.")
COLD = GenParams(temperature=0.0, max_tokens=20)
HELD = GenParams(temperature=0.0, max_tokens=20, grammar='root ::= "Moons: " [0-9]+\n')


async def _params_sent(first: GenParams, reask: Reask | None) -> list[GenParams]:
    sent: list[GenParams] = []

    def respond(call: CallInfo, messages: list[Message], params: GenParams) -> str:
        sent.append(params)
        # A model that answers the same at temperature 0, however it is asked: what issue 65 saw.
        return "Moons: 2" if params.temperature > 0 else "Two, I think."

    def moons(text: str) -> int | None:
        return int(text.removeprefix("Moons: ")) if text.startswith("Moons: ") else None

    parsed = await ask(LLM(ScriptedBackend(respond), "debater"), PROMPT, moons, what="moons", params=first,
                       reask=reask)
    assert parsed.value == 2  # recovered only because the re-ask was not the first ask again
    return sent


async def test_a_reask_without_its_own_parameters_samples_warmer_than_the_first_ask() -> None:
    first, again = await _params_sent(COLD, None)
    assert first.temperature == 0.0 and again.temperature == REASK_TEMPERATURE
    assert (again.max_tokens, again.grammar) == (first.max_tokens, first.grammar)


async def test_a_reask_under_the_first_asks_own_constraint_samples_warmer() -> None:
    _, again = await _params_sent(HELD, Reask(params=HELD))
    assert again.temperature == REASK_TEMPERATURE and again.grammar == HELD.grammar


def test_a_reask_held_to_a_constraint_the_first_ask_lacked_keeps_its_temperature() -> None:
    held = format_reask(20, grammar='root ::= "Moons: " [0-9]+\n').params
    assert reask_params(COLD, held) == held
    assert reask_params(COLD, None).temperature == REASK_TEMPERATURE


def test_a_warm_first_ask_is_reasked_warmer_still_up_to_one() -> None:
    assert reask_params(GenParams(temperature=0.6), None).temperature == 0.9
    assert reask_params(GenParams(temperature=1.0), None).temperature == 1.0
    warm = GenParams(temperature=0.8)
    assert reask_params(COLD, warm) is warm  # already warmer than the first ask: as given
