"""The library as the service sees it: the names ``factdebate.server`` may import, in one module (an
import-linter contract in pyproject.toml holds the service to it, and the library itself never imports it).

Each name is the library's own object, imported from its module when first read, so a module of the service
loads only what it uses."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker sees; at run time __getattr__ imports each name's module on first use
    from factdebate.core.errors import (
        ConfigError,
        DataDirError,
        EndpointUnavailableError,
        FactDebateError,
        InputError,
        MissingDependencyError,
    )
    from factdebate.core.fields import GROUPS, offered
    from factdebate.core.observe import Watcher, watched, watching
    from factdebate.core.runtime import EventSink, Listener
    from factdebate.core.schema import upgrade
    from factdebate.core.storage_full import STORAGE, storage_problem
    from factdebate.core.textsafe import checked_tree, checked_values, dumps_record, safe_value, unsafe_reason
    from factdebate.core.types import (
        LABEL_ALIASES,
        ClaimCheck,
        Document,
        Label,
        ResponseVerdict,
        Span,
        Usage,
        Verdict,
        VerdictWarning,
        add_model_usage,
        add_reply_counts,
    )
    from factdebate.core.version import __version__
    from factdebate.corpus.builtin import BUILTIN_CORPUS
    from factdebate.corpus.builtin_index import ensure_builtin_indexed
    from factdebate.corpus.names import PATTERN, check_corpus_name
    from factdebate.corpus.progress import watch_builds
    from factdebate.guard_engine.call import (
        Admission,
        Begun,
        CheckCall,
        Host,
        Reply,
        begin,
        check_replies,
        check_response,
        finish,
        given_resources,
    )
    from factdebate.guard_engine.clock import not_counted, request_clock
    from factdebate.guard_engine.deadline import default_deadline_s
    from factdebate.guard_engine.evidence import passages
    from factdebate.guard_engine.options import resolve_options
    from factdebate.guard_engine.overload import overloaded_result
    from factdebate.guard_engine.policy import no_text_result
    from factdebate.guard_engine.response_check import check_one_claim
    from factdebate.guard_engine.stream import StreamingCheck
    from factdebate.guard_engine.stream_policy import GuardedStream, kept_chars
    from factdebate.guard_engine.types import (
        CONVERSATION_ID_PATTERN,
        MAX_EVIDENCE_ITEMS,
        ClaimEvidence,
        EvidenceMode,
        GuardClaim,
        GuardEvidence,
        GuardOptions,
        GuardResult,
        ResolvedGuardOptions,
        Reviser,
        Tier,
    )
    from factdebate.llm import breaker, make_backend, near_chance
    from factdebate.llm.base import Backend
    from factdebate.llm.near_chance import CLAIMS, with_model_warnings
    from factdebate.llm.openai_stream import StreamSetting
    from factdebate.llm.transcript import DEFAULT_CHARS, transcribing
    from factdebate.methods.base import all_methods, get_method, method_class
    from factdebate.methods.resources import Resources, Services
    from factdebate.methods.view import MethodView
    from factdebate.prompts import render
    from factdebate.response_level.aggregate import RULES, factual, response_label
    from factdebate.run.batch import ClaimItem, parse_claim_lines
    from factdebate.run.build import build_resources, builtin_engines, ensure_indexes, make_tool
    from factdebate.run.claim import run_claim, validate_claim
    from factdebate.run.response import validate_question, validate_response
    from factdebate.scale.lite_copy import close_lite_clients, copied_rag_tool
    from factdebate.settings.load import settings_from, validation_problems
    from factdebate.settings.model import Settings
    from factdebate.settings.options import (
        Option,
        all_options,
        convert,
        option_schema,
        option_value,
        options_to_overrides,
    )
    from factdebate.settings.sources import Layer, NamedEnv, YamlFile
    from factdebate.tools.base import Tool
    from factdebate.tools.given import given_evidence
    from factdebate.tools.mcp_config import MCPServerConfig
    from factdebate.tools.registry import AgentTool, RetrievalTool, SearchEngine, mcp_tool
    from factdebate.util.bounded_body import AnswerTooLarge, AnswerTooSlow
    from factdebate.util.http_client import Client, close_session
    from factdebate.util.http_client import Reply as HttpReply
    from factdebate.util.paths import data_dir
    from factdebate.util.scrub import (
        ScrubWindow,
        hide_endpoints,
        redact_text,
        redact_url,
        redact_value,
        remember_endpoints,
        remember_secrets,
        remember_settings,
        scrub_known,
    )

__all__ = [
    "BUILTIN_CORPUS",
    "CLAIMS",
    "CONVERSATION_ID_PATTERN",
    "DEFAULT_CHARS",
    "GROUPS",
    "LABEL_ALIASES",
    "MAX_EVIDENCE_ITEMS",
    "PATTERN",
    "RULES",
    "STORAGE",
    "Admission",
    "AgentTool",
    "AnswerTooLarge",
    "AnswerTooSlow",
    "Backend",
    "Begun",
    "CheckCall",
    "ClaimCheck",
    "ClaimEvidence",
    "ClaimItem",
    "Client",
    "ConfigError",
    "DataDirError",
    "Document",
    "EndpointUnavailableError",
    "EventSink",
    "EvidenceMode",
    "FactDebateError",
    "GuardClaim",
    "GuardEvidence",
    "GuardOptions",
    "GuardResult",
    "GuardedStream",
    "Host",
    "HttpReply",
    "InputError",
    "Label",
    "Layer",
    "Listener",
    "MCPServerConfig",
    "MethodView",
    "MissingDependencyError",
    "NamedEnv",
    "Option",
    "Reply",
    "ResolvedGuardOptions",
    "Resources",
    "ResponseVerdict",
    "RetrievalTool",
    "Reviser",
    "ScrubWindow",
    "SearchEngine",
    "Services",
    "Settings",
    "Span",
    "StreamSetting",
    "StreamingCheck",
    "Tier",
    "Tool",
    "Usage",
    "Verdict",
    "VerdictWarning",
    "Watcher",
    "YamlFile",
    "__version__",
    "add_model_usage",
    "add_reply_counts",
    "all_methods",
    "all_options",
    "begin",
    "breaker",
    "build_resources",
    "builtin_engines",
    "check_corpus_name",
    "check_one_claim",
    "check_replies",
    "check_response",
    "checked_tree",
    "checked_values",
    "close_lite_clients",
    "close_session",
    "convert",
    "copied_rag_tool",
    "data_dir",
    "default_deadline_s",
    "dumps_record",
    "ensure_builtin_indexed",
    "ensure_indexes",
    "factual",
    "finish",
    "get_method",
    "given_evidence",
    "given_resources",
    "hide_endpoints",
    "kept_chars",
    "make_backend",
    "make_tool",
    "mcp_tool",
    "method_class",
    "near_chance",
    "no_text_result",
    "not_counted",
    "offered",
    "option_schema",
    "option_value",
    "options_to_overrides",
    "overloaded_result",
    "parse_claim_lines",
    "passages",
    "redact_text",
    "redact_url",
    "redact_value",
    "remember_endpoints",
    "remember_secrets",
    "remember_settings",
    "render",
    "request_clock",
    "resolve_options",
    "response_label",
    "run_claim",
    "safe_value",
    "scrub_known",
    "settings_from",
    "storage_problem",
    "transcribing",
    "unsafe_reason",
    "upgrade",
    "validate_claim",
    "validate_question",
    "validate_response",
    "validation_problems",
    "watch_builds",
    "watched",
    "watching",
    "with_model_warnings",
]

# Where each name is defined: the module is imported when the name is first read, so a module of the service
# loads only what it uses (the MCP server answers its handshake before the engine is imported).
_WHERE: dict[str, tuple[str, str]] = {
    "Admission": ("factdebate.guard_engine.call", "Admission"),
    "AgentTool": ("factdebate.tools.registry", "AgentTool"),
    "AnswerTooLarge": ("factdebate.util.bounded_body", "AnswerTooLarge"),
    "AnswerTooSlow": ("factdebate.util.bounded_body", "AnswerTooSlow"),
    "BUILTIN_CORPUS": ("factdebate.corpus.builtin", "BUILTIN_CORPUS"),
    "Backend": ("factdebate.llm.base", "Backend"),
    "Begun": ("factdebate.guard_engine.call", "Begun"),
    "CLAIMS": ("factdebate.llm.near_chance", "CLAIMS"),
    "CONVERSATION_ID_PATTERN": ("factdebate.guard_engine.types", "CONVERSATION_ID_PATTERN"),
    "CheckCall": ("factdebate.guard_engine.call", "CheckCall"),
    "ClaimCheck": ("factdebate.core.types", "ClaimCheck"),
    "ClaimEvidence": ("factdebate.guard_engine.types", "ClaimEvidence"),
    "ClaimItem": ("factdebate.run.batch", "ClaimItem"),
    "Client": ("factdebate.util.http_client", "Client"),
    "ConfigError": ("factdebate.core.errors", "ConfigError"),
    "DEFAULT_CHARS": ("factdebate.llm.transcript", "DEFAULT_CHARS"),
    "DataDirError": ("factdebate.core.errors", "DataDirError"),
    "Document": ("factdebate.core.types", "Document"),
    "EndpointUnavailableError": ("factdebate.core.errors", "EndpointUnavailableError"),
    "EventSink": ("factdebate.core.runtime", "EventSink"),
    "EvidenceMode": ("factdebate.guard_engine.types", "EvidenceMode"),
    "FactDebateError": ("factdebate.core.errors", "FactDebateError"),
    "GROUPS": ("factdebate.core.fields", "GROUPS"),
    "GuardClaim": ("factdebate.guard_engine.types", "GuardClaim"),
    "GuardEvidence": ("factdebate.guard_engine.types", "GuardEvidence"),
    "GuardOptions": ("factdebate.guard_engine.types", "GuardOptions"),
    "GuardResult": ("factdebate.guard_engine.types", "GuardResult"),
    "GuardedStream": ("factdebate.guard_engine.stream_policy", "GuardedStream"),
    "Host": ("factdebate.guard_engine.call", "Host"),
    "HttpReply": ("factdebate.util.http_client", "Reply"),
    "InputError": ("factdebate.core.errors", "InputError"),
    "LABEL_ALIASES": ("factdebate.core.types", "LABEL_ALIASES"),
    "Label": ("factdebate.core.types", "Label"),
    "Layer": ("factdebate.settings.sources", "Layer"),
    "Listener": ("factdebate.core.runtime", "Listener"),
    "MAX_EVIDENCE_ITEMS": ("factdebate.guard_engine.types", "MAX_EVIDENCE_ITEMS"),
    "MCPServerConfig": ("factdebate.tools.mcp_config", "MCPServerConfig"),
    "MethodView": ("factdebate.methods.view", "MethodView"),
    "MissingDependencyError": ("factdebate.core.errors", "MissingDependencyError"),
    "NamedEnv": ("factdebate.settings.sources", "NamedEnv"),
    "Option": ("factdebate.settings.options", "Option"),
    "PATTERN": ("factdebate.corpus.names", "PATTERN"),
    "RULES": ("factdebate.response_level.aggregate", "RULES"),
    "Reply": ("factdebate.guard_engine.call", "Reply"),
    "ResolvedGuardOptions": ("factdebate.guard_engine.types", "ResolvedGuardOptions"),
    "Resources": ("factdebate.methods.resources", "Resources"),
    "ResponseVerdict": ("factdebate.core.types", "ResponseVerdict"),
    "RetrievalTool": ("factdebate.tools.registry", "RetrievalTool"),
    "Reviser": ("factdebate.guard_engine.types", "Reviser"),
    "STORAGE": ("factdebate.core.storage_full", "STORAGE"),
    "ScrubWindow": ("factdebate.util.scrub", "ScrubWindow"),
    "SearchEngine": ("factdebate.tools.registry", "SearchEngine"),
    "Services": ("factdebate.methods.resources", "Services"),
    "Settings": ("factdebate.settings.model", "Settings"),
    "Span": ("factdebate.core.types", "Span"),
    "StreamSetting": ("factdebate.llm.openai_stream", "StreamSetting"),
    "StreamingCheck": ("factdebate.guard_engine.stream", "StreamingCheck"),
    "Tier": ("factdebate.guard_engine.types", "Tier"),
    "Tool": ("factdebate.tools.base", "Tool"),
    "Usage": ("factdebate.core.types", "Usage"),
    "Verdict": ("factdebate.core.types", "Verdict"),
    "VerdictWarning": ("factdebate.core.types", "VerdictWarning"),
    "Watcher": ("factdebate.core.observe", "Watcher"),
    "YamlFile": ("factdebate.settings.sources", "YamlFile"),
    "__version__": ("factdebate.core.version", "__version__"),
    "add_model_usage": ("factdebate.core.types", "add_model_usage"),
    "add_reply_counts": ("factdebate.core.types", "add_reply_counts"),
    "all_methods": ("factdebate.methods.base", "all_methods"),
    "all_options": ("factdebate.settings.options", "all_options"),
    "begin": ("factdebate.guard_engine.call", "begin"),
    "breaker": ("factdebate.llm", "breaker"),
    "build_resources": ("factdebate.run.build", "build_resources"),
    "builtin_engines": ("factdebate.run.build", "builtin_engines"),
    "check_corpus_name": ("factdebate.corpus.names", "check_corpus_name"),
    "check_one_claim": ("factdebate.guard_engine.response_check", "check_one_claim"),
    "check_replies": ("factdebate.guard_engine.call", "check_replies"),
    "check_response": ("factdebate.guard_engine.call", "check_response"),
    "checked_tree": ("factdebate.core.textsafe", "checked_tree"),
    "checked_values": ("factdebate.core.textsafe", "checked_values"),
    "close_lite_clients": ("factdebate.scale.lite_copy", "close_lite_clients"),
    "close_session": ("factdebate.util.http_client", "close_session"),
    "convert": ("factdebate.settings.options", "convert"),
    "copied_rag_tool": ("factdebate.scale.lite_copy", "copied_rag_tool"),
    "data_dir": ("factdebate.util.paths", "data_dir"),
    "default_deadline_s": ("factdebate.guard_engine.deadline", "default_deadline_s"),
    "dumps_record": ("factdebate.core.textsafe", "dumps_record"),
    "ensure_builtin_indexed": ("factdebate.corpus.builtin_index", "ensure_builtin_indexed"),
    "ensure_indexes": ("factdebate.run.build", "ensure_indexes"),
    "factual": ("factdebate.response_level.aggregate", "factual"),
    "finish": ("factdebate.guard_engine.call", "finish"),
    "get_method": ("factdebate.methods.base", "get_method"),
    "given_evidence": ("factdebate.tools.given", "given_evidence"),
    "given_resources": ("factdebate.guard_engine.call", "given_resources"),
    "hide_endpoints": ("factdebate.util.scrub", "hide_endpoints"),
    "kept_chars": ("factdebate.guard_engine.stream_policy", "kept_chars"),
    "make_backend": ("factdebate.llm", "make_backend"),
    "make_tool": ("factdebate.run.build", "make_tool"),
    "mcp_tool": ("factdebate.tools.registry", "mcp_tool"),
    "method_class": ("factdebate.methods.base", "method_class"),
    "near_chance": ("factdebate.llm", "near_chance"),
    "no_text_result": ("factdebate.guard_engine.policy", "no_text_result"),
    "not_counted": ("factdebate.guard_engine.clock", "not_counted"),
    "offered": ("factdebate.core.fields", "offered"),
    "option_schema": ("factdebate.settings.options", "option_schema"),
    "option_value": ("factdebate.settings.options", "option_value"),
    "options_to_overrides": ("factdebate.settings.options", "options_to_overrides"),
    "overloaded_result": ("factdebate.guard_engine.overload", "overloaded_result"),
    "parse_claim_lines": ("factdebate.run.batch", "parse_claim_lines"),
    "passages": ("factdebate.guard_engine.evidence", "passages"),
    "redact_text": ("factdebate.util.scrub", "redact_text"),
    "redact_url": ("factdebate.util.scrub", "redact_url"),
    "redact_value": ("factdebate.util.scrub", "redact_value"),
    "remember_endpoints": ("factdebate.util.scrub", "remember_endpoints"),
    "remember_secrets": ("factdebate.util.scrub", "remember_secrets"),
    "remember_settings": ("factdebate.util.scrub", "remember_settings"),
    "render": ("factdebate.prompts", "render"),
    "request_clock": ("factdebate.guard_engine.clock", "request_clock"),
    "resolve_options": ("factdebate.guard_engine.options", "resolve_options"),
    "response_label": ("factdebate.response_level.aggregate", "response_label"),
    "run_claim": ("factdebate.run.claim", "run_claim"),
    "safe_value": ("factdebate.core.textsafe", "safe_value"),
    "scrub_known": ("factdebate.util.scrub", "scrub_known"),
    "settings_from": ("factdebate.settings.load", "settings_from"),
    "storage_problem": ("factdebate.core.storage_full", "storage_problem"),
    "transcribing": ("factdebate.llm.transcript", "transcribing"),
    "unsafe_reason": ("factdebate.core.textsafe", "unsafe_reason"),
    "upgrade": ("factdebate.core.schema", "upgrade"),
    "validate_claim": ("factdebate.run.claim", "validate_claim"),
    "validate_question": ("factdebate.run.response", "validate_question"),
    "validate_response": ("factdebate.run.response", "validate_response"),
    "validation_problems": ("factdebate.settings.load", "validation_problems"),
    "watch_builds": ("factdebate.corpus.progress", "watch_builds"),
    "watched": ("factdebate.core.observe", "watched"),
    "watching": ("factdebate.core.observe", "watching"),
    "with_model_warnings": ("factdebate.llm.near_chance", "with_model_warnings"),
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _WHERE[name]
    try:
        value = getattr(importlib.import_module(module), attribute)
    except AttributeError:  # a submodule the package does not import itself
        value = importlib.import_module(f"{module}.{attribute}")
    globals()[name] = value
    return value
