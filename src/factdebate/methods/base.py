"""The registry of verification methods and what a method declares about itself.

A method is one class, registered by name, that owns:

- ``settings_model``: its pydantic settings model, read from ``Settings.methods.<name>``; the CLI flags,
  the API options, the service's request options and the web page's form are derived from it (each field's
  description is its help; ``offered(operator_only=True)`` from core/fields.py keeps it from callers of
  the service);
- ``roles``: the model roles it asks (each bound to a model in ``llm.roles``, falling back to the debater);
- ``tools(settings)``: the retrieval tools it will use (built before any model call);
- ``indexes(settings)``: the builtin-corpus indexes (``local``, ``rag``) it opens, through its tools or
  otherwise (MERMAID's tool servers): what ``serve``, ``mcp`` and worker pools build before the first claim;
- ``call_bounds(settings)``: the fewest and most LLM calls one claim can cost, re-asks included;
- ``check(settings)`` and ``preflight(settings)``: usage errors and what would fail every claim (a missing
  or locked file), raised before any model call;
- ``for_caller(settings, caller)``: the settings for one caller of the service (state kept across claims,
  such as MERMAID's evidence memory, is narrowed to that caller);
- ``start_run(settings, run)`` and ``in_order(settings)``: state kept across the claims of one evaluation or
  batch, prepared in the run's folder (MERMAID: a memory of the run's own), and whether its claims must
  therefore run one at a time in the run's order;
- ``paper_deviations(settings)``: where those settings make a run differ from the method's paper (stamped
  on every verdict, written into an evaluation's run.json and summary, printed by the terminal);
- ``tools_heterogeneous(settings)``: whether the tools the paper means to differ read different evidence
  (stamped on every verdict and an evaluation's run.json; None for a method that pits no tools);
- ``sample_settings(settings, dataset)``: the settings its evaluation samples on ``dataset`` run with, when
  its own task modes change them (what run.json's deviations are computed from);
- ``sample_unit(settings, dataset)``: whether one of its evaluation samples on ``dataset`` is one claim or a
  text whose claims are extracted and checked one by one (DPD's summarization and dialogue modes), which is
  what ``--dry-run`` multiplies ``call_bounds`` by;
- ``role_models(settings)``: models its own settings bind to roles (DPD's ``judge_llms``), below
  ``llm.roles``;
- ``description`` and ``run()``;

and what the rest of the package learns from it when it registers, so that a new method is one folder
(``methods/<family>/``: the method, its ``prompts/*.j2``, and these declarations; see docs/architecture.md):

- ``events``: its own trace event models (``core.events`` parses them and puts them in the events' schema);
- ``scripted_replies``: what ``--llm scripted:agree|disagree`` answers to its own prompts;
- ``view``: how its verdict is drawn (:class:`factdebate.methods.view.MethodView`: the page's layout, its
  roles, its decision wording, its panels), served in the catalogue and read by the terminal;
- ``call_probe``: how a scripted run reaches its ``call_bounds`` (tests/methods/test_call_bounds.py).

This module imports only the package's lowest layers (errors, event models, the scripted backend's
registry), so the settings can validate method sections without an import cycle; the built-in methods are
found by importing every module of :mod:`factdebate.methods`.
"""

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
from factdebate.core.errors import ConfigError
from factdebate.llm import scripted_library
from factdebate.methods.settings_protocol import SettingsT_contra
from factdebate.methods.view import MethodView
from factdebate.prompts import add_template_dir

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
    """The run layer's entry points, handed to a method that runs evaluation samples its own way (DPD's task
    modes check claims and whole responses). Methods sit below the run layer: they are given these rather
    than importing them."""

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
    """How a scripted run costs exactly a method's most calls: every first reply is unreadable (empty, or
    ``unreadable[prompt]`` where an empty one would take another path), every re-ask is readable
    (``reasks[prompt]``; the shared prompts' are the test's), the labels of ``dissenters`` are re-asked as
    REFUTES (the others as SUPPORTS) so the debaters never agree, under ``settings`` (this method's section).
    ``elsewhere``: the generic run does not fit this method; the test that checks its bounds instead."""

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

    def cfg(self, settings: RunSettings) -> S:
        """This method's validated section of ``settings``."""
        section = settings.methods.get(self.name)
        if section is None:  # registered after the settings were built (a test's method, say)
            section = self.settings_model()
        return section  # type: ignore[return-value]

    def settings_sections(self) -> tuple[str, ...]:
        """The sections of ``settings.methods`` this method reads: its own, plus any other method's it
        borrows. Resuming a run compares these only, so a field added to another method does not refuse it."""
        return (self.name,)

    def tools(self, settings: RunSettings) -> set[str]:
        return set()

    def indexes(self, settings: RunSettings) -> set[str]:
        """The builtin-corpus indexes this method opens: by default those its tools search (none when the
        dataset's evidence replaces them; ``search`` uses ``local`` only on the local engine)."""
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
        """The most rounds one claim's run can take (its ``run_started`` event carries it, so a live view can
        say "round 2 of 3"); None when the method has no rounds worth counting."""
        return None

    def check(self, settings: RunSettings) -> None:
        """Raise the usage error (ConfigError, IndexError_...) that ``settings`` are sure to meet, before any
        model call: every command runs this before the first claim (the tools it names are built then too)."""

    def preflight(self, settings: RunSettings) -> None:
        """Raise a usage error (InputError, ConfigError) for what would fail every claim and needs no model
        call to find out; run when resources are built, before any claim. Nothing by default."""

    def for_caller(self, settings: SettingsT, caller: str) -> SettingsT:
        """The settings one caller of the service runs with (``caller`` is the id of its API key, never the
        key). A method that keeps state across claims narrows it to the caller here, so one caller's claims
        cannot reach another's verdicts. Unchanged by default."""
        return settings

    def start_run(self, settings: RunSettings, run: RunScope) -> dict[str, Any]:
        """Prepare the state this method keeps across the claims of one run (an evaluation or a batch) in
        ``run``'s folder, and check it, before the first claim and any model call; the same call on a resume
        finds that state and keeps it. Returns what the run's record (run.json) should say about it; for
        runs, it takes the place of :meth:`preflight`. Nothing by default."""
        return {}

    def in_order(self, settings: RunSettings) -> str | None:
        """Why the claims of one run must go one at a time, in the run's order (a claim reads what the ones
        before it left), or ``None`` when they may run at once. ``None`` by default."""
        return None

    def paper_deviations(self, settings: RunSettings) -> list[Deviation]:
        """Where a run with ``settings`` departs from the method's paper (defaults included: a default that
        differs from the paper is listed too). None by default: a method with no paper, or none found."""
        return []

    def tools_heterogeneous(self, settings: RunSettings) -> bool | None:
        """Whether the tools this method's paper pits against each other read different evidence (False:
        two of them read the same corpus); None when the method pits no tools against each other."""
        return None

    def sample_settings(self, settings: SettingsT, dataset: Dataset) -> SettingsT:
        """The settings this method's evaluation samples of ``dataset`` run with: ``settings`` unless its
        own task modes (``run_sample``) change them."""
        return settings

    def sample_unit(self, settings: RunSettings, dataset: Dataset) -> Literal["claim", "response"]:
        """What one evaluation sample of ``dataset`` is to this method: the dataset's own unit unless its
        task modes turn a sample into a text whose claims are extracted and checked one by one."""
        return dataset.unit

    def role_models(self, settings: RunSettings) -> dict[str, str]:
        """Models this method's own settings bind to roles (``Settings.llm_for`` reads them after
        ``llm.roles``). None by default."""
        return {}

    async def run(self, claim: str, resources: Resources) -> Verdict:
        raise NotImplementedError  # abstract: every registered method defines run()

    async def run_sample(self, sample: Sample, dataset: Dataset, settings: SettingsT, resources: Resources,
                         sinks: list[EventSink] | None,
                         runner: ClaimRunner[SettingsT]) -> tuple[dict[str, Any], str | None] | None:
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
    """Class decorator: ``@register`` on a :class:`Method` subclass with ``name`` and ``description``. Its
    prompts folder, event models and scripted replies become known with it."""
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
    """Import every module under :mod:`factdebate.methods` once (family folders included); each built-in
    registers itself."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    # The package's folder, walked without importing the package by name (it imports this module).
    for info in pkgutil.walk_packages([str(Path(__file__).parent)], prefix="factdebate.methods."):
        importlib.import_module(info.name)


events.add_event_finder(_discover)  # a trace line of a method's own kind reads back before anything asked


def all_methods() -> dict[str, type[Method[Any]]]:
    _discover()
    return dict(sorted(METHODS.items()))


def _near(name: str, names: list[str]) -> str:
    """" (did you mean tool-mad?)" for 'toolmad', 'Tool_MAD' or a typo: spelling without case, dashes and
    underscores first, then a close match."""
    import difflib

    bare = lambda text: text.lower().replace("-", "").replace("_", "").replace(" ", "")  # noqa: E731
    same = [known for known in names if bare(known) == bare(name)]
    near = same or difflib.get_close_matches(name.lower(), names, n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(near)}?)" if near else ""


def method_class(name: str) -> type[Method[Any]]:
    methods = all_methods()
    if name not in methods:
        raise ConfigError(f"unknown method '{name}'{_near(name, list(methods))}; available: {', '.join(methods)}")
    return methods[name]


def get_method(name: str) -> Method[Any]:
    return method_class(name)()


def descriptions() -> dict[str, str]:
    return {name: cls.description for name, cls in all_methods().items()}

