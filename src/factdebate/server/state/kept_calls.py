"""The model calls of a check, gathered as its stream sends them, to be kept with the check: a check
reopened from its link (or from Recent checks) then shows each call under its turn as the live page did,
not only the verdict. A plain (not streamed) check gathers the same events, only nobody is sent them.

What is kept is what the stream sent, ``llm_call`` by ``llm_call`` (with its prompt and reply when the
stream asked for the transcript; a plain check cannot ask for it, so its calls never carry text): the
transcript's texts are already redacted and clipped at the source
(llm/transcript.py), and each event is redacted once more here, so a kept call never shows more than the
live one did. A check's calls are bounded by the operator's ``kept_check_calls_bytes`` (their JSON, in UTF-8):
the calls that fit are kept in the order they ended, and from the first that does not, the rest are only
counted, so a reader is told how many are missing and that they are the last ones.

In a response check each call of a claim's debate also carries ``claim``, the claim's index, which the
stream says only through the claim's span and its run (``span_begin`` of kind ``subclaim``, then
``run_started`` in that span): the page files each call under its claim as it did live."""

from __future__ import annotations

import threading
from typing import Any

from factdebate.util.scrub import hide_endpoints, redact_value
from factdebate.util.textsafe import dumps_record


class CallKeeper:
    """A sink for one check's events (streamed or not) that keeps its ``llm_call`` ones, at most ``limit_bytes``. It
    names the events it reads (``events``, which a run's recorder reads of every sink: core/runtime.py), so the
    run builds no other event for it."""

    events = frozenset({"span_begin:subclaim", "run_started", "llm_call"})

    def __init__(self, limit_bytes: int) -> None:
        self.limit_bytes = limit_bytes
        self.calls: list[dict[str, Any]] = []
        self.bytes = 0
        self.cut = 0  # calls seen but not kept: over the bound
        self._claim_of_span: dict[str, int] = {}
        self._claim_of_run: dict[str, int] = {}
        self._lock = threading.Lock()  # a method's calls may end on worker threads

    def __call__(self, event: dict[str, Any]) -> None:
        name = event.get("event")
        if name == "span_begin" and event.get("kind") == "subclaim":
            index = (event.get("attributes") or {}).get("index")
            if isinstance(index, int) and event.get("span_id"):
                with self._lock:
                    self._claim_of_span[str(event["span_id"])] = index
        elif name == "run_started" and event.get("span_id") in self._claim_of_span:
            with self._lock:
                self._claim_of_run[str(event.get("run"))] = self._claim_of_span[str(event["span_id"])]
        elif name == "llm_call":
            self._add(event)

    def _add(self, event: dict[str, Any]) -> None:
        with self._lock:
            if self.cut:  # once one call did not fit, later ones are not kept either: the kept ones stay a prefix
                self.cut += 1
                return
            call = redact_value(event)  # a copy: the stream's own event is left as it was sent
            for key in ("error", "model"):  # a call's model and failure name its server: the operator's to know
                if isinstance(call.get(key), str):
                    call[key] = hide_endpoints(call[key])
            claim = self._claim_of_run.get(str(event.get("run")))
            if claim is not None:
                call["claim"] = claim
            size = len(dumps_record(call).encode("utf-8")) + 1
            if self.bytes + size > self.limit_bytes:
                self.cut += 1
                return
            self.calls.append(call)
            self.bytes += size


def with_claim_calls(kept: list[dict[str, Any]], cut: int, index: int, new: CallKeeper,
                     limit_bytes: int) -> tuple[list[dict[str, Any]], int]:
    """A response check's kept calls (and their cut) once claim ``index`` was checked again alone: that
    claim's calls are its new run's (``new``), after the others', within the same bound, so a reopened check
    draws the debate its verdict now comes from. The calls its failed run left out stay counted in ``cut``."""
    calls = [call for call in kept if call.get("claim") != index]
    size = sum(len(dumps_record(call).encode("utf-8")) + 1 for call in calls)
    cut += new.cut
    for at, call in enumerate(new.calls):
        grown = size + len(dumps_record(call).encode("utf-8")) + 1
        if grown > limit_bytes:  # the rest are only counted, as at the first keeping
            return calls, cut + len(new.calls) - at
        calls.append(call)
        size = grown
    return calls, cut
