"""A batch of claims, for the service (see facade/__init__.py): a batch's items and the lines a client
uploads. Apart from facade/running.py because a batch's module loads the library's resumable results and
progress (rich): only the service's batch routes need it."""

from factdebate.run.batch import ClaimItem, parse_claim_lines

__all__ = ["ClaimItem", "parse_claim_lines"]
