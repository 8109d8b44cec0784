"""A claim's place in its run's order: samples in order, a response's claims after the samples before it and
after the response's earlier claims, and nothing outside a run."""

from __future__ import annotations

from factdebate.core.claim_context import claim_position, current_position, sub_claim


def test_positions_order_samples_and_the_claims_of_a_response() -> None:
    assert current_position() is None
    with sub_claim(3):
        assert current_position() is None  # single claims and the service: no run, no order
    seen = []
    for sample in range(3):
        with claim_position(sample):
            seen.append(current_position())
            for index in range(2):
                with sub_claim(index):
                    seen.append(current_position())
    assert seen == sorted(seen) and len(set(seen[1:3])) == 2
    with claim_position(1):
        first_of_second_sample = current_position()
    assert first_of_second_sample is not None and seen[2] < first_of_second_sample
    assert current_position() is None
