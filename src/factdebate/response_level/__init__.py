"""Response-level parts that methods share: splitting a long answer into atomic claims and the rule that
makes the response false as soon as one claim is false (docs/methods/response-level.md). Running a response
through a method is the guard's :mod:`factdebate.guard_engine.response_check`."""

from factdebate.core.types import ClaimCheck, ClaimExtraction, ResponseVerdict
from factdebate.response_level.aggregate import response_label
from factdebate.response_level.extract import aextract_claims

__all__ = ["ClaimCheck", "ClaimExtraction", "ResponseVerdict", "aextract_claims", "response_label"]
