"""Response-level checking: a long answer is split into atomic claims, each claim is verified with any
registered method, and the response is false as soon as one claim is false (docs/methods/response-level.md).
"""

from factdebate.response_level.aggregate import response_label
from factdebate.response_level.check import acheck_response, check_response, run_response, validate_response
from factdebate.response_level.extract import aextract_claims, extract_claims
from factdebate.core.types import ClaimCheck, ClaimExtraction, ResponseVerdict

__all__ = ["ClaimCheck", "ClaimExtraction", "ResponseVerdict", "acheck_response", "aextract_claims",
           "check_response", "extract_claims", "response_label", "run_response", "validate_response"]
