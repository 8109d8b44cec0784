"""``factdebate calibrate relevance --dataset D``: the answer-relevance threshold for the encoder in use.

Tool-MAD's 0.8 was read off the paper's own encoder's scores; ours scores lower. This plays round 1 as a run
does (methods/toolmad/calibrate.py) and prints the threshold the asked share passes, as settings."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from factdebate.cli.options import ConfigFlag, with_option_flags
from factdebate.core.pathcheck import output_flag
from factdebate.util.errors import InputError

Opt = typer.Option
calibrate_app = typer.Typer(help="Calibrate scores whose thresholds the papers set on their own models.",
                            no_args_is_help=True)


@calibrate_app.command("relevance")
@with_option_flags(skip={"method", "concurrency"})
def relevance_command(
    dataset: Annotated[str, Opt("--dataset", "-d", help="Built-in or Hub name, or FORMAT:PATH (as for eval).")],
    # scoring.calibrate's MIN_ANSWERS and min_answers(0.9), written out: it imports numpy (a test keeps them equal)
    limit: Annotated[int, Opt(min=5, help="Claims answered and scored (after a seeded shuffle): at least 5, and "
                              "more for a --pass-share near 0 or 1 (0.9 needs 10).")] = 50,
    seed: Annotated[int, Opt(help="Shuffle seed.")] = 0,
    pass_share: Annotated[float, Opt("--pass-share", min=0.01, max=0.99,
                                     help="Share of answers the threshold lets pass (the paper: 'most'; "
                                          "ours: 0.8).")] = 0.8,
    concurrency: Annotated[int, Opt(min=1, max=1024, help="Claims answered at once.")] = 4,
    output: Annotated[Path | None, Opt("--output", "-o", help="Write the scores and the threshold as JSON.",
                                       callback=output_flag("--output", "calibration.json"))] = None,
    write_config: Annotated[Path | None, Opt("--write-config", help="Write the settings that use the threshold "
                                             "(with its dataset, encoder and share) as a config file for --config.",
                                             callback=output_flag("--write-config", "calibrated.yaml"))] = None,
    config: ConfigFlag = None,
    *,
    options: dict[str, Any],
) -> None:
    """Play Tool-MAD's round 1 on claims of a dataset (each debater searches with the round-1 query a run
    uses, then answers from its documents), score each answer's relevance with the encoder in use, and print
    the threshold that the --pass-share of them reach."""
    from factdebate.eval.datasets import select
    from factdebate.eval.datasets.loader import load_dataset
    from factdebate.methods.toolmad.calibrate import calibrate_relevance
    from factdebate.run.build import build_resources
    from factdebate.scoring.calibrate import min_answers
    from factdebate.settings.load import settings_from

    settings = settings_from({**options, "method": "tool-mad"}, config)
    loaded = load_dataset(dataset)
    samples = select(loaded.samples, limit, seed)
    needed = min_answers(pass_share)
    if len(samples) < needed:  # before any model call
        raise InputError(f"calibrating on {len(samples)} claim(s) of '{dataset}' is too few: a threshold that lets "
                         f"{pass_share:.0%} pass needs at least {needed} answers (with fewer it is merely the lowest "
                         "or highest answer's score); raise --limit or use a larger dataset")
    resources = build_resources(settings)

    async def go() -> Any:
        try:
            return await calibrate_relevance(samples, resources, dataset=loaded.spec or dataset,
                                             pass_share=pass_share, concurrency=concurrency)
        finally:
            await resources.aclose()

    result = asyncio.run(go())
    if result.threshold is None:
        raise InputError(f"no answer of {result.model} could be scored ({result.unscored} unscored): nothing "
                         "to calibrate on; try a served model (--llm openai:MODEL)")
    if len(result.scores) < needed:
        raise InputError(f"only {len(result.scores)} answer(s) of {result.model} could be scored ({result.unscored} "
                         f"unscored): letting {pass_share:.0%} pass needs at least {needed}; raise --limit or try a "
                         "served model (--llm openai:MODEL)")
    q = result.quantiles
    typer.echo(f"{len(result.scores)} answers scored ({result.unscored} unscored) with {result.encoder}: "
               f"mean {q['mean']:.3f}, median {q['median']:.3f}, p10 {q['p10']:.3f}, p90 {q['p90']:.3f}; "
               f"{q['share_at_0.8']:.0%} reach the paper's 0.8")
    typer.echo(f"threshold for {pass_share:.0%} to pass: {result.threshold:.3f} (rounded down: never fewer pass)")
    typer.echo(f"run with: --relevance-threshold {result.threshold:.3f} --relevance-calibrated-dataset "
               f"{shlex.quote(result.dataset)} --relevance-calibrated-encoder {shlex.quote(result.encoder)} "
               f"--relevance-calibrated-share {pass_share}")
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(result.record(), indent=1) + "\n", encoding="utf-8")
    if write_config is not None:
        write_config.parent.mkdir(parents=True, exist_ok=True)
        write_config.write_text(f"# factdebate calibrate relevance: {len(result.scores)} round-1 answers of "
                                f"{result.model}\n" + yaml.safe_dump(result.settings(), sort_keys=False),
                                encoding="utf-8")
        typer.echo(f"or: --config {write_config}")


def register_calibrate(app: typer.Typer) -> None:
    app.add_typer(calibrate_app, name="calibrate")
