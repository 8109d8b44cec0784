"""Scale-out: batch claims and evaluation samples sharded over a pool of Ray workers (docs/scale.md).

The driver keeps the results file: workers only compute records and hand them back, so the exactly-once
and resume rules of a local run hold unchanged. Ray is optional (``factdebate[ray]``) and imported only
when ``scale.executor`` is ``ray`` (the pool lives in :mod:`factdebate.scale.pool`)."""
