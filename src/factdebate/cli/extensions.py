"""Registers the commands that live in other packages (service, evaluation) on the main CLI app.
Each block imports lazily inside its command so `factdebate --help` stays fast."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    from factdebate.cli.serve import register_service

    register_service(app)

    from factdebate.cli.eval import register_eval

    register_eval(app)

    from factdebate.toolservers.command import register_mcp_tools

    register_mcp_tools(app)

    from factdebate.cli.memory import register_memory

    register_memory(app)

    from factdebate.cli.check_response import register_check_response

    register_check_response(app)

    from factdebate.cli.corpus import register_corpus

    register_corpus(app)
    from factdebate.cli.reproduce import register_reproduce

    register_reproduce(app)
    from factdebate.cli.calibrate import register_calibrate

    register_calibrate(app)
    from factdebate.cli.retrieval import register_eval_retrieval

    register_eval_retrieval(app)
    from factdebate.cli.stand_in import register_stand_in

    register_stand_in(app)
