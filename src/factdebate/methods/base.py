"""The registry of verification methods and what a method declares about itself.

A method is one :class:`Method` subclass, registered by name, in a folder of its own with its prompts
(docs/architecture.md). Its ``settings_model`` is the source of its CLI flags, API options, request options
and form controls; its other members (each documented on :class:`Method`) declare its roles, tools, indexes,
call bounds, checks, per-caller and per-run state, paper deviations and evaluation units, and what the rest of
the package learns when it registers: its trace ``events``, ``scripted_replies``, ``view`` and ``call_probe``.

This module imports only the package's lowest layers, so the settings can validate method sections without an
import cycle; the built-in methods are found by importing every module of :mod:`factdebate.methods`."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from factdebate.core import events
from factdebate.llm import scripted_library
from factdebate.methods.settings_protocol import SettingsT_contra
from factdebate.methods.view import MethodView
from factdebate.prompts import add_template_dir
from factdebate.util.errors import ConfigError

if TYPE_CHECKING:
    from factdebate.core.dataset_types import Dataset, Sample
    from factdebate.core.deviations import Deviation
    from factdebate.core.events import BaseEvent
    from factdebate.core.runtime import EventSink
    from factdebate.core.types import ResponseVerdict, Verdict
    from factdebate.llm.scripted_library import ScriptedReply
    from factdebate.methods.resources import Resources, RunScope
    from factdebate.methods.settings_protocol import RunSettings, SettingsT


class ClaimRunner(Protocol[SettingsT_contra]):
    """The run layer's entry points, handed to a method that runs evaluation samples its own way."""

    async def claim(self, claim: str, settings: SettingsT_contra, resources: Resources, *,
                    sinks: list[EventSink] | None = None) -> Verdict: ...

    async def response(self, response: str, settings: SettingsT_contra, resources: Resources, *,
                       question: str | None = None,
                       sinks: list[EventSink] | None = None, context: str | None = None) -> ResponseVerdict: ...


class MethodSettings(BaseModel):
    """Base of every method's settings model: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


S = TypeVar("S", bound=MethodSettings)


@dataclass(frozen=True)
class CallProbe:
    """How a scripted run costs exactly a method's most calls: every first reply unreadable (empty, or
    ``unreadable[prompt]``), every re-ask readable (``reasks[prompt]``), ``dissenters`` re-asked as REFUTES
    so the debaters never agree. ``elsewhere``: the test that checks its bounds instead."""

    reasks: Mapping[str, str] = field(default_factory=dict)
    unreadable: Mapping[str, str] = field(default_factory=dict)
    dissenters: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    elsewhere: str = ""


class Method(Generic[S]):
    name: ClassVar[str]
    description: ClassVar[str]
    settings_model: ClassVar[type[MethodSettings]] = MethodSettings
    roles: ClassVar[tuple[str, ...]] = ("debater",)
    # Flat option names (CLI flags, API keywords) are "<prefix><field>"; None: "<name>_" with "_" for "-".
    option_prefix: ClassVar[str | None] = None
    # Extra flat names for a field, kept for old flags and configs: {"field": ("old_name", ...)}.
    option_aliases: ClassVar[dict[str, tuple[str, ...]]] = {}
    # How its verdict is drawn (methods/view.py): the generic columns of turns unless it says otherwise.
    view: ClassVar[MethodView] = MethodView()
    # Its own trace event kinds, beyond the shared ones of core/events.py.
    events: ClassVar[tuple[type[BaseEvent], ...]] = ()
    # The scripted backend's replies to its own prompts, by prompt name (re-asks included).
    scripted_replies: ClassVar[Mapping[str, ScriptedReply]] = {}
    # Required of every method: tests/methods/test_call_bounds.py checks its call_bounds with it.
    call_probe: ClassVar[CallProbe | None] = None

    @staticmethod
    def registered() -> dict[str, type[Method[Any]]]:
        """Every registered method by name, sorted; the built-in families register when this is first read."""
        _discover()
        return dict(sorted(METHODS.items()))

    @staticmethod
    def named(name: str) -> Method[Any]:
        """The registered method ``name``; a ``ConfigError`` with the nearest names for an unknown one."""
        return method_class(name)()

    def cfg(self, settings: RunSettings) -> S:
        """This method's validated section of ``settings``."""
        section = settings.methods.get(self.name)
        if section is None:  # registered after the settings were built (a test's method, say)
            section = self.settings_model()
        return section  # type: ignore[return-value]

    def settings_sections(self) -> tuple[str, ...]:
        """The sections of ``settings.methods`` this method reads (resuming a run compares these only)."""
        return (self.name,)

    def tools(self, settings: RunSettings) -> set[str]:
        return set()

    def indexes(self, settings: RunSettings) -> set[str]:
        """The builtin-corpus indexes this method opens: by default those its tools search."""
        if settings.retrieval.evidence == "given":
            return set()
        kinds = self.tools(settings)
        wanted = {"rag"} & kinds
        if "search" in kinds and settings.retrieval.search == "local" and settings.medical.search == "default":
            wanted.add("local")
        return wanted

    def call_bounds(self, settings: RunSettings) -> tuple[int, int]:
        """(fewest, most) LLM calls for one claim, re-asks included in the most."""
        return 1, 1

    def most_rounds(self, settings: RunSettings) -> int | None:
        """The most rounds one claim's run can take (for "round 2 of 3"); None without rounds."""
        return None

    def check(self, settings: RunSettings) -> None:
        """Raise the usage error ``settings`` are sure to meet; every command runs this before the first claim."""

    def preflight(self, settings: RunSettings) -> None:
        """Raise a usage error for what would fail every claim, when resources are built. Nothing by default."""

    def for_caller(self, settings: SettingsT, caller: str) -> SettingsT:
        """The settings one caller (its API key's id) runs with, state kept across claims narrowed to it."""
        return settings

    def start_run(self, settings: RunSettings, run: RunScope) -> dict[str, Any]:
        """Prepare and check the state kept across one run's claims in ``run``'s folder (a resume keeps it),
        before any model call; returns what run.json should say of it. For runs, in place of :meth:`preflight`."""
        return {}

    def in_order(self, settings: RunSettings) -> str | None:
        """Why one run's claims must go one at a time in order; ``None`` (the default) when they may run at once."""
        return None

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        """Where a run with ``settings`` (defaults included) departs from the method's paper."""
        return []

    def tools_heterogeneous(self, settings: RunSettings) -> bool | None:
        """Whether the tools the paper pits against each other read different evidence; None if none."""
        return None

    def sample_settings(self, settings: SettingsT, dataset: Dataset) -> SettingsT:
        """The settings its evaluation samples of ``dataset`` run with, where its task modes change them."""
        return settings

    def sample_unit(self, settings: RunSettings, dataset: Dataset) -> Literal["claim", "response"]:
        """What one evaluation sample of ``dataset`` is to this method: by default the dataset's unit."""
        return dataset.unit

    def role_models(self, settings: RunSettings) -> dict[str, str]:
        """Models this method's own settings bind to roles, read after ``llm.roles``."""
        return {}

    async def run(self, claim: str, resources: Resources) -> Verdict:
        raise NotImplementedError  # abstract: every registered method defines run()

    async def run_sample(self, sample: Sample, dataset: Dataset, settings: SettingsT, resources: Resources,
                         sinks: list[EventSink] | None,
                         runner: ClaimRunner[SettingsT]) -> tuple[dict[str, Any], str | None] | None:
        """An evaluation sample run the method's own way: (record fields, prediction); ``None``: the usual way."""
        return None

    @classmethod
    def prefix(cls) -> str:
        return cls.name.replace("-", "_") + "_" if cls.option_prefix is None else cls.option_prefix


METHODS: dict[str, type[Method[Any]]] = {}
_discovered = False

M = TypeVar("M", bound=type[Method[Any]])


def register(cls: M) -> M:
    """Class decorator for a :class:`Method`; its prompts folder, event models and scripted replies with it."""
    if not getattr(cls, "name", "") or not getattr(cls, "description", ""):
        raise TypeError(f"{cls.__name__} needs a name and a description to be registered")
    if "_" in cls.name:  # "_" is how environment variables spell "-" (FACTDEBATE_METHODS__TOOL_MAD__...)
        raise TypeError(f"method name '{cls.name}': use '-' rather than '_'")
    source = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if source:  # a method from outside methods/ brings the prompts folder beside its module
        add_template_dir(Path(source).parent / "prompts")
    for model in cls.events:
        events.register_event(model)
    scripted_library.add_replies(cls.scripted_replies)
    METHODS[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    cls = METHODS.pop(name, None)
    if cls is None:
        return
    others = list(METHODS.values())
    for model in cls.events:
        if not any(model in other.events for other in others):
            events.unregister_event(model)
    shared = {prompt for other in others for prompt in other.scripted_replies}
    scripted_library.remove_replies([prompt for prompt in cls.scripted_replies if prompt not in shared])


def _discover() -> None:
    """Import every module under :mod:`factdebate.methods` once; each built-in registers itself."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    # The package's folder, walked without importing the package by name (it imports this module).
    for info in pkgutil.walk_packages([str(Path(__file__).parent)], prefix="factdebate.methods."):
        importlib.import_module(info.name)


events.add_event_finder(_discover)  # a trace line of a method's own kind reads back before anything asked


def _near(name: str, names: list[str]) -> str:
    """" (did you mean tool-mad?)" for 'toolmad', 'Tool_MAD' or a typo."""
    import difflib

    bare = lambda text: text.lower().replace("-", "").replace("_", "").replace(" ", "")  # noqa: E731
    same = [known for known in names if bare(known) == bare(name)]
    near = same or difflib.get_close_matches(name.lower(), names, n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(near)}?)" if near else ""


def method_class(name: str) -> type[Method[Any]]:
    methods = Method.registered()
    if name not in methods:
        raise ConfigError(f"unknown method '{name}'{_near(name, list(methods))}; available: {', '.join(methods)}")
    return methods[name]


def descriptions() -> dict[str, str]:
    return {name: cls.description for name, cls in Method.registered().items()}

