"""``reproduce --dry-run``: the plan before anything is spent: rows run and not, datasets available, and each
run's samples, calls and tokens (eval/estimate.py)."""

from __future__ import annotations

from factdebate.eval.estimate import estimate
from factdebate.eval.report.summary import RESULTS
from factdebate.eval.reproduce.cells import Cell, Request
from factdebate.run.results_file import finished_ids


def _cost(cell: Cell) -> tuple[str, tuple[float, float, float, float]]:
    """A line about the run's cost, and (calls min, calls max, tokens min, tokens max) of what is left."""
    assert cell.plan is not None
    est = estimate(cell.plan, finished_ids(cell.folder / RESULTS))
    if est.measured and est.calls_measured is not None and est.tokens_measured is not None:
        calls, tokens = est.calls_measured * est.todo, est.tokens_measured * est.todo
        return (f"{est.todo} of {est.samples} sample(s) left; measured {est.calls_measured:.1f} calls and "
                f"{est.tokens_measured:,.0f} tokens per sample", (calls, calls, tokens, tokens))
    low, high = est.calls_min * est.todo, est.calls_max * est.todo
    return (f"{est.todo} of {est.samples} sample(s) left; {est.calls_min}-{est.calls_max} calls per sample",
            (low, high, est.tokens_per_call * low, est.tokens_per_call * high))


def dry_run_lines(request: Request, cells: list[Cell]) -> list[str]:
    paper = request.paper
    lines = [f"{paper.short}: {', '.join(t.name for t in request.tables)} -> {request.output}", "", "Datasets:"]
    for key in dict.fromkeys(cell.dataset.key for cell in cells):
        first = next(cell for cell in cells if cell.dataset.key == key)
        spec = first.dataset
        state = (f"available: {first.source} ({first.loaded} samples)" if first.loaded is not None
                 else f"NOT AVAILABLE: {first.reason}")
        how = f"{spec.draw} draw"
        if first.origin:  # the authors' own file, fetched by name
            how = "the authors' own sample set"
            state += f" from {first.origin.get('url')}, sha256 {str(first.origin.get('sha256'))[:16]}…"
        lines.append(f"  {key} ({spec.label}; {spec.split}; paper: {spec.n}, {how}): {state}")
    by_key = {cell.key: cell for cell in cells}
    totals = [0.0, 0.0, 0.0, 0.0]
    costed: set[str] = set()
    for table in request.tables:
        lines.append(f"\n{table.caption}")
        for row in table.rows:
            if request.rows is not None and row.run not in request.rows:
                continue
            for column in table.columns:
                cell = by_key.get(f"{column}/{row.run}")
                if cell is None:  # a dataset left out with --datasets
                    continue
                if cell.plan is None:
                    why = "dataset not available" if cell.loaded is None else cell.reason
                    lines.append(f"  {cell.key}: SKIPPED: {why}")
                    continue
                text, cost = _cost(cell)
                lines.append(f"  {cell.key}: {cell.run.method} on {cell.plan.dataset.spec}: {text}")
                lines += [f"    note: {note}" for note in cell.notes]
                lines += [f"    your flag: {override}" for override in cell.overrides]
                if cell.key not in costed:  # a run two tables share is paid once
                    costed.add(cell.key)
                    totals = [t + c for t, c in zip(totals, cost, strict=True)]
        lines += [f"  not run here: {e.row} ({e.why})" for e in table.excluded]
    ready = [c for c in cells if c.plan is not None]
    lines.append(f"\n{len(ready)} run(s) ready, {len(cells) - len(ready)} skipped; estimated {totals[0]:,.0f} to "
                 f"{totals[1]:,.0f} LLM calls, about {totals[2]:,.0f} to {totals[3]:,.0f} tokens (rough: 4 characters "
                 "per token)")
    return lines
