"""Scale-out: batch claims and evaluation samples sharded over a pool of Ray workers (docs/scale.md).

The driver keeps the results file, so a local run's rules hold. Ray (``factdebate[ray]``) is imported only
when ``scale.executor`` is ``ray``."""
