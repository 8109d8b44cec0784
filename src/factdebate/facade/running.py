"""Running a claim or an answer with a paper's method, for the service (see facade/__init__.py): the
inputs' checks, the run, the resources a run is built from, the catalogue of methods and the rules that turn
an answer's claims into its label."""

from factdebate.methods.base import METHODS, all_methods, get_method, method_class
from factdebate.methods.resources import Resources, Services
from factdebate.methods.view import MethodView
from factdebate.response_level.aggregate import RULES, factual, response_label
from factdebate.run.build import build_resources, builtin_engines, make_tool
from factdebate.run.claim import run_claim, validate_claim
from factdebate.run.response import validate_question, validate_response

__all__ = [
    "METHODS", "RULES", "MethodView", "Resources", "Services", "all_methods", "build_resources",
    "builtin_engines", "factual", "get_method", "make_tool", "method_class", "response_label",
    "run_claim", "validate_claim", "validate_question", "validate_response",
]
