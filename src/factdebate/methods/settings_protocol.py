"""What a method reads of the settings, as protocols that ``Settings`` satisfies structurally (mypy checks it).

The settings model sits above the methods, so a method names :class:`RunSettings`, never ``Settings``, and one
returning settings returns the type it was given (:data:`SettingsT`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol, Self, TypeVar

from factdebate.tools.mcp_config import MCPServerConfig


class LLMSection(Protocol):
    """``llm``: how calls to the models are made."""

    @property
    def temperature(self) -> float: ...

    @property
    def roles(self) -> dict[str, str]: ...

    @property
    def concurrency(self) -> int | None: ...

    @property
    def constrain(self) -> Literal["auto", "grammar", "guided", "json_schema", "none"]: ...

    @property
    def one_call_verdict(self) -> bool: ...

    @property
    def number_notes(self) -> bool | Literal["auto"]: ...


class RetrievalSection(Protocol):
    """``retrieval``: where evidence comes from."""

    @property
    def search(self) -> str: ...

    @property
    def corpus(self) -> str: ...

    @property
    def k(self) -> int: ...

    @property
    def max_doc_chars(self) -> int: ...

    @property
    def evidence(self) -> Literal["retrieved", "given", "both"]: ...

    @property
    def search_before(self) -> str | None: ...

    @property
    def encoder(self) -> Literal["int8", "fp32"]: ...

    @property
    def builtin_docs(self) -> int | None: ...

    @property
    def milvus_uri(self) -> str | None: ...

    @property
    def wikipedia_lang(self) -> str: ...

    @property
    def exclude_domains(self) -> list[str]: ...

    @property
    def exclude_fact_checkers(self) -> bool: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


class MedicalSection(Protocol):
    """``medical``: the scholarly search agent."""

    @property
    def search(self) -> Literal["default", "openalex", "pubmed"]: ...


class ResponseSection(Protocol):
    """``response``: response-level checking (DPD's dialogue task drops opinions through it)."""

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


class RunSettings(Protocol):
    """The settings a method runs with: what it reads of ``factdebate.settings.model.Settings``."""

    @property
    def method(self) -> str: ...

    @property
    def llm(self) -> LLMSection: ...

    @property
    def retrieval(self) -> RetrievalSection: ...

    @property
    def medical(self) -> MedicalSection: ...

    @property
    def response(self) -> ResponseSection: ...

    @property
    def methods(self) -> dict[str, Any]:
        """One section per registered method, each its ``settings_model`` (``Method.cfg`` types it)."""

    @property
    def mcp_servers(self) -> dict[str, MCPServerConfig]: ...

    def llm_for(self, role: str) -> str: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


SettingsT = TypeVar("SettingsT", bound=RunSettings)
# What a runner of the run layer accepts (``methods.base.ClaimRunner``): its own ``Settings``.
SettingsT_contra = TypeVar("SettingsT_contra", bound=RunSettings, contravariant=True)
