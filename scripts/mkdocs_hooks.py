"""MkDocs hooks (mkdocs.yml, ``hooks:``): the pages the site shows that docs/ does not hold as files.

- ``index.md`` is the README and ``changelog.md`` CHANGELOG.md, with their links rewritten for the site (the
  README links ``docs/guard.md``; the site's pages sit where docs/ was).
- ``reference/cli.md`` and ``reference/settings.md`` are drawn from the code on each build: the commands and
  their options from the Typer app, the settings from the pydantic models (a method's section from its own
  settings model), so they cannot fall behind it.
- ``reference/http.md``: the service's routes from its own OpenAPI document (``create_app`` over a throwaway
  database), and the routes it leaves out by their handlers' docstrings.
- ``reference/python.md``: one mkdocstrings entry per name of ``factdebate.__all__``, rendered from the
  docstrings (scripts/griffe_sphinx_roles.py makes their Sphinx roles links).
- ``reference/engine.md``: ``factdebate.engine``'s docstring, the names the service imports of the library.
- ``performance-figures.md``: the last recorded run of each benchmark, from benchmarks/results/*.jsonl
  (benchmarks/results_log.py).

They are generated in memory and never written to docs/: `factdebate docs` ships and lists docs/ as it is.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
# A Markdown link's target in the README: docs/<page> becomes <page>, a root file its page (or the repository).
_README_LINK = re.compile(r"\]\((docs/)?([^)\s]+)\)")
_ROOT_PAGES = {"CHANGELOG.md": "changelog.md"}


def _readme_for_site(text: str) -> str:
    def link(match: re.Match[str]) -> str:
        in_docs, target = match.group(1), match.group(2)
        if in_docs or "://" in target or target.startswith("#"):
            return f"]({target})"
        return f"]({_ROOT_PAGES.get(target, target)})"

    return _README_LINK.sub(link, text)


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _html(text: str) -> str:
    """Prose with ``<model>`` and the like shown as written, not read as HTML tags."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cli_reference() -> str:
    """Every command of the console script with its help and options, as its own parser defines them. (Typer
    ships its own copy of click, so the commands are read by what they offer, not by click's classes.)"""
    import typer

    from factdebate.cli.main import app

    lines = ["# Command line reference", "",
             "Every `factdebate` command and its options, drawn from the command-line parser on each build of this "
             "site (`factdebate COMMAND --help` prints the same in a terminal). What a command is for: "
             "[Using factdebate](../usage.md).", ""]

    def walk(command: Any, path: list[str]) -> None:
        ctx = typer.Context(command, info_name=" ".join(path))
        if path[1:]:
            lines.extend([f"## `{' '.join(path)}`", ""])
            if command.help:
                lines.extend([_html(command.help.split("\f")[0].strip()), ""])
            params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False) and p.name != "help"]
            if params:
                lines.extend(["| argument or option | what |", "| --- | --- |"])
                for param in params:
                    if param.param_type_name == "argument":
                        names = f"`{(param.metavar or param.name or '').upper()}`"
                    else:
                        names = ", ".join(f"`{opt}`" for opt in (*param.opts, *param.secondary_opts))
                    lines.append(f"| {names} | {_html(_escape(getattr(param, 'help', None) or ''))} |")
                lines.append("")
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    walk(sub, [*path, name])

    walk(typer.main.get_command(app), ["factdebate"])
    return "\n".join(lines) + "\n"


def _type_name(annotation: Any) -> str:
    text = repr(annotation) if not isinstance(annotation, type) else annotation.__name__
    return text.replace("typing.", "").replace("NoneType", "None")


def _model_rows(model: Any, prefix: str, rows: list[str]) -> None:
    from pydantic import BaseModel
    from pydantic_core import PydanticUndefined

    for name, field in model.model_fields.items():
        key = f"{prefix}{field.alias or name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            _model_rows(annotation, f"{key}.", rows)
            continue
        if field.default_factory is not None:
            default = repr(field.default_factory())
        elif field.default is PydanticUndefined:
            default = "required"
        else:
            default = repr(field.default)
        rows.append(f"| `{key}` | `{_escape(_type_name(annotation))}` | `{_escape(default)}` | "
                    f"{_html(_escape(field.description or ''))} |")


def settings_reference() -> str:
    """Every setting with its type, default and description, from the settings models."""
    from factdebate.methods.base import Method
    from factdebate.settings.model import Settings

    header = ["| setting | type | default | what |", "| --- | --- | --- | --- |"]
    lines = ["# Settings reference", "",
             "Every setting, drawn from the settings models on each build of this site. A setting is written in "
             "a YAML file as its dotted path's sections (`llm:` then `judge:`), in the environment as "
             "`FACTDEBATE_<SECTION>__<FIELD>`; how the layers combine and which settings are flags: "
             "[Configuration](../configuration.md).", ""]
    rows: list[str] = []
    top = {name: field for name, field in Settings.model_fields.items() if name != "methods"}
    for name in top:
        single = type("One", (), {"model_fields": {name: Settings.model_fields[name]}})
        _model_rows(single, "", rows)
    lines.extend(["## General", "", *header, *rows, ""])
    for method, cls in Method.registered().items():
        method_rows: list[str] = []
        _model_rows(cls.settings_model, f"methods.{method}.", method_rows)
        if method_rows:
            lines.extend([f"## Method `{method}`", "", *header, *method_rows, ""])
    return "\n".join(lines) + "\n"


# --- The HTTP API: the service's OpenAPI document, and the routes it leaves out ---

_HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def service_app(folder: Path) -> Any:
    """The service as ``factdebate serve`` builds it, over a throwaway database in ``folder``: its routes and
    their schemas depend on the code, not on a data folder or a key (no route is called to write the page)."""
    from factdebate.server.app import create_app

    return create_app(api_keys=["site-build-key-0123456789"], db_path=folder / "service.sqlite")


def app_routes(app: Any) -> list[tuple[str, str, Any]]:
    """Every (method, path, route) the app answers, its included routers' routes as well; a mount is one
    route with the method ``*``."""
    from fastapi.routing import iter_route_contexts
    from starlette.routing import Mount, Route

    found = []
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        methods = sorted(getattr(route, "methods", None) or ["*"])
        for method in methods:
            if method != "HEAD":  # answered wherever GET is
                found.append((method, route.path if isinstance(route, Route | Mount) else str(route), route))
    return found


def _anchor(model: str) -> str:
    return f"model-{model.lower()}"


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _schema_type(schema: dict[str, Any], models: dict[str, Any]) -> str:
    """A JSON schema's type in a few words, a model by a link to its table."""
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        return f"[{name}](#{_anchor(name)})" if name in models else name
    if "anyOf" in schema or "oneOf" in schema:
        return " or ".join(_schema_type(part, models) for part in schema.get("anyOf", schema.get("oneOf", [])))
    if "const" in schema:
        return f"`{schema['const']!r}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{value}`" for value in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_schema_type(schema.get('items', {}), models)}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"map of {_schema_type(schema['additionalProperties'], models)}"
    return str(kind or "any")


def _field_rows(schema: dict[str, Any], models: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    rows = ["| field | type | required | default | what |", "| --- | --- | --- | --- | --- |"]
    for name, field in schema.get("properties", {}).items():
        default = f"`{_escape(json.dumps(field['default']))}`" if "default" in field else ""
        rows.append(f"| `{name}` | {_escape(_schema_type(field, models))} | {'yes' if name in required else ''} | "
                    f"{default} | {_prose(_escape(field.get('description', '')))} |")
    return rows


def _body_lines(content: dict[str, Any], models: dict[str, Any]) -> list[str]:
    """A request body: its media type and its model, linked, or the fields of a schema written in place."""
    lines = []
    for media, entry in content.items():
        schema = entry.get("schema", {})
        if "properties" in schema:
            lines.extend([f"Request body, `{media}`:", "", *_field_rows(schema, models)])
        else:
            lines.append(f"Request body, `{media}`: {_schema_type(schema, models)}")
        lines.append("")
    return lines


_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def _prose(text: str) -> str:
    """Like :func:`_html`, but code spans are left as written (Markdown shows them literally)."""
    out, at = [], 0
    for match in _CODE_SPAN.finditer(text):
        out.extend([_html(text[at:match.start()]), match.group(0)])
        at = match.end()
    return "".join([*out, _html(text[at:])])


def _models(spec: dict[str, Any]) -> dict[str, Any]:
    """The named schemas: the document's components and the ``$defs`` an inline body schema carries."""
    models = dict(spec.get("components", {}).get("schemas", {}))

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            for name, schema in node.get("$defs", {}).items():
                models.setdefault(name, schema)
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(spec.get("paths", {}))
    return models


def http_reference() -> str:
    """Every route of the service: those of its OpenAPI document with their summary, parameters, request body
    and responses; the others (the web page, metrics, static files) by what their handler says."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="factdebate-site-", ignore_cleanup_errors=True) as folder:
        app = service_app(Path(folder))
        spec = app.openapi()
        routes = app_routes(app)
        spec_url = str(app.openapi_url)
    models = _models(spec)
    lines = ["# HTTP API reference", "",
             "Every route of `factdebate serve`, drawn from the service's own OpenAPI document on each build of "
             "this site (a running service serves the same document at `/openapi.json` and shows it at "
             "`/docs`). What the service is for and how to run it: [The service](../service.md).", "",
             _prose(spec["info"].get("description", "")), ""]
    listed = set()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method not in _HTTP_METHODS:
                continue
            listed.add((method.upper(), path))
            lines.extend([f"## `{method.upper()} {path}`", "", f"**{_prose(operation.get('summary', ''))}**", ""])
            if operation.get("description"):
                lines.extend([_prose(operation["description"]), ""])
            parameters = operation.get("parameters", [])
            if parameters:
                lines.extend(["| parameter | in | type | required | what |", "| --- | --- | --- | --- | --- |"])
                for parameter in parameters:
                    lines.append(f"| `{parameter['name']}` | {parameter['in']} | "
                                 f"{_escape(_schema_type(parameter.get('schema', {}), models))} | "
                                 f"{'yes' if parameter.get('required') else ''} | "
                                 f"{_prose(_escape(parameter.get('description', '')))} |")
                lines.append("")
            if "requestBody" in operation:
                lines.extend(_body_lines(operation["requestBody"].get("content", {}), models))
            lines.extend(["| response | body | what |", "| --- | --- | --- |"])
            for status, response in operation.get("responses", {}).items():
                bodies = [f"`{media}` {_schema_type(entry.get('schema', {}), models)}"
                          for media, entry in response.get("content", {}).items()]
                lines.append(f"| {status} | {_escape(', '.join(bodies))} | "
                             f"{_prose(_escape(response.get('description', '')))} |")
            lines.append("")
    others = [(method, path, route) for method, path, route in routes if (method, path) not in listed]
    if others:
        lines.extend(["## Routes outside the schema", "",
                      "Served beside the API and left out of its OpenAPI document:", "",
                      "| route | what |", "| --- | --- |"])
        for method, path, route in others:
            endpoint = getattr(route, "endpoint", None)
            what = (inspect.getdoc(endpoint) or "").split("\n\n")[0] if endpoint is not None else ""
            if path == spec_url:
                what = what or "This OpenAPI document."
            elif not what and getattr(route, "app", None) is not None:
                what = "Files of the web page (scripts, styles)."
            lines.append(f"| `{method if method != '*' else 'GET'} {path}` | {_prose(_escape(what))} |")
        lines.append("")
    lines.extend(["## Models", "", "The bodies' named schemas, each field with its type and default.", ""])
    for name in sorted(models):
        schema = models[name]
        lines.extend([f"### {name} {{#{_anchor(name)}}}", ""])
        if schema.get("description"):
            lines.extend([_prose(_escape(schema["description"])), ""])
        if "properties" in schema:
            lines.extend([*_field_rows(schema, models), ""])
        else:
            lines.extend([_escape(_schema_type(schema, models)), ""])
    return "\n".join(lines) + "\n"


# --- The Python API: factdebate.__all__, each name rendered by mkdocstrings from its docstring ---

_PYTHON_GROUPS = (
    ("Checking claims, answers and chat replies", lambda obj: callable(obj) and not isinstance(obj, type)
     and getattr(obj, "__module__", "") == "factdebate.api"),
    ("Errors", lambda obj: isinstance(obj, type) and issubclass(obj, Exception)),
    ("Results", lambda obj: (isinstance(obj, type) and hasattr(obj, "model_fields")) or _is_enum(obj)),
    ("Method options", lambda obj: isinstance(obj, type) and hasattr(obj, "__annotations__")
     and hasattr(obj, "__total__")),
)


def _is_enum(obj: Any) -> bool:
    import enum

    return isinstance(obj, type) and issubclass(obj, enum.Enum)


def python_names() -> dict[str, list[str]]:
    """``factdebate.__all__`` by group, in the order the package lists them; a name no group takes (a type alias
    such as ``MethodName``) under "Types"."""
    import factdebate

    groups: dict[str, list[str]] = {title: [] for title, _ in _PYTHON_GROUPS}
    groups["Types"] = []
    for name in factdebate.__all__:
        obj = getattr(factdebate, name)
        title = next((title for title, test in _PYTHON_GROUPS if test(obj)), "Types")
        groups[title].append(name)
    # each coroutine function after its blocking twin (verify, averify), as the usage page pairs them
    first = _PYTHON_GROUPS[0][0]
    groups[first].sort(key=lambda name: (twin := _blocking_twin(getattr(factdebate, name), name), twin != name))
    return {title: names for title, names in groups.items() if names}


def _blocking_twin(obj: Any, name: str) -> str:
    asynchronous = inspect.iscoroutinefunction(obj) or inspect.isasyncgenfunction(obj)
    return name.removeprefix("a") if asynchronous else name


def _entry_paths() -> dict[str, str]:
    """The Griffe extension's map of public names to their entries (one place says where each is read)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("griffe_sphinx_roles", ROOT / "scripts" / "griffe_sphinx_roles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.entry_paths())


def python_reference() -> str:
    paths = _entry_paths()
    lines = ["# Python API reference", "",
             "The names `import factdebate` offers (`factdebate.__all__`), each with its signature and "
             "docstring as the code states them on each build of this site. How they are used: "
             "[Using factdebate](../usage.md) and [the guard](../guard.md).", ""]
    for title, names in python_names().items():
        lines.extend([f"## {title}", ""])
        for name in names:
            lines.extend([f"::: {paths[name]}", ""])
    lines.extend(shared_keywords())
    return "\n".join(lines) + "\n"


def engine_reference() -> str:
    """The module the service reads the library through (factdebate.engine), its names grouped by what they do."""
    return ("# The engine, as the service reads it\n\n"
            "The service (`factdebate serve`, `factdebate mcp`) imports the library through one module, "
            "`factdebate.engine`; import-linter holds it to that. [The architecture](../architecture.md) says why.\n\n"
            "::: factdebate.engine\n"
            "    options:\n"
            "      members: false\n"
            "      show_root_heading: false\n")


def shared_keywords() -> list[str]:
    """The keywords every check function takes (``**options: Unpack[SharedOptions]``), one row each with its
    type and the help its setting gives (the same text as ``factdebate verify --help``)."""
    import html
    import re
    from typing import get_type_hints

    from factdebate.settings.keywords import SharedOptions
    from factdebate.settings.options import shared_options

    said = {option.name: option.help for option in shared_options()}
    said.setdefault("rounds", "Debate rounds of Tool-MAD, the default method (another method's rounds: "
                              "`method_options`).")
    lines = ["## Shared options (`SharedOptions`)", "",
             "Every function above that checks a claim or a response (`verify`, `verify_many`, `check_response`, "
             "`guard`, `guard_stream` and their `a` twins) takes these keywords (`**options: "
             "Unpack[SharedOptions]`, from `factdebate.settings.keywords`), so `mypy` refuses a misspelt one. "
             "`None`, or leaving one out, keeps the config file's value or the default. Each method's own options "
             "go in `method_options` (`MethodOptions`).", "",
             "| keyword | type | what it sets |", "| --- | --- | --- |"]
    for name, hint in get_type_hints(SharedOptions).items():
        shown = str(hint).replace("typing.", "")
        shown = re.sub(r"^Optional\[(.*)\]$", r"\1", shown).replace(" | None", "").replace("|", "\\|")
        text = html.escape(said.get(name, ""), quote=False).replace("|", "\\|")
        lines.append(f"| `{name}` | `{shown}` | {text} |")
    return [*lines, ""]


# --- The latest benchmark figures: benchmarks/results/*.jsonl (benchmarks/results_log.py) ---

RESULTS = ROOT / "benchmarks" / "results"


def _latest_records(folder: Path) -> dict[str, dict[str, Any]]:
    """Each file's last line, as benchmarks/results_log.py's ``latest`` reads it (loaded by path: the hook runs
    outside the package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("results_log", ROOT / "benchmarks" / "results_log.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.latest(folder))


def _figure(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


def performance_figures(folder: Path = RESULTS) -> str:
    lines = ["# Latest benchmark figures", "",
             "The last recorded run of each benchmark, read from `benchmarks/results/` on each build of this site. "
             "A benchmark run with `--record` appends its figures there (one JSON line a run: the command, the "
             "machine, its load, the date and the figures), so this table shows what the command last measured; "
             "what each benchmark measures and how to read it: [Performance](performance.md) and "
             "[the service's sizing](service.md#sizing).", "",
             "| benchmark | figures | machine, load | date | command |", "| --- | --- | --- | --- | --- |"]
    for name, record in _latest_records(folder).items():
        figures = "<br>".join(f"`{_escape(key)}` {_escape(_figure(value))}"
                              for key, value in record.get("figures", {}).items())
        lines.append(f"| {_escape(name)} | {figures} | {_html(_escape(str(record.get('machine', ''))))}, load "
                     f"{_escape(str(record.get('load', '')))} | {_escape(str(record.get('date', '')))} | "
                     f"`{_escape(str(record.get('command', '')))}` |")
    return "\n".join(lines) + "\n"


# The run outputs the results pages show as written (``factdebate report`` and ``compare`` wrote them): each opens on
# the site with what it demonstrates, so that a reader does not take a small run on the tiny model for a result.
RUN_OUTPUT_NOTES = {
    "results/report.md": (
        "The report `factdebate report` wrote for the runs of [the results page](README.md): 25 claims of "
        "`countries` and 30 of `halueval-qa` per method, every role played by the embedded SmolLM2-135M. It "
        "demonstrates the report and what each method costs in calls, tokens and seconds. Its accuracies are "
        "about what answering SUPPORTS to every claim scores: they say nothing about which method checks facts "
        "better."),
    "results/compare/compare.md": (
        "`factdebate compare` on 5 samples of `halueval-qa`, every run on the embedded SmolLM2-135M "
        "([Which method?](../../compare.md) says how it was run). It demonstrates the comparison: the intervals, "
        "the paired tests, the cost axis and the disagreements. On 5 samples every interval spans most of the "
        "range; it says nothing about which method is better."),
}


def on_page_markdown(markdown: str, page: Any, config: MkDocsConfig, files: Files) -> str:
    note = RUN_OUTPUT_NOTES.get(page.file.src_uri)
    if note is None:
        return markdown
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n!!! note \"What this page demonstrates\"\n    {note}\n{rest}"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = {
        "index.md": _readme_for_site(readme),
        "changelog.md": (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
        "reference/cli.md": cli_reference(),
        "reference/settings.md": settings_reference(),
        "reference/http.md": http_reference(),
        "reference/python.md": python_reference(),
        "reference/engine.md": engine_reference(),
        "performance-figures.md": performance_figures(),
    }
    for path, content in pages.items():
        files.append(File.generated(config, path, content=content))
    return files


