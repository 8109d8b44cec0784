"""Records of decisions already taken: each script measured a choice that now stands, and the docs section
it backs names it (benchmarks/decisions/README.md lists them). They still run, so a decision can be checked
again when what it rests on changes; the tools to rerun as a habit stay in benchmarks/."""
