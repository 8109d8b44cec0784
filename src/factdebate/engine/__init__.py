"""The library as the service sees it: every name ``factdebate.server`` imports, from one module (import-linter
contracts in pyproject.toml hold the service to it and keep the library from importing it). Each name is the
library's own object, imported from its module when first read, so a module of the service loads only what it
uses (the MCP server answers its handshake before the check engine is imported). ``factdebate.util``, the
domain-free foundation beneath the library, is the service's too, which imports its names from util itself:
the pooled HTTP client, bounded bodies and files, a settings file read bounded, the scrub of secrets and
addresses, the data folder, the errors a user can act on (the base, whose ``http_status`` says how a service
answers it, and the generic ones: bad settings, bad input, a missing package), text and strict JSON made safe,
what measures work for metrics and traces, the notes of storage that could not write, a request's clock, the
package's version.
What the service reads of a library object it only receives, it declares itself as a ``typing.Protocol``.

The check (guard_engine/), one call for every door:

- ``CheckCall`` (a door's input: the conversation, its reply, the options, the caller; the one call is its
  ``check_replies`` for a chat's replies, its ``check_response`` for a long answer, claim by claim), ``Reply``
  (one reply), ``RecheckedClaim`` (one claim of a checked answer, checked again by ``RecheckedClaim.check``:
  its check, with the answer's label and verdict it makes).
- ``Host`` (what a door gives the call: its ``admit`` gives any object with ``overloaded``, ``charge`` and
  ``release``; resources, keeping; ``Host.author``: the model that wrote the reply, which the library asks for a
  revision under ``rewrite`` with the messages it adds; its ``begin`` sets up and admits the check of a reply
  still to come, the chat proxy's).
- ``Begun`` (a check set up and admitted: its ``session``, the host's resources for its replies; its ``check``
  of one reply; its result of a reply the service had no room to check; and its ``finish``, which hides and
  keeps a result); ``GuardedStream``: a begun reply's check while it streams (``GuardedStream.of``), its policy
  on the text, and the result of a reply that streamed no text.
- ``GuardOptions``: what a caller asks (``GuardOptions.resolve``: the same within the operator's settings, whose
  policy, tier, deadline and ``passages()`` a door reads; ``GuardOptions.deadline_within``: a check's deadline;
  ``GuardOptions.MAX_EVIDENCE_ITEMS`` and ``GuardOptions.CONVERSATION_ID_PATTERN``: a request's bounds).
- ``GivenEvidence``: the caller's passages and how a check reads them, the two fields the guard's options share
  with a claim's and an answer's request (``GivenEvidence.applied``: settings serving them, and the passages).
- ``GuardResult``: a check's result (``with_caution``: a copy with one more caution), each claim with the stance
  of each quote it rests on (``stance``).

Claims and answers (run/, core/):

- ``run_claim`` (one claim checked by a method, with the caller's passages when given); the inputs are checked
  first by the settings they are checked within (``Settings.checked_claim``; an answer and its question:
  ``Settings.response.checked_answer``).
- ``Verdict``, ``ResponseVerdict``, ``Label``, ``Document``: the results (``Verdict.upgraded``: a stored
  verdict of any schema version in the current one).
- ``Resources`` (what a run is built from), ``ResourcePool`` (built per settings, models and indexes shared; its
  ``aclose`` closes what its runs opened; ``needs_builtin``: whether a run opens the built-in indexes, and
  ``prepare_builtin``: those indexes built in the background, then its searches over them opened;
  ``models_down``: the models whose server refused connections lately; ``model_queues``: the call queues of
  the model servers this event loop has called, each one's slots and wait, which admission reads).
- ``EventSink`` (a run's events: a sink that names the events it reads in a frozenset ``events`` gets only
  those; one whose ``transcript`` is a number of characters gets the text of each model call, cut there).
- ``ClaimItem``: a batch's item (``ClaimItem.from_lines``: a batch's items, from uploaded JSON lines).

Settings and what the library offers:

- ``Settings`` (``Settings.over``: a request's options over the operator's settings, what is wrong said
  without the values; ``checked_claim``: a claim within its limit; ``retrieval.corpora``: the corpora every
  caller may search), ``settings_from`` (flat options over the file and the environment); ``Option`` (a flat
  option; ``Option.public_options``: those a service's caller may choose; ``Option.overrides``: flat options as
  nested settings).
- ``Method`` (a method of the library: ``Method.registered``, every one by name; ``Method.named``, one, an
  unknown name a ``ConfigError``), ``MethodView``: how the page draws each one's verdict
  (``MethodView.page_words``: the library's words the page shows beside any verdict: the labels' other
  spellings, how an answer's label was decided, the form's sections, the embedded model's caution).
- ``RetrievalTool``: a retrieval tool's name (``search_evidence``'s parameter, which no request of the HTTP API has).
- ``CorpusName`` (a corpus name in a model: checked by the library's rule, its pattern in the schema)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports each name's module on first use
    from factdebate.core.runtime import EventSink
    from factdebate.core.types import Document, Label, ResponseVerdict, Verdict
    from factdebate.corpus.names import CorpusName
    from factdebate.guard_engine.call import Begun, CheckCall, Host, Reply
    from factdebate.guard_engine.response_check import RecheckedClaim
    from factdebate.guard_engine.stream_policy import GuardedStream
    from factdebate.guard_engine.types import GivenEvidence, GuardOptions, GuardResult
    from factdebate.methods.base import Method
    from factdebate.methods.resources import Resources
    from factdebate.methods.view import MethodView
    from factdebate.run.batch import ClaimItem
    from factdebate.run.claim import run_claim
    from factdebate.scale.resource_pool import ResourcePool
    from factdebate.settings.load import settings_from
    from factdebate.settings.model import Settings
    from factdebate.settings.options import Option
    from factdebate.tools.registry import RetrievalTool

__all__ = ["Begun", "CheckCall", "ClaimItem", "CorpusName", "Document", "EventSink", "GivenEvidence",
           "GuardOptions", "GuardResult", "GuardedStream", "Host", "Label", "Method", "MethodView", "Option",
           "RecheckedClaim", "Reply", "ResourcePool", "Resources", "ResponseVerdict", "RetrievalTool", "Settings",
           "Verdict", "run_claim", "settings_from"]

# Where each name is defined: the module is imported when the name is first read, so a module of the service
# loads only what it uses (the MCP server answers its handshake before the engine is imported).
_WHERE: dict[str, tuple[str, str]] = {
    "Begun": ("factdebate.guard_engine.call", "Begun"),
    "CheckCall": ("factdebate.guard_engine.call", "CheckCall"),
    "ClaimItem": ("factdebate.run.batch", "ClaimItem"),
    "CorpusName": ("factdebate.corpus.names", "CorpusName"),
    "Document": ("factdebate.core.types", "Document"),
    "EventSink": ("factdebate.core.runtime", "EventSink"),
    "GivenEvidence": ("factdebate.guard_engine.types", "GivenEvidence"),
    "GuardOptions": ("factdebate.guard_engine.types", "GuardOptions"),
    "GuardResult": ("factdebate.guard_engine.types", "GuardResult"),
    "GuardedStream": ("factdebate.guard_engine.stream_policy", "GuardedStream"),
    "Host": ("factdebate.guard_engine.call", "Host"),
    "Label": ("factdebate.core.types", "Label"),
    "Method": ("factdebate.methods.base", "Method"),
    "MethodView": ("factdebate.methods.view", "MethodView"),
    "Option": ("factdebate.settings.options", "Option"),
    "RecheckedClaim": ("factdebate.guard_engine.response_check", "RecheckedClaim"),
    "Reply": ("factdebate.guard_engine.call", "Reply"),
    "ResourcePool": ("factdebate.scale.resource_pool", "ResourcePool"),
    "Resources": ("factdebate.methods.resources", "Resources"),
    "ResponseVerdict": ("factdebate.core.types", "ResponseVerdict"),
    "RetrievalTool": ("factdebate.tools.registry", "RetrievalTool"),
    "Settings": ("factdebate.settings.model", "Settings"),
    "Verdict": ("factdebate.core.types", "Verdict"),
    "run_claim": ("factdebate.run.claim", "run_claim"),
    "settings_from": ("factdebate.settings.load", "settings_from"),
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _WHERE[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value
