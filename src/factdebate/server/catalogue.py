"""``GET /v1/methods``: what this server offers, derived from the method registry and the option table, so
the web page draws each method's form from its settings model rather than from a hand-written list, and
picks each method's view by the name the method declares rather than by the method's own name. Each option
comes with its field's title and description, the group it acts on and whether it is one of the method's main
settings; an older alias of an option is accepted by the service but not offered as a second control."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel

from factdebate.engine import Method, MethodView, Option, Settings
from factdebate.server.caps import SpendingCaps


class OptionInfo(BaseModel):
    name: str
    title: str  # the field's title: the form's label
    help: str  # the field's description: the form's help line
    value_schema: dict[str, Any]  # JSON Schema of the value: type, bounds, choices
    default: Any = None
    group: str | None = None  # a key of Catalogue.groups: its section under "More options"
    main: bool = False  # shown first, outside "More options"
    only: str | None = None  # "response": the form shows it only to check a response; "eval": never (evaluations)


class MethodInfo(BaseModel):
    name: str
    description: str
    roles: list[str] = []
    tools: list[str] = []  # with the server's default settings
    options: list[OptionInfo] = []
    view: MethodView = MethodView()  # how its verdict is drawn, as the method declares it (methods/view.py)


class Catalogue(BaseModel):
    methods: list[MethodInfo]
    shared_options: list[OptionInfo]
    tools: list[str]
    search_engines: list[str]
    llms: list[str]
    any_llm: bool
    defaults: dict[str, Any]
    caps: dict[str, int] = {}  # the most a request may ask for (server/caps.py); over a cap is a 422
    groups: dict[str, str] = {}  # what options act on: key -> title, in the order the form shows them


class NearChance(BaseModel):
    """The embedded model's caution (llm/near_chance.py), for the page to show beside any verdict one of
    ``models`` answered (a verdict's usage_by_model): a claim's, and a response's."""

    models: list[str]
    claim: str
    response: str


class PageViews(BaseModel):
    """What the page needs to draw any verdict, with or without a key (the results viewer reads files)."""

    methods: dict[str, MethodView]
    label_aliases: dict[str, str]  # other spellings of the labels, for a results file's gold column
    response_rules: dict[str, str]  # how a response's decided_by reads (response_level/aggregate.py)
    near_chance: NearChance


def page_views() -> PageViews:
    words = MethodView.page_words()
    return PageViews(methods={name: cls.view for name, cls in Method.registered().items()},
                     label_aliases=words.label_aliases,
                     response_rules=words.response_rules,
                     near_chance=NearChance(models=words.embedded_models, claim=words.claim_caution,
                                            response=words.response_caution))


def offered_engines() -> list[str]:
    """The search engines a check can use here: Tavily only when this service has its key, so that nobody
    picks it and learns only after submitting that it cannot run."""
    return ["local", *(["tavily"] if os.environ.get("TAVILY_API_KEY") else []), "wikipedia"]


def catalogue(base: Settings, llms: list[str], any_llm: bool, caps: SpendingCaps | None = None) -> Catalogue:
    data = base.model_dump(mode="json")
    options = {name: opt for name, opt in Option.public_options().items() if opt.alias_of is None}
    infos = {name: OptionInfo(name=name, title=opt.title or name, help=opt.help, value_schema=opt.schema(),
                              default=opt.value_in(data), group=opt.group, main=opt.main,
                              only=opt.only)
             for name, opt in options.items()}
    methods = [MethodInfo(name=name, description=cls.description, roles=list(cls.roles),
                          tools=sorted(cls().tools(base)),
                          options=[infos[n] for n, opt in options.items() if opt.method == name], view=cls.view)
               for name, cls in Method.registered().items()]
    shared = [infos[n] for n, opt in options.items() if opt.method is None]
    defaults = {name: info.default for name, info in infos.items()}
    defaults["max_claim_chars"] = base.max_claim_chars
    defaults["max_response_chars"] = base.response.max_response_chars
    return Catalogue(methods=methods, shared_options=shared, tools=["rag", "search", "none"],
                     search_engines=offered_engines(), llms=llms, any_llm=any_llm,
                     defaults=defaults, caps=(caps or SpendingCaps()).model_dump(),
                     groups=MethodView.page_words().groups)

