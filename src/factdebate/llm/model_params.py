"""Which request parameters a model takes, learned once per process.

OpenAI's reasoning models refuse ``max_tokens`` (they take ``max_completion_tokens``, which also caps their
hidden reasoning) and most refuse any ``temperature`` but the default; other servers refuse other things.
Rather than keep a table of every model, known families get ``max_completion_tokens``, and an HTTP 400 naming
a parameter makes the backend send the request again without it and leave it out from then on. The change is
traced (``llm_params_adjusted``) and logged once, since it changes how the model samples."""

from __future__ import annotations

import logging
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from factdebate.core.runtime import RunRecorder, current_run
from factdebate.llm.base import GenParams

log = logging.getLogger("factdebate.llm")

# Completion tokens a reasoning model may spend thinking on top of what a call allows its answer (a cap: what
# is not used is not billed); too few and the reasoning eats the answer (an empty reply, finish "length").
REASONING_TOKENS = 8192
TOKEN_FIELDS = ("max_tokens", "max_completion_tokens")
# Sampling parameters requests carry and can do without: the model's own default applies instead.
SAMPLING = ("temperature",)
REFUSAL_CODES = ("unsupported_parameter", "unsupported_value")
# o1, o1-mini, o3, o3-mini, o4-mini, gpt-5, gpt-5-mini, gpt-5.1...; a router's "openai/gpt-5-mini" too.
_REASONING_FAMILY = re.compile(r"(o[1-9]\d*|gpt-5)([-.:_]|$)")


def reasoning_family(model: str) -> bool:
    """A model named like OpenAI's reasoning models, which take ``max_completion_tokens``."""
    return bool(_REASONING_FAMILY.match(model.rsplit("/", 1)[-1].lower()))


@dataclass(frozen=True)
class Adjustment:
    """One parameter sent differently from what the call asked for, and why."""

    param: str
    change: str  # "renamed to max_completion_tokens", "dropped"
    reason: str

    def line(self, model: str) -> str:
        """How the log says it, once per process."""
        if self.change == "dropped":
            return (f"{model}: '{self.param}' is left out of its requests from now on, so the model's default "
                    f"applies (the server said: {self.reason})")
        return f"{model}: '{self.param}' is {self.change} in its requests ({self.reason})"


class ModelParams:
    """What one model on one server is sent, shared by every backend of the process naming that model."""

    def __init__(self, model: str) -> None:
        self.reasoning = reasoning_family(model)
        self.token_field = "max_completion_tokens" if self.reasoning else "max_tokens"
        self.dropped: set[str] = set()
        self.refused: set[str] = set()  # parameters a 400 named: never sent again
        self.adjustments: list[Adjustment] = []
        if self.reasoning:
            self.adjustments.append(Adjustment("max_tokens", "renamed to max_completion_tokens",
                                               "an OpenAI reasoning model by its name; the cap includes "
                                               "llm.reasoning_tokens for its hidden reasoning"))
        self._lock = threading.Lock()
        self._logged = 0
        self._told: weakref.WeakKeyDictionary[RunRecorder, int] = weakref.WeakKeyDictionary()
        self.starved = False  # a reply came back empty with the whole budget spent (logged once)

    def arguments(self, params: GenParams, reasoning_tokens: int) -> dict[str, Any]:
        """The sampling and length arguments of one request (a reasoning model's cap has room to reason)."""
        cap = params.max_tokens + (reasoning_tokens if self.reasoning else 0)
        arguments: dict[str, Any] = {"temperature": params.temperature, self.token_field: cap}
        return {name: value for name, value in arguments.items() if name not in self.dropped}

    def sends(self, param: str) -> bool:
        return param == self.token_field or (param in SAMPLING and param not in self.dropped)

    def learn(self, param: str | None, code: str | None, message: str, sent: dict[str, Any]) -> bool:
        """Whether a 400 that says ``code`` about ``param`` of ``sent`` is worked around by sending it again."""
        if param not in (*TOKEN_FIELDS, *SAMPLING) or code not in REFUSAL_CODES or param not in sent:
            return False
        with self._lock:
            if not self.sends(param):
                return True  # a concurrent call learned it meanwhile: the next request leaves it out
            if param in TOKEN_FIELDS:
                other = TOKEN_FIELDS[1 - TOKEN_FIELDS.index(param)]
                if code != "unsupported_parameter" or other in self.refused:
                    return False
                self.token_field = other
                # A model that wants max_completion_tokens is a reasoning model: its cap covers reasoning.
                self.reasoning = other == "max_completion_tokens"
                self.adjustments.append(Adjustment(param, f"renamed to {other}", message))
            else:
                self.dropped.add(param)
                self.adjustments.append(Adjustment(param, "dropped", message))
            self.refused.add(param)
            return True

    def report(self, model: str) -> None:
        """Trace the adjustments the current run has not seen yet, and log the ones the process has not."""
        with self._lock:
            fresh, self._logged = self.adjustments[self._logged:], len(self.adjustments)
            run = current_run()
            told = self._told.get(run, 0) if run is not None else len(self.adjustments)
            unseen = self.adjustments[told:]
            if run is not None:
                self._told[run] = len(self.adjustments)
        for adjustment in fresh:
            log.warning("%s", adjustment.line(model))
        for adjustment in unseen:
            run.emit("llm_params_adjusted", model=model, param=adjustment.param,  # type: ignore[union-attr]
                     change=adjustment.change, reason=adjustment.reason)

    def budget_spent(self, model: str, reasoning_tokens: int) -> None:
        """An empty reply that used the whole cap: the reasoning left no room for the answer."""
        if not self.starved:
            self.starved = True
            log.warning("%s spent its whole completion budget before answering (%d of it reasoning): raise "
                        "llm.reasoning_tokens", model, reasoning_tokens)


_KNOWN: dict[tuple[str, str], ModelParams] = {}
_KNOWN_LOCK = threading.Lock()


def model_params(endpoint: str, model: str) -> ModelParams:
    """The one record of what ``model`` on ``endpoint`` takes, for this process."""
    with _KNOWN_LOCK:
        if (endpoint, model) not in _KNOWN:
            _KNOWN[(endpoint, model)] = ModelParams(model)
        return _KNOWN[(endpoint, model)]
