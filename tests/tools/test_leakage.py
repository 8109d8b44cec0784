"""Leakage policy: domains with subdomains and paths, dates, and a call that can tighten but never loosen."""

from __future__ import annotations

from datetime import date

import pytest

from factdebate.tools.leakage import FACT_CHECK_DOMAINS, LeakagePolicy, parse_day
from factdebate.util.errors import InputError


def test_domains_match_subdomains_and_path_prefixes() -> None:
    leak = LeakagePolicy().for_call(exclude_domains=["https://www.Snopes.com/", "reuters.com/fact-check"])
    assert leak.domains == ("reuters.com/fact-check", "snopes.com")
    assert leak.excluded("https://www.snopes.com/fact-check/x/")
    assert leak.excluded("https://media.snopes.com/a")
    assert not leak.excluded("https://notsnopes.com/a")
    assert leak.excluded("https://www.reuters.com/fact-check/claim-123")
    assert not leak.excluded("https://www.reuters.com/world/europe/")


def test_fact_checkers_only_when_asked() -> None:
    assert LeakagePolicy().for_call().domains == ()
    assert set(FACT_CHECK_DOMAINS) <= set(LeakagePolicy().for_call(exclude_fact_checkers=True).domains)
    assert set(FACT_CHECK_DOMAINS) <= set(LeakagePolicy(fact_checkers=True).for_call().domains)


def test_the_earliest_date_wins() -> None:
    policy = LeakagePolicy(before=date(2020, 1, 1), domains=("example.org",))
    assert policy.for_call("2024-05-01").before == date(2020, 1, 1)  # a call cannot loosen the floor
    assert policy.for_call("2019-05-01").before == date(2019, 5, 1)  # but can tighten it
    assert policy.for_call(exclude_domains=["a.org"]).domains == ("a.org", "example.org")
    assert LeakagePolicy().for_call().before is None and not LeakagePolicy().for_call().active


def test_bad_dates_are_input_errors() -> None:
    with pytest.raises(InputError, match="YYYY-MM-DD"):
        parse_day("yesterday")
    assert parse_day("2021-03-04T10:00:00Z") == date(2021, 3, 4)
