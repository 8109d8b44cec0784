"""Leakage controls: keep evidence that post-dates a claim, or a fact-checker's own verdict on it, out of
the results. Each engine applies what it can; every result says what was and was not applied."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlsplit

from factdebate.util.errors import InputError

# Off unless asked for (exclude_fact_checkers=True or --exclude-fact-checkers): sites whose articles are
# verdicts on claims, which would hand a benchmark its answer. Not exhaustive; extend with exclude_domains.
FACT_CHECK_DOMAINS: tuple[str, ...] = (
    "snopes.com", "politifact.com", "factcheck.org", "fullfact.org", "truthorfiction.com",
    "leadstories.com", "checkyourfact.com", "healthfeedback.org", "climatefeedback.org",
    "sciencefeedback.co", "africacheck.org", "boomlive.in", "altnews.in", "factly.in", "vishvasnews.com",
    "newschecker.in", "factcheck.afp.com", "reuters.com/fact-check", "apnews.com/hub/ap-fact-check",
    "usatoday.com/news/factcheck", "washingtonpost.com/news/fact-checker", "mediabiasfactcheck.com",
    "poynter.org", "maldita.es", "correctiv.org", "teyit.org", "aosfatos.org", "chequeado.com",
)


def parse_day(value: str | None) -> date | None:
    if value is None or not value.strip():
        return None
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        raise InputError(f"search_before must be a date as YYYY-MM-DD (got {value!r})") from None


@dataclass(frozen=True)
class Leakage:
    """Effective controls for one call: the server's floor combined with what the call asked for."""

    before: date | None = None
    domains: tuple[str, ...] = field(default_factory=tuple)

    @property
    def active(self) -> bool:
        return self.before is not None or bool(self.domains)

    def excluded(self, url: str) -> bool:
        """Whether ``url`` is on an excluded domain (subdomains included) or under an excluded path."""
        parts = urlsplit(url if "//" in url else f"//{url}")
        host = (parts.hostname or "").removeprefix("www.")
        where = host + parts.path
        for entry in self.domains:
            if "/" in entry:
                if where.startswith(entry):
                    return True
            elif host == entry or host.endswith("." + entry):
                return True
        return False


@dataclass(frozen=True)
class LeakagePolicy:
    """Server-wide settings (from the command line); a call may tighten them, never loosen them."""

    before: date | None = None
    domains: tuple[str, ...] = ()
    fact_checkers: bool = False

    def for_call(self, search_before: str | None = None, exclude_domains: list[str] | None = None,
                 exclude_fact_checkers: bool = False) -> Leakage:
        asked = parse_day(search_before)
        before = min(d for d in (self.before, asked) if d is not None) if (self.before or asked) else None
        domains = {_clean(d) for d in (*self.domains, *(exclude_domains or []))}
        if self.fact_checkers or exclude_fact_checkers:
            domains.update(FACT_CHECK_DOMAINS)
        return Leakage(before, tuple(sorted(d for d in domains if d)))


def _clean(domain: str) -> str:
    text = domain.strip().lower()
    for prefix in ("https://", "http://"):
        text = text.removeprefix(prefix)
    return text.removeprefix("www.").rstrip("/")


def not_applied(what: str, engine: str, why: str) -> str:
    return f"{what} was NOT applied: {engine} {why}."
