"""``cot``: zero-shot chain of thought (Kojima et al., 2022) — "let's think step by step", then the verdict on
the last line. One call, no evidence; a reply without a verdict is re-asked once for the label alone."""

from __future__ import annotations

from factdebate.methods.base import Resources, register
from factdebate.methods.single import one_answer
from factdebate.types import Verdict


@register("cot", "Zero-shot chain of thought: reason step by step, then a verdict (no evidence)")
class ChainOfThought:
    name = "cot"

    async def run(self, claim: str, resources: Resources) -> Verdict:
        return await one_answer(self.name, "cot", claim, resources, max_tokens=512)
