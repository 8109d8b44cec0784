"""Dollars from token counts, only with prices the user gives (``--price MODEL=IN,OUT``, US dollars per million
prompt and completion tokens): prices change, so there is no built-in table.

Each model is priced at its own rate from ``usage_by_model``, discarded speculative work included. A run that
kept only totals is priced from them when every model has the same price; otherwise it gets the reason."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from factdebate.util.errors import InputError

MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    prompt: float  # dollars per million prompt tokens
    completion: float


def parse_prices(values: list[str]) -> dict[str, Price]:
    """``["openai:gpt-4o-mini=0.15,0.6"]`` -> {model: Price}; a malformed entry is a one-line error."""
    prices: dict[str, Price] = {}
    for value in values:
        model, sep, numbers = value.rpartition("=")
        parts = numbers.split(",")
        try:
            if not sep or not model.strip() or len(parts) != 2:
                raise ValueError
            price = Price(float(parts[0]), float(parts[1]))
        except ValueError:
            raise InputError(f"--price {value!r}: expected MODEL=IN,OUT (dollars per million prompt and "
                             "completion tokens), e.g. openai:gpt-4o-mini=0.15,0.60") from None
        if price.prompt < 0 or price.completion < 0:
            raise InputError(f"--price {value!r}: prices cannot be negative")
        prices[model.strip()] = price
    return prices


def price_of(model: str, prices: dict[str, Price]) -> Price | None:
    """The price given for ``model`` by its full name (``openai:gpt-4o``) or without its provider."""
    if model in prices:
        return prices[model]
    return prices.get(model.partition(":")[2]) if ":" in model else None


def unused_prices(prices: dict[str, Price], models: Iterable[str]) -> list[str]:
    """The priced names no model of ``models`` answers to (a typo, or another run's model)."""
    used = list(models)
    return sorted(name for name in prices if not any(price_of(model, {name: prices[name]}) for model in used))


def run_models(settings: dict[str, Any]) -> list[str]:
    """Every model a run's settings bind to a role, the method's own included."""
    llm = settings.get("llm") or {}
    models = {llm.get("debater"), llm.get("judge"), llm.get("scorer"), *(llm.get("roles") or {}).values()}
    own = (settings.get("methods") or {}).get(settings.get("method") or "") or {}
    for key, value in own.items():
        if key.endswith("_llm") and isinstance(value, str):
            models.add(value)
        elif key.endswith("_llms") and isinstance(value, list):
            models.update(v for v in value if isinstance(v, str))
    return sorted(m for m in models if m)


def dollars(prompt_tokens: float, completion_tokens: float, models: list[str],
            prices: dict[str, Price]) -> tuple[float | None, str | None]:
    """(dollars, None), or (None, why not) when a model has no price or the models' prices differ."""
    if not prices:
        return None, "no --price given"
    found = {model: price_of(model, prices) for model in models}
    missing = [model for model, price in found.items() if price is None]
    if missing:
        return None, f"no --price for {', '.join(missing)}"
    distinct = set(found.values())
    if len(distinct) != 1:
        return None, (f"its roles used {', '.join(models)} at different prices, and usage is not kept per model")
    price = distinct.pop()
    assert price is not None
    return (prompt_tokens * price.prompt + completion_tokens * price.completion) / MILLION, None


# The fields of a per-model usage that are billed, and at which of the two rates.
PROMPT_FIELDS = ("prompt_tokens", "speculative_prompt_tokens")
COMPLETION_FIELDS = ("completion_tokens", "speculative_completion_tokens")
MODEL_FIELDS = ("llm_calls", *PROMPT_FIELDS, *COMPLETION_FIELDS, "reasoning_tokens", "cached_calls",
                "speculative_calls")


def sum_by_model(usages: Iterable[Mapping[str, Mapping[str, Any]]]) -> dict[str, dict[str, int]]:
    """Per-model usages (one per sample) summed, by model name in sorted order."""
    totals: dict[str, dict[str, int]] = {}
    for usage in usages:
        for model, used in usage.items():
            into = totals.setdefault(str(model), dict.fromkeys(MODEL_FIELDS, 0))
            for name in MODEL_FIELDS:
                into[name] += int(used.get(name, 0) or 0)
    return dict(sorted(totals.items()))


def dollars_by_model(by_model: dict[str, dict[str, int]], prices: dict[str, Price]
                     ) -> tuple[float | None, dict[str, float | None], str | None]:
    """(total, each model's dollars, None), or (None, the priced models' dollars, why) when one has no price."""
    each: dict[str, float | None] = {}
    for model, used in by_model.items():
        price = price_of(model, prices)
        billed = sum(used[f] for f in (*PROMPT_FIELDS, *COMPLETION_FIELDS))
        each[model] = (0.0 if not billed else None) if price is None else (
            sum(used[f] for f in PROMPT_FIELDS) * price.prompt
            + sum(used[f] for f in COMPLETION_FIELDS) * price.completion) / MILLION
    if not prices:
        return None, each, "no --price given"
    missing = [model for model, spent in each.items() if spent is None]
    if missing:
        return None, each, f"no --price for {', '.join(missing)}"
    return sum(v for v in each.values() if v is not None), each, None
