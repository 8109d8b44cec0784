"""``cot``: zero-shot chain of thought (Kojima et al., 2022) — "let's think step by step", then the verdict on
the last line. One call, no evidence; a reply without a verdict is re-asked once for the label alone."""

from __future__ import annotations

from factdebate.methods.base import register
from factdebate.methods.baselines.single import OneAnswer


@register
class ChainOfThought(OneAnswer):
    name = "cot"
    description = "Zero-shot chain of thought: reason step by step, then a verdict (no evidence)"
    template = "cot"
    max_tokens = 512
    reasoning = True
