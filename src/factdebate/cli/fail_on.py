"""``check-response --fail-on refuted,unchecked,not-enough-info``: the exit code a re-run loop or a CI step
reads instead of parsing the verdict's JSON (docs/methods/response-level.md, "A check that ends a loop").

Exit 1: a refuted claim, which the agent can correct; 4: a claim of another named kind and none refuted; 3: the
check itself failed; 2: a usage error. A loop re-runs its agent on 1 only."""

from __future__ import annotations

from dataclasses import dataclass, field

from factdebate.cli import exits
from factdebate.core.types import Label, ResponseVerdict
from factdebate.util.errors import InputError

KINDS = ("refuted", "unchecked", "not-enough-info")
# Unchecked sentences that state something (response_level/unchecked.py); a question, greeting, opinion,
# heading or code states no fact to fail on.
FACTUAL_UNCHECKED = frozenset({"claim limit", "partly checked", "ungrounded", "unresolved", "no claim"})


def parse_fail_on(value: str | None) -> frozenset[str]:
    """The kinds named in ``--fail-on`` (comma-separated), refused in one line before any work."""
    if value is None:
        return frozenset()
    kinds = {part.strip().lower() for part in value.split(",") if part.strip()}
    if not kinds:
        raise InputError(f"--fail-on names nothing; give one or more of {', '.join(KINDS)}, comma-separated")
    if unknown := sorted(kinds - set(KINDS)):
        raise InputError(f"--fail-on: unknown kind {', '.join(unknown)}; use {', '.join(KINDS)} (comma-separated)")
    return frozenset(kinds)


@dataclass
class Findings:
    """What a verdict holds of each kind, as lines a person reads (``#2 "claim"``)."""

    failed: list[str] = field(default_factory=list)  # claims whose check ended in error
    found: dict[str, list[str]] = field(default_factory=lambda: {kind: [] for kind in KINDS})

    def named(self, kinds: frozenset[str]) -> dict[str, list[str]]:
        return {kind: items for kind, items in self.found.items() if kind in kinds and items}


def findings(verdict: ResponseVerdict) -> Findings:
    found = Findings()
    for check in verdict.claims:
        where = f'#{check.index + 1} "{check.claim}"'
        if check.error:
            found.failed.append(f"{where}: {check.error}")
        elif check.label == Label.REFUTES:
            found.found["refuted"].append(where)
        elif check.label in (Label.NOT_ENOUGH_INFO, Label.CONFLICTING):
            found.found["not-enough-info"].append(where)
        elif check.label is None:  # the checker's reply gave no label: nothing was decided about it
            found.found["unchecked"].append(f"{where} (no label)")
    if not verdict.extraction.parsed:
        found.found["unchecked"].append("the whole response (its claims could not be extracted)")
    for sentence in verdict.unchecked:
        if sentence.reason in FACTUAL_UNCHECKED:
            found.found["unchecked"].append(f'"{sentence.text.strip()}" ({sentence.reason})')
    return found


def exit_code(found: Findings, kinds: frozenset[str]) -> int:
    """The status a loop reads: the checker's failure (3), then what the agent can (1) or cannot (4) correct."""
    if found.failed:
        return exits.CHECK_FAILED
    named = found.named(kinds)
    if "refuted" in named:
        return exits.SOME_FAILED
    return exits.CANNOT_FIX if named else exits.OK


def summary(found: Findings, kinds: frozenset[str]) -> str:
    """One line for stderr: what made the check fail, or that nothing named was found."""
    if found.failed:
        return f"fail-on: the check failed for {len(found.failed)} claim(s): " + "; ".join(found.failed)
    named = found.named(kinds)
    if not named:
        return f"fail-on: no {', '.join(k for k in KINDS if k in kinds)} claim found"
    said = "fail-on: " + "; ".join(f"{len(items)} {kind}: " + ", ".join(items) for kind, items in named.items())
    if "refuted" not in named:  # exit 4: say why running the agent again would not help
        said += " (nothing refuted: the checker could not decide these, so there is nothing to correct)"
    return said
