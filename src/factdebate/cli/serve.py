"""``factdebate serve`` and ``factdebate mcp``. Heavy imports (FastAPI, uvicorn, the MCP SDK) happen inside
the commands so the rest of the CLI starts fast and works without the ``serve`` extra."""

from __future__ import annotations

import errno
import ipaddress
import socket
from pathlib import Path
from typing import Annotated, Any

import typer

from factdebate.cli.options import with_option_flags
from factdebate.util.errors import ConfigError, MissingDependencyError

Opt = typer.Option

MIN_KEY_CHARS = 16  # the shortest API key `serve` starts with
MAX_SERVE_WORKERS = 64  # server processes, each with its own models: more is a typo, not a machine


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_port_free(host: str, port: int) -> None:
    """Bind every address ``host`` resolves to and let go, so a busy port is one line, exit 2, before anything loads."""
    if not 0 <= port <= 65535:  # getaddrinfo would wrap it round rather than refuse it
        raise ConfigError(f"--port {port} is not a TCP port (0 to 65535)")
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        addresses = {(info[0], info[4]) for info in socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                                        flags=socket.AI_PASSIVE)}
        for family, address in addresses:
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: TIME_WAIT is no obstacle
                if family == socket.AF_INET6:
                    probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                probe.bind(address)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"cannot serve on {where}: the address is already in use (another server is "
                              "listening there); stop it or choose another --port") from None
        raise ConfigError(f"cannot serve on {where}: {exc.strerror or exc}") from None


@with_option_flags(skip={"concurrency"}, scopes=("response",))  # a server checks claims and responses
def serve(
    host: Annotated[str, Opt(help="Address to bind; anything but loopback exposes the service.")] = "127.0.0.1",
    port: Annotated[int, Opt(help="TCP port.")] = 8000,
    config: Annotated[Path | None, Opt("--config", "-c", help="Verification settings YAML (as for verify).")] = None,
    service_config: Annotated[Path | None, Opt(help="Service settings YAML: keys, limits, CORS, storage.")] = None,
    db: Annotated[Path | None, Opt(help="SQLite file for batch jobs (default: in the data directory).")] = None,
    no_auth: Annotated[bool, Opt("--no-auth", help="Serve without API keys (loopback only).")] = False,
    log_level: Annotated[str, Opt(help="uvicorn log level.")] = "info",
    workers: Annotated[int, Opt(min=1, max=MAX_SERVE_WORKERS, help="Server processes; more than one share limits, "
                                "caps and batches through SQLite "
                                "(factdebate docs scale#the-service-in-several-processes).")] = 1,
    state_db: Annotated[str | None, Opt(help="Database shared by replicas: sqlite:///PATH (one machine) or "
                                        "postgresql://user@host:5432/db (several; password via PGPASSWORD). "
                                        "Also $FACTDEBATE_STATE_DB.")] = None,
    guard_upstream: Annotated[str | None, Opt(help="OpenAI-compatible base URL (ending in /v1) of the chat model "
                                              "POST /v1/chat/completions forwards to and fact-checks (guard.upstream; "
                                              "its key: $FACTDEBATE_GUARD_UPSTREAM_KEY; "
                                              "factdebate docs guard#the-chat-proxy-post-v1chatcompletions).")] = None,
    metrics_port: Annotated[int | None, Opt(help="Serve Prometheus' /metrics without a key on this port of its own "
                                            "(on metrics_host, default 127.0.0.1; factdebate docs "
                                            "service#running-it-in-production).")] = None,
    *,
    options: dict[str, Any],
) -> None:
    """Run the HTTP API and the web page. The verification flags (the same as verify's) set the server's
    defaults, on top of --config; a request may still choose among what the server offers."""
    try:
        import uvicorn  # noqa: F401  (missing: the serve extra is not installed, said before anything loads)

        from factdebate.server.app import create_app
        from factdebate.server.config import load_service_config
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "fastapi", "serve") from exc
    if no_auth and not _is_loopback(host):
        raise ConfigError("--no-auth is only allowed on a loopback address; configure API keys instead")
    if guard_upstream is not None:
        import os

        # The flag outranks the file and the environment; through the environment it also reaches the workers.
        os.environ["FACTDEBATE_GUARD__UPSTREAM"] = guard_upstream
    settings = load_service_config(service_config, config_file=config, db_path=db, state_db=state_db,
                                   allow_anonymous=True if no_auth else None, metrics_port=metrics_port)
    if options:
        settings = settings.model_copy(update={"defaults": {**settings.defaults, **options}})
    if not settings.api_keys and not settings.allow_anonymous:
        raise ConfigError("no API keys configured: set FACTDEBATE_API_KEYS=key1,key2 (or api_keys in "
                          "--service-config), or use --no-auth for a local trial")
    short = sum(len(key) < MIN_KEY_CHARS for key in settings.key_values())
    if short:  # a key of a few characters is guessed in a few requests; the key itself is never printed
        raise ConfigError(f"{short} API key(s) are shorter than {MIN_KEY_CHARS} characters: use long random keys in "
                          "FACTDEBATE_API_KEYS (or api_keys), e.g. python -c 'import secrets; "
                          "print(secrets.token_urlsafe(24))'")
    check_port_free(host, port)  # before start-up work, for one process or --workers N alike
    if settings.metrics_port is not None:
        if settings.metrics_port == port and settings.metrics_host == host:
            raise ConfigError(f"--metrics-port {port} is the service's own port: choose another")
        try:
            check_port_free(settings.metrics_host, settings.metrics_port)
        except ConfigError as exc:  # its message names --port: this is the other one
            raise ConfigError(str(exc).replace("choose another --port", "choose another --metrics-port")
                              .replace("cannot serve on", "cannot serve the metrics on")) from None
    if workers > 1:
        settings = settings.model_copy(update={"shared_state": True})
    app = create_app(settings, exit_within_s=settings.shutdown_grace_s)
    from factdebate.run.build import ensure_indexes
    from factdebate.run.model_servers import busy_note, check_model_servers, said_several_at_once, sent_one_at_a_time

    busy = []
    try:  # asked once before the build; a service may start before its model server: said, not fatal
        busy = check_model_servers(app.state.service.resolver.base)
    except ConfigError as exc:
        typer.echo(f"warning: {str(exc).removesuffix('; nothing was prepared or run')}; the service starts, and "
                   "its checks fail until then", err=True)
    for where, said in said_several_at_once(app.state.service.resolver.base):
        typer.echo(f"note: the model server at {where} is sent up to {said.count} requests at once, as it said "
                   f"({said.said_by}; llm.max_in_flight unset)", err=True)
    for answer in busy:
        typer.echo(busy_note(answer), err=True)
    for where in sent_one_at_a_time(app.state.service.resolver.base, busy):
        typer.echo(f"note: the model server at {where} is on this machine and did not say how many requests it "
                   "serves at once, so it is sent one request at a time (llm.max_in_flight unset); if it serves "
                   "several at once (vLLM, llama-server -np N), set llm.max_in_flight to its slots "
                   "(FACTDEBATE_LLM__MAX_IN_FLIGHT): one at a time, checks wait on each other and a guarded reply "
                   "took twice the CPU (factdebate docs service#sizing)",
                   err=True)
    # Before listening: no first request waits minutes (the vectors come in the background, but for workers,
    # which copy the index as they start).
    ensure_indexes(app.state.service.resolver.base, wait=workers > 1)
    typer.echo(f"factdebate serving on http://{host}:{port}/ (API under /v1, reference at /docs)"
               + (f" with {workers} worker processes" if workers > 1 else "")
               + f"; state in {app.state.service.store.location}", err=True)
    if workers > 1:
        from factdebate.scale.lite_copy import close_lite_clients

        close_lite_clients()  # the workers copy the Milvus Lite folder: this process lets go of it first
        _serve_workers(settings, workers, host, port, log_level)
        return
    from factdebate.server.ops.workers import serve_app

    serve_app(app, host, port, log_level, settings.shutdown_grace_s)


def _serve_workers(settings: Any, workers: int, host: str, port: int, log_level: str) -> None:
    import os
    import shutil
    import tempfile

    import uvicorn

    from factdebate.server.ops.metrics import MULTIPROC_ENV, Metrics, start_metrics_port
    from factdebate.server.ops.workers import CONFIG_ENV, write_worker_config
    from factdebate.util.child_python import protect_spawned_children

    # The workers' metrics added up (server/ops/metrics.py): each writes its own in this folder, and the metrics port
    # is this process's, reading them all.
    metrics_dir = tempfile.mkdtemp(prefix="factdebate-metrics-")
    os.environ[MULTIPROC_ENV] = metrics_dir
    stop_metrics = (start_metrics_port(Metrics(), settings.metrics_host, settings.metrics_port)
                    if settings.metrics_port else None)
    path = write_worker_config(settings.model_copy(update={"metrics_port": None}))
    os.environ[CONFIG_ENV] = str(path)
    # uvicorn starts its workers with multiprocessing's spawn (``python -c``), which would put the current
    # folder first on their path: they inherit our environment, so it says not to.
    protect_spawned_children()
    try:
        uvicorn.run("factdebate.server.ops.workers:app_from_env", factory=True, workers=workers, host=host, port=port,
                    log_level=log_level, proxy_headers=False, server_header=False,
                    timeout_graceful_shutdown=settings.shutdown_grace_s)
    finally:
        path.unlink(missing_ok=True)
        if stop_metrics is not None:
            stop_metrics()
        shutil.rmtree(metrics_dir, ignore_errors=True)


def mcp(
    config: Annotated[Path | None, Opt("--config", "-c", help="Verification settings YAML (as for verify).")] = None,
    allow_mcp_tool: Annotated[list[str] | None, Opt(
        "--allow-mcp-tool", metavar="mcp:SERVER/TOOL",
        help="An MCP server's tool (mcp:SERVER/TOOL, or mcp:SERVER/* for all its tools) from the config's "
             "mcp_servers that callers may reach, MERMAID's executor included; repeat for more. None by default: "
             "only factdebate's own tool servers.")] = None,
    http: Annotated[bool, Opt("--http", help="Serve streamable HTTP at http://HOST:PORT/mcp (one server for "
                                             "many agents, behind the service's API keys) instead of stdio.")] = False,
    host: Annotated[str, Opt(help="With --http: address to bind; anything but loopback exposes it.")] = "127.0.0.1",
    port: Annotated[int, Opt(help="With --http: TCP port.")] = 8001,
    service_config: Annotated[Path | None, Opt(help="With --http: service settings YAML (api_keys, "
                                                    "allowed_mcp_tools), as for serve.")] = None,
    no_auth: Annotated[bool, Opt("--no-auth", help="With --http: serve without API keys (loopback only).")] = False,
) -> None:
    """Serve fact checks to an agent or chatbot over MCP: stdio (the client starts this process), or with
    --http streamable HTTP for many agents. The handshake is answered at once; the built-in index is prepared
    in the background (a tool that needs it says so until it is ready), and any number of these processes
    may share one data folder. Tools (read-only, open-world):

    check_answer    your reply (and the passages you used) -> per claim its label, span,
                    evidence quotes and a correction; tier and deadline_s within the operator's caps
    verify_claim    one claim -> label, how it was decided, reasons, each round's evidence
    search_evidence passages for a query from the search engine or the vector index, judging nothing
    check_response  a long answer claim by claim with the full method (no deadline)"""
    try:
        from factdebate.server.mcp.server import run_stdio
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "mcp", "serve") from exc
    from factdebate.server.tool_allowlist import check_allow_entry
    from factdebate.settings.config_file import check_named

    check_named(config)  # the tools read it once the server runs: a missing file is said here, in one line
    try:
        allowed = [check_allow_entry(entry) for entry in allow_mcp_tool or []]
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--allow-mcp-tool") from None
    if not http:
        if service_config is not None or no_auth:
            raise typer.BadParameter("only with --http (stdio has no callers to tell apart)",
                                     param_hint="--service-config/--no-auth")
        run_stdio(config, allowed)
        return
    _mcp_http(config, allowed, host, port, service_config, no_auth)


def _mcp_http(config: Path | None, allowed: list[str], host: str, port: int, service_config: Path | None,
              no_auth: bool) -> None:
    """``mcp --http``: the keys checked as ``serve`` checks them, then the server started."""
    from factdebate.server.config import load_service_config
    from factdebate.server.mcp.http import run_http
    from factdebate.server.mcp.sessions import SessionLedger
    from factdebate.server.security import KeyRing, RateLimiter

    if no_auth and not _is_loopback(host):
        raise ConfigError("--no-auth is only allowed on a loopback address; configure API keys instead")
    settings = load_service_config(service_config, allow_anonymous=True if no_auth else None)
    keys = settings.key_values()
    if not keys and not settings.allow_anonymous:
        raise ConfigError("no API keys configured: set FACTDEBATE_API_KEYS=key1,key2 (or api_keys in "
                          "--service-config), or use --no-auth for a local trial")
    short = sum(len(key) < MIN_KEY_CHARS for key in keys)
    if short:  # the key itself is never printed
        raise ConfigError(f"{short} API key(s) are shorter than {MIN_KEY_CHARS} characters: use long random keys")
    check_port_free(host, port)
    allowed = list(dict.fromkeys([*settings.allowed_mcp_tools, *allowed]))
    typer.echo(f"factdebate MCP serving on http://{host}:{port}/mcp"
               + (" without API keys" if settings.allow_anonymous else ""), err=True)
    # Each key's tool calls, limited as serve limits its requests (one process: the buckets are its own).
    limiter = RateLimiter(settings.rate_limit_per_minute, settings.rate_burst)
    ledger = SessionLedger(settings.mcp_sessions_per_key, settings.mcp_idle_s, settings.mcp_unused_idle_s)
    run_http(config, allowed, KeyRing(keys, allow_anonymous=settings.allow_anonymous), host=host, port=port,
             limiter=limiter, ledger=ledger, max_sessions=settings.mcp_max_sessions)


def register_service(app: typer.Typer) -> None:
    app.command()(serve)
    # The listing's line (the docstring's first paragraph ended mid-list under "Tools (read-only, open-world):").
    app.command(short_help="Serve fact checks to an agent or chatbot over MCP (check_answer, verify_claim, "
                           "search_evidence, check_response): stdio, or --http for many agents.")(mcp)
