"""Reading runs back and writing them out: summaries, the side-by-side report, plots, metrics and the counts
every summary shows."""
