"""The library as the service sees it: every name ``factdebate.server`` imports of the library, from one module
(import-linter contracts in pyproject.toml hold the service to it and keep the library from importing it). Each
name is the library's own object, imported from its module when first read, so a module of the service loads only
what it uses (the MCP server answers its handshake before the check engine is imported). Beneath the library lies
``factdebate.util``, helpers without policy (no check, method, model or clock rule of the library lives there);
the service imports of it only the names :data:`FROM_UTIL` lists, said at the end.

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
- ``request_clock``: a request's clock (guard_engine/clock.py): the checks made inside count their deadline and
  their seconds from the request's arrival, less the wait a door leaves out (``Begun.not_counted``).

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
- ``CallOwner`` and ``own_calls`` (llm/call_owner.py): whose model calls these are, a check's admitted key (a
  hash of it). ``own_calls`` makes the calls of the rest of the request that owner's; the queues of the model
  servers serve owners in turn and add up the seconds each owner's calls held their slots (``held_s``), which
  admission learns a key's cost from.

Settings and what the library offers:

- ``Settings`` (``Settings.over``: a request's options over the operator's settings, what is wrong said
  without the values, the operator's method sections kept as validated where the request leaves them;
  ``checked_claim``: a claim within its limit; ``retrieval.corpora``: the corpora every caller may search),
  ``settings_from`` (flat options over the file and the environment); ``Option`` (a flat
  option; ``Option.public_options``: those a service's caller may choose; ``Option.overrides``: flat options as
  nested settings).
- ``Method`` (a method of the library: ``Method.registered``, every one by name; ``Method.named``, one, an
  unknown name a ``ConfigError``), ``MethodView``: how the page draws each one's verdict
  (``MethodView.page_words``: the library's words the page shows beside any verdict: the labels' other
  spellings, how an answer's label was decided, the form's sections, the embedded model's caution).
- ``RetrievalTool``: a retrieval tool's name (``search_evidence``'s parameter, which no request of the HTTP API has).
- ``CorpusName`` (a corpus name in a model: checked by the library's rule, its pattern in the schema).

What the service imports of ``factdebate.util`` (:data:`FROM_UTIL`, by module; tests/test_engine.py holds the
service to it, and an import-linter contract forbids it util's other modules):

- ``errors``: ``FactDebateError``, the base of the errors a user can act on (its ``http_status`` says how a
  service answers it), and the generic ``ConfigError`` (bad settings), ``InputError`` (bad input) and
  ``MissingDependencyError`` (a package to install).
- ``scrub``: what the operator holds kept from callers: ``hide_endpoints``, ``redact_value``, ``scrub_known``,
  ``remember_settings`` (the settings' secrets and endpoints held), and over a stream ``ScrubWindow``,
  ``SeenHalves`` and ``held_halves`` (a key written in two halves).
- ``http_client``: the pooled HTTP client (``Client``) and its answer (``Reply``), which the upstream shares
  with the checker's model calls; ``bounded_body``: an answer's bounds (``AnswerTooLarge``,
  ``AnswerPastLimit``) and their words (``size_words``).
- ``textsafe``: text and strict JSON made safe (``checked_tree``, ``dumps_record``).
- ``observe``: what measures work for metrics and traces (``Watcher``).
- ``storage_full``: the notes of storage that could not write lately (``STORAGE``).
- ``yaml_file``: a settings file read bounded (``YamlFile``).
- ``paths``: the data folder (``data_dir``); ``cores``: the CPUs this process may use (``usable_cores``);
  ``tasks``: work that ends together (``gather_all``); ``version``: the package's (``__version__``)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports each name's module on first use
    from factdebate.core.runtime import EventSink
    from factdebate.core.types import Document, Label, ResponseVerdict, Verdict
    from factdebate.corpus.names import CorpusName
    from factdebate.guard_engine.call import Begun, CheckCall, Host, Reply
    from factdebate.guard_engine.clock import request_clock
    from factdebate.guard_engine.response_check import RecheckedClaim
    from factdebate.guard_engine.stream_policy import GuardedStream
    from factdebate.guard_engine.types import GivenEvidence, GuardOptions, GuardResult
    from factdebate.llm.call_owner import CallOwner, own_calls
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

__all__ = ["Begun", "CallOwner", "CheckCall", "ClaimItem", "CorpusName", "Document", "EventSink", "GivenEvidence",
           "GuardOptions", "GuardResult", "GuardedStream", "Host", "Label", "Method", "MethodView", "Option",
           "RecheckedClaim", "Reply", "ResourcePool", "Resources", "ResponseVerdict", "RetrievalTool", "Settings",
           "Verdict", "own_calls", "request_clock", "run_claim", "settings_from"]

# The names of factdebate.util the service imports directly, by module: helpers without policy (the docstring
# says each). Anything the service needs of util beyond these is added here, or reached through a name above
# where it is the library's policy; tests/test_engine.py holds the service to the list.
FROM_UTIL: Final[Mapping[str, frozenset[str]]] = {
    "factdebate.util.bounded_body": frozenset({"AnswerPastLimit", "AnswerTooLarge", "size_words"}),
    "factdebate.util.cores": frozenset({"usable_cores"}),
    "factdebate.util.errors": frozenset({"ConfigError", "FactDebateError", "InputError", "MissingDependencyError"}),
    "factdebate.util.http_client": frozenset({"Client", "Reply"}),
    "factdebate.util.observe": frozenset({"Watcher"}),
    "factdebate.util.paths": frozenset({"data_dir"}),
    "factdebate.util.scrub": frozenset({"ScrubWindow", "SeenHalves", "held_halves", "hide_endpoints", "redact_value",
                                        "remember_settings", "scrub_known"}),
    "factdebate.util.storage_full": frozenset({"STORAGE"}),
    "factdebate.util.tasks": frozenset({"gather_all"}),
    "factdebate.util.textsafe": frozenset({"checked_tree", "dumps_record"}),
    "factdebate.util.version": frozenset({"__version__"}),
    "factdebate.util.yaml_file": frozenset({"YamlFile"}),
}

# Where each name is defined: the module is imported when the name is first read, so a module of the service
# loads only what it uses (the MCP server answers its handshake before the engine is imported).
_WHERE: dict[str, tuple[str, str]] = {
    "Begun": ("factdebate.guard_engine.call", "Begun"),
    "CallOwner": ("factdebate.llm.call_owner", "CallOwner"),
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
    "own_calls": ("factdebate.llm.call_owner", "own_calls"),
    "request_clock": ("factdebate.guard_engine.clock", "request_clock"),
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
