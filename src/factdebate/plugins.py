"""The registry of verification methods and what a method declares about itself.

A method is one class, registered by name, that owns:

- ``settings_model``: its pydantic settings model, read from ``Settings.methods.<name>``; the CLI flags,
  the API options, the service's request options and the web page's form are derived from it;
- ``roles``: the model roles it asks (each bound to a model in ``llm.roles``, falling back to the debater);
- ``tools(settings)``: the retrieval tools it will use (built before any model call);
- ``indexes(settings)``: the builtin-corpus indexes (``local``, ``rag``) it opens, through its tools or
  otherwise (MERMAID's tool servers): what ``serve``, ``mcp`` and worker pools build before the first claim;
- ``call_bounds(settings)``: the fewest and most LLM calls one claim can cost, re-asks included;
- ``preflight(settings)``: what would fail every claim, checked before any (a missing or locked file);
- ``for_caller(settings, caller)``: the settings for one caller of the service (state kept across claims,
  such as MERMAID's evidence memory, is narrowed to that caller);
- ``description`` and ``run()``.

This module imports nothing of the package's own but its errors, so the settings can validate method
sections without an import cycle; the built-in methods are found by importing every module of
:mod:`factdebate.methods`.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from factdebate.errors import ConfigError

if TYPE_CHECKING:
    from factdebate.config import Settings
    from factdebate.eval.datasets import Dataset, Sample
    from factdebate.resources import Resources
    from factdebate.runtime import EventSink
    from factdebate.types import Verdict


class MethodSettings(BaseModel):
    """Base of every method's settings model: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


S = TypeVar("S", bound=MethodSettings)


class Method(Generic[S]):
    name: ClassVar[str]
    description: ClassVar[str]
    settings_model: ClassVar[type[MethodSettings]] = MethodSettings
    roles: ClassVar[tuple[str, ...]] = ("debater",)
    # Flat option names (CLI flags, API keywords) are "<prefix><field>"; None: "<name>_" with "_" for "-".
    option_prefix: ClassVar[str | None] = None
    # Extra flat names for a field, kept for old flags and configs: {"field": ("old_name", ...)}.
    option_aliases: ClassVar[dict[str, tuple[str, ...]]] = {}

    def cfg(self, settings: Settings) -> S:
        """This method's validated section of ``settings``."""
        section = settings.methods.get(self.name)
        if section is None:  # registered after the settings were built (a test's method, say)
            section = self.settings_model()
        return section  # type: ignore[return-value]

    def tools(self, settings: Settings) -> set[str]:
        return set()

    def indexes(self, settings: Settings) -> set[str]:
        """The builtin-corpus indexes this method opens: by default those its tools search (none when the
        dataset's evidence replaces them; ``search`` uses ``local`` only on the local engine)."""
        if settings.retrieval.evidence == "given":
            return set()
        kinds = self.tools(settings)
        wanted = {"rag"} & kinds
        if "search" in kinds and settings.retrieval.search == "local" and settings.medical.search == "default":
            wanted.add("local")
        return wanted

    def check(self, settings: Settings) -> None:
        """Raise the usage error (ConfigError, IndexError_...) that ``settings`` are sure to meet, before any
        model call: every command runs this before the first claim (the tools it names are built then too)."""

    def call_bounds(self, settings: Settings) -> tuple[int, int]:
        """(fewest, most) LLM calls for one claim, re-asks included in the most."""
        return 1, 1

    def preflight(self, settings: Settings) -> None:
        """Raise a usage error (InputError, ConfigError) for what would fail every claim and needs no model
        call to find out; run when resources are built, before any claim. Nothing by default."""

    def for_caller(self, settings: Settings, caller: str) -> Settings:
        """The settings one caller of the service runs with (``caller`` is the id of its API key, never the
        key). A method that keeps state across claims narrows it to the caller here, so one caller's claims
        cannot reach another's verdicts. Unchanged by default."""
        return settings

    async def run(self, claim: str, resources: Resources) -> Verdict:
        raise NotImplementedError

    async def run_sample(self, sample: Sample, dataset: Dataset, settings: Settings, resources: Resources,
                         sinks: list[EventSink] | None) -> tuple[dict[str, Any], str | None] | None:
        """An evaluation sample run the method's own way (DPD's task modes): (record fields, prediction in
        the dataset's label set). ``None``: the harness runs the sample the standard way."""
        return None

    @classmethod
    def prefix(cls) -> str:
        return cls.name.replace("-", "_") + "_" if cls.option_prefix is None else cls.option_prefix


METHODS: dict[str, type[Method[Any]]] = {}
_discovered = False

M = TypeVar("M", bound=type[Method[Any]])


def register(cls: M) -> M:
    """Class decorator: ``@register`` on a :class:`Method` subclass with ``name`` and ``description``."""
    if not getattr(cls, "name", "") or not getattr(cls, "description", ""):
        raise TypeError(f"{cls.__name__} needs a name and a description to be registered")
    if "_" in cls.name:  # "_" is how environment variables spell "-" (FACTDEBATE_METHODS__TOOL_MAD__...)
        raise TypeError(f"method name '{cls.name}': use '-' rather than '_'")
    METHODS[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    METHODS.pop(name, None)


def _discover() -> None:
    """Import every module of :mod:`factdebate.methods` once; each built-in registers itself."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    package = importlib.import_module("factdebate.methods")
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")


def all_methods() -> dict[str, type[Method[Any]]]:
    _discover()
    return dict(sorted(METHODS.items()))


def method_class(name: str) -> type[Method[Any]]:
    methods = all_methods()
    if name not in methods:
        raise ConfigError(f"unknown method '{name}'; available: {', '.join(methods)}")
    return methods[name]


def get_method(name: str) -> Method[Any]:
    return method_class(name)()


def descriptions() -> dict[str, str]:
    return {name: cls.description for name, cls in all_methods().items()}

