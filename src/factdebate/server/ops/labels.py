"""The values a metric's label (server/ops/metrics.py) or a span's name and attributes (server/ops/tracing.py)
take where a request could choose them. Each label multiplies the series of its metric by the values it takes,
and a scrape carries each series' labels: a value taken from a request would let anyone, with no key, grow
``/metrics`` without bound and write their own text into it (and into every trace backend's span names). So
each such value is one of a set fixed by the code or by the operator's settings, never a caller's text:

- the HTTP method: one of :data:`METHODS`, anything else ``other`` (a client may send any token as a method);
- a model: the operator's (in the settings, ``allowed_llms`` or the upstream) by its name, any other
  (``allowed_llms: ["*"]`` lets a caller name any) as :data:`CALLER_CHOSEN`;
- a model's role: the methods' own and those the operator's settings name; a role a caller named (a DPD
  referee, ``judge-<name>``) as :data:`CALLER_CHOSEN`;
- a search tool: the code's own and the MCP tools the operator named; an MCP tool a caller named under a
  ``mcp:<server>/*`` allow-list entry as ``<server>/caller_chosen`` (the server is the operator's).

Route templates are bounded where they are read: a path no route matched is ``unmatched``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from factdebate.util.scrub import hide_endpoints

if TYPE_CHECKING:
    from factdebate.server.options import SettingsResolver

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER = "other"  # a method outside METHODS
CALLER_CHOSEN = "caller_chosen"  # a model, role or tool a request named that the operator did not
UPSTREAM = "upstream"  # the guard's chat model, as its calls are labelled (server/guard/upstream.py)
# Roles the code asks models in, whatever the method: the guard's extraction and checks, the upstream.
_CODE_ROLES = frozenset({"debater", "judge", "scorer", "extractor", UPSTREAM})
_MAX_NAME = 120  # characters of an operator's model name kept in a label


def method_label(method: str) -> str:
    """The HTTP method as a label: one of :data:`METHODS` (case matters, as in HTTP), or ``other``."""
    return method if method in METHODS else OTHER


@dataclass(frozen=True)
class OperatorNames:
    """The models, roles and MCP tools the operator's settings name: the only ones a label shows by name.
    Without settings (the default: a metrics port that only reads the workers' series), every model but the
    upstream is ``caller_chosen``, and only the roles every method asks show."""

    models: frozenset[str] = frozenset()
    roles: frozenset[str] = _CODE_ROLES
    tools: frozenset[str] = frozenset()  # MCP tools as ``<server>/<tool>``
    servers: frozenset[str] = frozenset()  # the MCP servers a caller's run may reach

    @classmethod
    def of(cls, resolver: SettingsResolver) -> OperatorNames:
        """What the service's settings name, read once when the app is made."""
        from factdebate.server.tool_allowlist import ANY_TOOL, configured_tools

        base = resolver.base
        data = base.model_dump(mode="json")
        models = {*resolver.llms, *base.llm.roles.values(), *_section_models(data.get("methods") or {})}
        roles = {*_CODE_ROLES, *_method_roles(), *base.llm.roles, *_panel_roles(base.methods.values())}
        named = [*resolver.allowed_mcp_tools, *configured_tools(data)]
        tools = {entry.removeprefix("mcp:") for entry in named if not entry.endswith(f"/{ANY_TOOL}")}
        tools |= {f"{server}/{tool}" for server, config in base.mcp_servers.items() for tool in config.tools or ()}
        return cls(models=frozenset(models), roles=frozenset(roles), tools=frozenset(tools),
                   servers=frozenset(base.mcp_servers))

    def model(self, model: str) -> str:
        """A model's configured name (any address in it hidden), or ``caller_chosen``."""
        if model == UPSTREAM or model in self.models:
            return hide_endpoints(model)[:_MAX_NAME]
        return CALLER_CHOSEN

    def role(self, role: str) -> str:
        return role if role in self.roles else CALLER_CHOSEN

    def tool(self, tool: str) -> str:
        """A search tool's name, each MCP tool in it (``<server>/<tool>``, alone or wrapped as
        ``given+<server>/<tool>``) kept only when the operator named it."""
        return "+".join(self._tool_part(part) for part in tool.split("+"))

    def _tool_part(self, part: str) -> str:
        server, slash, _ = part.partition("/")
        if not slash or server not in self.servers or part in self.tools:
            return part  # the code's own name (rag, search, given...) or the operator's tool
        return f"{server}/{CALLER_CHOSEN}"


def _method_roles() -> frozenset[str]:
    from factdebate.engine import Method

    return frozenset(role for method in Method.registered().values() for role in method.roles)


def _panel_roles(sections: Iterable[Any]) -> Iterator[str]:
    """The roles a method's own settings give its members (DPD's referees, ``judge-<name>``), as the
    operator's settings name them."""
    for section in sections:
        judge_roles = getattr(section, "judge_roles", None)
        if callable(judge_roles):
            yield from judge_roles().values()


def _section_models(sections: dict[str, Any]) -> Iterator[str]:
    """The models the methods' own sections of the operator's settings bind (``*_llm``, ``*_llms``: DPD's
    ``judge_llms``)."""
    for section in sections.values():
        for key, value in (section or {}).items():
            if key.endswith("_llm") and isinstance(value, str):
                yield value
            elif key.endswith("_llms") and isinstance(value, list):
                yield from (v for v in value if isinstance(v, str))
