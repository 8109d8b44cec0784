"""``factdebate stand-in-upstream``: an OpenAI-compatible chat model on this machine that answers every request
with the text it is given, so that ``factdebate serve --guard-upstream`` can be tried with no model and no key
(factdebate docs ways/proxy#offline-in-three-lines). FastAPI and uvicorn are imported inside the command, as
serve's are."""

from __future__ import annotations

from typing import Annotated

import typer

from factdebate.cli.serve import check_port_free
from factdebate.util.errors import InputError, MissingDependencyError

Opt = typer.Option


def stand_in_upstream(
    says: Annotated[str, Opt("--says", help="The text every chat completion answers, whole or streamed a word a "
                                            "chunk, whatever was asked.")],
    port: Annotated[int, Opt(help="TCP port.")] = 9000,
    host: Annotated[str, Opt(help="Address to bind; anything but loopback exposes it.")] = "127.0.0.1",
) -> None:
    """Serve a stand-in chat model: POST /v1/chat/completions answers every request with the --says text (plain
    or streamed) and GET /v1/models lists one model, so the chat proxy can be tried offline with `factdebate serve
    --guard-upstream http://127.0.0.1:PORT/v1` (factdebate docs ways/proxy#offline-in-three-lines)."""
    if not says.strip():  # an empty answer would be checked as no claim at all: nothing to see
        raise InputError('--says is empty: give the text every answer is, e.g. --says "The Eiffel Tower was '
                         'finished in 1899. It stands in Paris."')
    try:
        import uvicorn

        from factdebate.server.guard.stand_in import StandIn, stand_in_app
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "fastapi", "serve") from exc
    check_port_free(host, port)  # a busy port: one line, exit 2, as serve says it
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    typer.echo(f"stand-in upstream on http://{where}/v1: every chat completion answers the --says text "
               f"({len(says)} characters); Ctrl-C stops it", err=True)
    uvicorn.run(stand_in_app(StandIn(answer=says)), host=host, port=port, log_level="warning",
                server_header=False)


def register_stand_in(app: typer.Typer) -> None:
    app.command("stand-in-upstream", short_help="Serve a stand-in chat model that answers every request with the "
                                                "text you give: the chat proxy tried offline.")(stand_in_upstream)
