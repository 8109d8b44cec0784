"""Whether the OpenAI-compatible servers a run will call answer, asked once before any long preparation.

One request per server (its model list) settles it within ``PROBE_TIMEOUT_S``, before a long index build.
``doctor`` shows the same answers as a table."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from factdebate.llm.server_slots import Slots
from factdebate.settings.model import Settings
from factdebate.util.bounded_body import MIB, AnswerTooLarge
from factdebate.util.errors import ConfigError
from factdebate.util.scrub import redact_text

log = logging.getLogger(__name__)

MODEL_LIST_BYTES = 4 * MIB  # a hosted router's list of a few hundred models with descriptions fits
PROBE_TIMEOUT_S = 5.0  # a server that has not answered its model list in 5 s is not one a run can use


@dataclass(frozen=True)
class ServerAnswer:
    where: str  # the server's address as a person may see it (credentials removed)
    outcome: Literal["answers", "busy", "unreachable", "refused_key", "error"]
    detail: str
    method: str = "GET"
    path: str = "/models"
    slots: Slots | None = None  # what a server on this machine said it serves at once (llm/server_slots.py)


def roles(settings: Settings) -> list[str]:
    """The roles the configured method asks for, and any role the settings bind to a model."""
    from factdebate.methods.base import method_class

    return list(dict.fromkeys(["debater", *method_class(settings.method).roles, *settings.llm.roles]))


def served_models(settings: Settings) -> list[str]:
    """The ``openai:`` models the run's roles use (empty: the run calls no model server)."""
    return sorted({settings.llm_for(role).partition(":")[2] for role in roles(settings)
                   if settings.llm_for(role).startswith("openai:")})


def server_urls(settings: Settings) -> list[str]:
    from factdebate.llm.openai_compat import OPENAI_DEFAULT_URL

    return settings.llm.base_urls or [os.environ.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_URL]


def ask_servers(settings: Settings, timeout: float = PROBE_TIMEOUT_S, *,
                completion: bool = True) -> list[ServerAnswer]:
    """One answer per server the run would call: its model list, or with ``completion`` (for one that lists
    none) a one-token completion."""
    from factdebate.util.http_client import fetch_blocking

    models = served_models(settings)
    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    answers = []
    for server in server_urls(settings):
        base = server.rstrip("/")
        where = redact_text(base)
        try:
            method, path = "GET", "/models"
            status, body = fetch_blocking(f"{base}/models", headers, limit=MODEL_LIST_BYTES, seconds=timeout,
                                          what="the model list")
            if completion and status not in (200, 401, 403):  # no list: one token of the model
                method, path = "POST", "/chat/completions"
                status, body = fetch_blocking(f"{base}/chat/completions", headers, json_body=json.dumps({
                    "model": models[0] if models else "", "max_tokens": 1,
                    "messages": [{"role": "user", "content": "ok"}]}).encode(), limit=MODEL_LIST_BYTES,
                    seconds=timeout, what="a one-token answer")
        except AnswerTooLarge as exc:  # it answers, but not as a model server does
            answers.append(ServerAnswer(where, "error", redact_text(f"{exc}: not a model server's answer")))
            continue
        except OSError as exc:
            if connected(exc):  # it took the connection: running, busy with a request (llama-cpp-python)
                answers.append(ServerAnswer(where, "busy", f"it took the connection but did not answer its model "
                                            f"list within {timeout:.0f} s: busy with another request, or slow"))
            else:
                answers.append(ServerAnswer(where, "unreachable", redact_text(
                    f"{why_not(exc)}; waited up to {timeout:.0f} s")))
            continue
        if status in (401, 403):
            answers.append(ServerAnswer(where, "refused_key", f"HTTP {status}", method, path))
        elif status >= 400:
            answers.append(ServerAnswer(where, "error", redact_text(
                f"HTTP {status} to a one-token call of {models[0] if models else 'the model'}: "
                f"{body.decode('utf-8', 'replace')[:200]}"), method, path))
        else:
            listed = body if path == "/models" and status == 200 else b""
            slots = _said_slots(base, listed, headers, timeout) if not settings.llm.max_in_flight else None
            answers.append(ServerAnswer(where, "answers", f"HTTP {status}", method, path, slots))
    return answers


def connected(exc: BaseException) -> bool:
    """Whether a probe that failed had its connection taken (a server that runs but did not answer in time)."""
    from factdebate.llm.openai_compat import never_connected

    return isinstance(exc, TimeoutError) and not never_connected(exc)


def why_not(exc: BaseException) -> str:
    """A failed connection in a few words: the socket's own reason ("connection refused")."""
    import socket

    deepest = exc
    for _ in range(8):
        cause = deepest.__cause__ or deepest.__context__
        if cause is None:
            break
        deepest = cause
    if isinstance(deepest, ConnectionRefusedError):
        return "cannot connect: Connection refused"
    if isinstance(deepest, socket.gaierror):
        return "cannot connect: no such host"
    return str(exc)[:200] or type(exc).__name__


def _said_slots(base: str, listed: bytes, headers: dict[str, str], timeout: float) -> Slots | None:
    """What a server on this machine says it serves at once, from its model list's ``owned_by`` or
    llama-server's ``/props`` (llm/server_slots.py), kept for the process's models (llm/in_flight.py)."""
    from factdebate.llm import in_flight, server_slots
    from factdebate.util.http_client import fetch_blocking

    if not in_flight.is_loopback(base):
        return None
    owner = _owner(listed)
    said = server_slots.from_owner(owner)
    if said is None:  # not a kind its model list tells apart: llama-server's /props
        try:
            status, props = fetch_blocking(server_slots.props_url(base), headers, limit=server_slots.PROPS_BYTES,
                                           seconds=min(timeout, server_slots.ASK_TIMEOUT_S), what="its /props")
            said = server_slots.from_props_reply(status, props.decode("utf-8", "replace"))
        except OSError:  # no answer in time or in size: nothing kept, the first model call
            return None  # asks again (llm/in_flight.py)
    in_flight.remember(base, said)
    return said


def _owner(listed: bytes) -> str:
    """The model list's first ``owned_by`` ("" when it is no list)."""
    if listed:
        try:
            models = json.loads(listed).get("data")
        except (ValueError, AttributeError, RecursionError):  # not JSON, not an object, nested past the parser
            return ""
        owners = sorted({str(m.get("owned_by") or "") for m in models if isinstance(m, dict)}) \
            if isinstance(models, list) else []
        return owners[0] if owners else ""
    return ""


class ModelServerDown(ConfigError):
    """A model server the run needs does not answer (a usage error; exit 3 under ``--fail-on``)."""


def sent_one_at_a_time(settings: Settings, busy: Sequence[ServerAnswer] = ()) -> list[str]:
    """The model servers on this machine sent one request at a time because ``llm.max_in_flight`` is unset
    (docs/service.md, Sizing); ``busy`` ones, not asked, are left out."""
    from factdebate.llm.in_flight import is_loopback, learned

    if settings.llm.max_in_flight or not served_models(settings):
        return []
    asked_later = {answer.where for answer in busy}
    return [where for url in server_urls(settings) if is_loopback(url) and not learned(url)
            and (where := redact_text(url.rstrip("/"))) not in asked_later]


def said_several_at_once(settings: Settings) -> list[tuple[str, Slots]]:
    """The model servers on this machine that said they serve several requests at once, with what they said."""
    from factdebate.llm.in_flight import learned

    if settings.llm.max_in_flight or not served_models(settings):
        return []
    return [(redact_text(url.rstrip("/")), said) for url in server_urls(settings)
            if (said := learned(url)) is not None and said.count > 1]


def check_model_servers(settings: Settings, timeout: float = PROBE_TIMEOUT_S) -> list[ServerAnswer]:
    """Raise, in one line, when a server the run needs cannot be reached or refuses the key; any other answer
    means it runs. Servers that did not answer in time are busy, returned for :func:`busy_note`."""
    models = served_models(settings)
    if not models:
        return []
    from factdebate.llm import make_backend

    endpoint = settings.llm.base_urls[0] if settings.llm.base_urls else None
    for model in models:  # a missing key is named first (building a backend opens no connection)
        make_backend(f"openai:{model}", base_url=endpoint)
    busy = []
    for answer in ask_servers(settings, timeout, completion=False):
        if answer.outcome == "busy":
            busy.append(answer)
        if answer.outcome == "unreachable":
            raise ModelServerDown(f"the model server at {answer.where} does not answer ({answer.detail}): start it, "
                              "or point OPENAI_BASE_URL (or llm.base_urls) at one that runs; nothing was prepared "
                              "or run")
        if answer.outcome == "refused_key":
            raise ConfigError(f"the model server at {answer.where} refused the key ({answer.detail}): set "
                              "OPENAI_API_KEY to a key it accepts; nothing was prepared or run")
    return busy


def busy_note(answer: ServerAnswer) -> str:
    """What a command says of a server the probe found busy: it runs; its calls wait their turn."""
    return f"note: the model server at {answer.where} runs but is busy ({answer.detail}); its calls wait their turn"
