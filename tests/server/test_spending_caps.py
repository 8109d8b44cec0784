"""A caller cannot spend more than the operator allows: every option that multiplies model calls has a cap
in the service config (a 422 names the cap and the setting that raises it), batch options are capped the
same way, and a response check is one request of the rate limit and counts its claims in the claim
bucket (claims_per_minute)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from factdebate.methods.base import Method
from factdebate.server.caps import LEVERS, SpendingCaps
from factdebate.settings.load import load_settings
from factdebate.settings.model import Settings
from factdebate.settings.options import Option, all_options
from tests.server.conftest import AUTH, AppFactory

FOUR_CLAIMS = "Paris is in France. Rome is in Italy. Berlin is in Germany. Madrid is in Spain."


@pytest.mark.parametrize(("option", "value", "cap"), [
    ({"method": "single", "max_claims": 100}, 100, "max_claims"),
    ({"method": "dpd", "dpd_judges": [f"j{i}" for i in range(6)]}, 6, "max_judges"),
    ({"method": "dpd", "dpd_judges": [f"j{i}" for i in range(5000)]}, 5000, "max_judges"),
    ({"rounds": 8}, 8, "max_rounds"),
    ({"method": "mad", "mad_rounds": 10}, 10, "max_rounds"),
    ({"method": "madke", "madke_rounds": 9}, 9, "max_rounds"),
    ({"method": "dpd", "dpd_max_rounds": 6}, 6, "max_rounds"),
    ({"method": "selfcheck", "selfcheck_samples": 20}, 20, "max_samples"),
    ({"method": "dpd", "dpd_summary_samples": 10}, 10, "max_samples"),
    ({"method": "react", "react_max_steps": 20}, 20, "max_steps"),
    ({"method": "mermaid", "mermaid_max_steps": 20}, 20, "max_steps"),
    ({"method": "madke", "madke_tools": ["search"] * 50}, 50, "max_tools"),
])
def test_over_cap_requests_are_refused_naming_the_cap(make_app: AppFactory, option: dict[str, Any], value: int,
                                                      cap: str) -> None:
    with TestClient(make_app()) as client:
        answers = [client.post("/v1/verify", json={"claim": "a b", **option}, headers=AUTH),
                   client.post("/v1/check-response", json={"response": "a b", **option}, headers=AUTH),
                   client.post("/v1/check-response/stream", json={"response": "a b", **option}, headers=AUTH)]
    limit = getattr(SpendingCaps(), cap)
    for answer in answers:
        assert answer.status_code == 422, answer.text
        detail = answer.json()["detail"]
        assert f"{value}" in detail and f"cap of {limit}" in detail and f"caps.{cap}" in detail, detail


def test_batch_options_are_capped_too(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        refused = client.post("/v1/batches?rounds=8", content='"a b"', headers=AUTH)
        judges = client.post("/v1/batches?method=dpd&dpd_judges=" + ",".join(f"j{i}" for i in range(9)),
                             content='"a b"', headers=AUTH)
    assert refused.status_code == 422 and "caps.max_rounds" in refused.json()["detail"]
    assert judges.status_code == 422 and "caps.max_judges" in judges.json()["detail"]


def test_the_operator_raises_or_lowers_a_cap(make_app: AppFactory) -> None:
    with TestClient(make_app(caps={"max_rounds": 8, "max_claims": 5})) as client:
        answer = client.post("/v1/verify", json={"claim": "a b", "rounds": 8}, headers=AUTH)
        factool = client.post("/v1/verify", json={"claim": "a b", "method": "factool", "factool_max_claims": 6},
                              headers=AUTH)
        shown = client.get("/v1/methods", headers=AUTH).json()["caps"]
    assert answer.status_code == 200 and len(answer.json()["rounds"]) == 8
    assert shown["max_rounds"] == 8 and shown["max_judges"] == SpendingCaps().max_judges  # callers see the caps
    assert factool.status_code == 422 and "cap of 5" in factool.json()["detail"]


def test_a_cap_on_the_calls_of_one_claim_covers_every_combination(make_app: AppFactory) -> None:
    # Two agents without tools or scoring: (1 answer per agent and round + 1 judge) x 2 for re-asks.
    with TestClient(make_app(caps={"max_calls_per_claim": 10})) as client:
        fits = client.post("/v1/verify", json={"claim": "a b", "rounds": 2}, headers=AUTH)
        over = client.post("/v1/verify", json={"claim": "a b", "rounds": 3}, headers=AUTH)
        default = client.post("/v1/verify", json={"claim": "a b"}, headers=AUTH)  # the operator's own settings
    assert fits.status_code == 200 and default.status_code == 200
    assert over.status_code == 422
    assert "14 model calls" in over.json()["detail"] and "caps.max_calls_per_claim" in over.json()["detail"]


def test_speculation_stays_with_the_operator(make_app: AppFactory) -> None:
    with TestClient(make_app()) as client:
        answer = client.post("/v1/verify", json={"claim": "a b", "method": "dpd", "dpd_speculate": True},
                             headers=AUTH)
    assert answer.status_code == 422 and "dpd_speculate" in answer.json()["detail"]


@pytest.mark.parametrize("shared", [False, True])
def test_a_response_check_is_one_request_whatever_its_claims(make_app: AppFactory, shared: bool) -> None:
    """Requests per minute and claims per minute are two limits (as for the guard): a check of four
    claims costs one token of the request bucket."""
    app = make_app(rate_limit_per_minute=0.01, rate_burst=3, shared_state=shared,
                   defaults={"llm": "scripted:agree", "method": "single", "cache": False})
    with TestClient(app) as client:
        checked = client.post("/v1/check-response", json={"response": FOUR_CLAIMS}, headers=AUTH)
        assert checked.status_code == 200 and len(checked.json()["claims"]) == 4
        after = [client.get("/v1/methods", headers=AUTH) for _ in range(3)]
    assert [a.status_code for a in after] == [200, 200, 429]
    assert "rate limit exceeded" in after[2].json()["detail"]


@pytest.mark.parametrize("shared", [False, True])
def test_a_response_check_costs_one_claim_token_per_claim(make_app: AppFactory, shared: bool) -> None:
    app = make_app(rate_limit_per_minute=600, claims_per_minute=0.01, claims_burst=6, shared_state=shared,
                   defaults={"llm": "scripted:agree", "method": "single", "cache": False})
    two_claims = {"response": "Paris is in France. Rome is in Italy."}
    with TestClient(app) as client:
        four = client.post("/v1/check-response", json={"response": FOUR_CLAIMS}, headers=AUTH)
        # Four of the six claim tokens are spent (the most it might check was taken first, the rest given back).
        two = client.post("/v1/check-response", json=two_claims, headers=AUTH)
        refused = client.post("/v1/check-response", json=two_claims, headers=AUTH)
        streamed = client.post("/v1/check-response/stream", json=two_claims, headers=AUTH)
        other = client.get("/v1/methods", headers=AUTH)  # the request bucket is the claims' no more
    assert four.status_code == 200 and len(four.json()["claims"]) == 4
    assert two.status_code == 200 and len(two.json()["claims"]) == 2
    for answer in (refused, streamed):
        assert answer.status_code == 429 and int(answer.headers["Retry-After"]) >= 1
        assert "claims per minute are used up" in answer.json()["detail"], answer.text
    assert other.status_code == 200


@pytest.mark.parametrize("shared", [False, True])
def test_the_most_a_check_may_cost_is_taken_before_it_starts(make_app: AppFactory, shared: bool) -> None:
    """Parallel checks cannot each start on one token: the most a check may cost is taken up front, and
    what it did not check is given back once the claims are known."""
    from factdebate.server.admission import ClaimCharge

    limiter = make_app(rate_limit_per_minute=600, claims_per_minute=0.01, claims_burst=3,
                       shared_state=shared).state.service.claims_limiter
    assert limiter.acquire("k") == 0  # the check's first claim
    charge = ClaimCharge(limiter, "k", most=12)
    assert limiter.acquire("k") > 0  # a second check cannot start meanwhile
    charge.sink({"event": "claims_extracted", "claims": ["one claim"]})
    charge.settle()
    charge.settle()  # given back once only
    assert [limiter.acquire("k") == 0 for _ in range(3)] == [True, True, False]


def test_every_spending_lever_open_to_callers_has_a_cap() -> None:
    """A new option that multiplies calls (rounds, steps, samples, judges, claims, tools) must get a cap, or
    be marked operator_only."""
    words = ("round", "step", "sample", "judge", "claims", "tools", "agents")
    levers = {name for name in Option.public_options() if any(word in name for word in words)}
    bounded = {"agents", "dpd_judge_evidence", "dpd_judge_tokens", "judge_evidence_chars", "judge_llm",
               "response_claims", "dpd_summary_temperature", "dpd_min_rounds", "round1_query"}  # 2-3 agents;
    # tokens; a model; a mode; min_rounds <= max_rounds; round 1's query (a mode: one call per agent at most)
    assert levers - bounded <= set(LEVERS), sorted(levers - bounded - set(LEVERS))
    assert set(LEVERS) <= set(all_options())


def at_caps(method: str, caps: SpendingCaps) -> Settings:
    """``method`` with every option a caller may set at its most costly: each capped lever at its cap (a
    caller may set any method's options whatever the method: vote counts Tool-MAD's calls), every stage on."""
    flat: dict[str, Any] = {"method": method, "agents": ["rag", "search", "search"], "scoring": True,
                            "query_formulation": True, "dpd_summarizers": True, "dpd_gatherers": True,
                            "dpd_analysts": True, "dpd_query_generation": True, "factool_decompose": True,
                            "mermaid_decomposer": True}
    for name, cap in LEVERS.items():
        if all_options()[name].public:
            limit = getattr(caps, cap)
            flat[name] = ([f"n{i}" for i in range(limit)] if name == "dpd_judges" else
                          ["search"] * limit if name.endswith("tools") else limit)
    return load_settings(overrides=Option.overrides(flat), environ={})


@pytest.mark.parametrize("method", ["tool-mad", "mad", "madke", "dpd", "react", "mermaid", "selfcheck", "factool",
                                    "vote", "single", "cot", "halueval-fewshot", "wecheck"])
def test_every_lever_at_its_cap_fits_the_default_call_cap(method: str) -> None:
    """The default caps agree with each other: with every lever a caller may set at its cap, no built-in
    method exceeds max_calls_per_claim (docs/robustness.md tabulates these worst cases)."""
    caps = SpendingCaps()
    assert Method.named(method).call_bounds(at_caps(method, caps))[1] <= caps.max_calls_per_claim
