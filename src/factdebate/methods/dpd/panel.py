"""DPD's referees: each judge scores both sides on four dimensions, votes and states a confidence; the
panel's outcome is the confidence-weighted vote of Section 3.3, with its consensus.

Read literally the formulas never let the negative side win (W_N is a sum of negative numbers), so W_N is
compared by its magnitude; a tie vote weighs 0, and ties of the maximum are a tie (docs/methods/dpd.md)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from factdebate.core.runtime import emit
from factdebate.core.types import Judgement, Label
from factdebate.llm.ask import Unreadable, ask
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import loads
from factdebate.llm.model import LLM
from factdebate.methods.dpd.events import PanelDecided
from factdebate.methods.kit.fields import free_field
from factdebate.methods.kit.turns import judged
from factdebate.prompts import Prompt
from factdebate.util.tasks import gather_all

SIDES = ("affirmative", "negative")
DIMENSIONS = {"E": "evidence", "C": "logic", "N": "neutrality", "P": "persuasiveness"}
VOTES = {"affirmative": 1, "negative": -1, "tie": 0}
# A judge's vote is stored as the label it stands for: a tie vote as NOT ENOUGH INFO.
OUTCOME_LABEL = {"affirmative": Label.SUPPORTS, "negative": Label.REFUTES, "tie": Label.NOT_ENOUGH_INFO}
LABEL_VOTE = {Label.SUPPORTS: 1, Label.REFUTES: -1, Label.NOT_ENOUGH_INFO: 0}
# What each built-in judge attends to; a judge named otherwise in the settings gets a generic brief.
FOCUS = {
    "factual": "whether the evidence each side cites is authentic, authoritative and really says what is "
               "claimed",
    "logical": "whether each side's reasoning follows from its evidence without gaps or contradictions",
    "rhetorical": "how clear, neutral and persuasive each side's argument is, discounting emotional or "
                  "loaded language",
}

# Scores and confidence are held to one decimal (an enum: strict structured-output servers refuse
# minimum/maximum, and llama.cpp's schema grammars ignore them); the parser accepts any number in [0, 1].
UNIT = {"type": "number", "enum": [round(i / 10, 1) for i in range(11)]}
_SIDE_SCHEMA = {"type": "object", "properties": {name: UNIT for name in DIMENSIONS.values()},
                "required": list(DIMENSIONS.values()), "additionalProperties": False}
# The judge reasons before it decides: "why" first, then the scores, the vote and its confidence (the paper's
# order). Where the backend enforces the schema, the whole ballot must close within its token budget, or the vote
# is cut off. So "why" is held to printable ASCII without quote or backslash, which a tokenizer writes in at most
# one token per character: the longest ballot is then at most BALLOT_FRAME plus "why"'s bound in tokens, the
# bound cut to what the budget leaves (judge_schema).
WHY_CHARS = 200
WHY_CHARACTERS = "[ !#-\\[\\]-~]"  # printable ASCII (0x20-0x7E) less '"' and '\\'


def _longest_ballot(why_chars: int) -> str:
    """The longest text a schema-held ballot can be: three-character scores, the longest vote, and the one
    space llama-cpp-python's grammars allow after each piece of JSON (``llama-server`` allows more)."""
    side = {name: 0.0 for name in DIMENSIONS.values()}
    data = {"why": "x" * why_chars, "affirmative": side, "negative": side, "vote": max(VOTES, key=len),
            "confidence": 0.0}
    compact = json.dumps(data, separators=(",", ":"))
    return compact + " " * sum(compact.count(c) for c in '{}[],:"')


BALLOT_FRAME = len(_longest_ballot(0))
MIN_WHY_CHARS = 40  # the least reasoning a ballot is given room for (the setting's floor keeps it)


def why_chars(max_tokens: int) -> int:
    """How long "why" may be so that a held ballot closes within ``max_tokens``."""
    return max(0, min(WHY_CHARS, max_tokens - BALLOT_FRAME))


def judge_schema(max_tokens: int) -> dict[str, Any]:
    """The ballot's schema with "why" bounded to fit ``max_tokens`` (see above)."""
    bound = why_chars(max_tokens)
    why = {"type": "string", "maxLength": bound, "pattern": f"^{WHY_CHARACTERS}{{0,{bound}}}$"}
    return {
        "type": "object",
        "properties": {"why": why, "affirmative": _SIDE_SCHEMA, "negative": _SIDE_SCHEMA,
                       "vote": {"type": "string", "enum": list(VOTES)}, "confidence": UNIT},
        "required": ["why", "affirmative", "negative", "vote", "confidence"],
        "additionalProperties": False,
    }
_CUT_WHY = re.compile(r'"why"\s*:\s*"(?:[^"\\]|\\.)*$')


@dataclass(frozen=True)
class Ballot:
    vote: int  # +1 affirmative, -1 negative, 0 tie
    confidence: float
    scores: dict[str, float]  # "affirmative.E" ...
    reason: str


class BallotError(Unreadable):
    """What is wrong with a ballot; the re-ask quotes it back to the judge."""


def _unit(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BallotError(f"{what} must be a number between 0 and 1")
    if not 0.0 <= float(value) <= 1.0:
        raise BallotError(f"{what} is {value}; it must be between 0 and 1")
    return float(value)


def read_ballot(text: str) -> Ballot:
    """The judge's JSON object, even amid prose; :class:`BallotError` names the problem for the re-ask."""
    start = text.find("{")
    if start < 0:
        raise BallotError("no JSON object was found")
    body = text[start:].rstrip()
    if _CUT_WHY.search(body):  # an unconstrained reply that put its explanation last and was cut off in it
        body += '"}'
    end = body.rfind("}")
    if end < 0:
        raise BallotError("the JSON object is not closed")
    try:
        data = loads(body[:end + 1])
    except json.JSONDecodeError as exc:
        raise BallotError(f"the JSON object is malformed ({exc.msg})") from None
    if not isinstance(data, dict):
        raise BallotError("the answer must be one JSON object")
    vote = data.get("vote")
    key = str(vote).strip().lower() if vote is not None else ""
    if isinstance(vote, int | float) and not isinstance(vote, bool) and vote in (1, -1, 0):
        number = int(vote)
    elif key in VOTES:
        number = VOTES[key]
    else:
        raise BallotError("vote must be one of affirmative, negative, tie")
    scores: dict[str, float] = {}
    for side in SIDES:
        block = data.get(side)
        if not isinstance(block, dict):
            raise BallotError(f"'{side}' must be an object with {', '.join(DIMENSIONS.values())}")
        for letter, name in DIMENSIONS.items():
            if name not in block:
                raise BallotError(f"'{side}' lacks the score '{name}'")
            scores[f"{side}.{letter}"] = _unit(block[name], f"{side}.{name}")
    why = " ".join(str(data.get("why", data.get("reason", ""))).split())
    if why:  # a copied "<one short sentence>" or ", S, C, D, E" explains nothing: dropped, counted (kit/fields.py)
        why = free_field(why, "dpd_judge", "why")
    return Ballot(number, _unit(data.get("confidence"), "confidence"), scores, why)


def vote_name(vote: int) -> str:
    return {1: "affirmative", -1: "negative", 0: "tie"}[vote]


@dataclass(frozen=True)
class Tally:
    totals: dict[str, float]  # W_A (≥ 0), W_N (≤ 0, as the paper writes it), W_T (always 0)
    outcome: str | None  # affirmative | negative | tie; None: no judge could be read
    consensus: float | None
    parsed: int
    unparsed: int

    @property
    def label(self) -> Label | None:
        return OUTCOME_LABEL[self.outcome] if self.outcome else None

    def describe(self) -> str:
        t = self.totals
        if self.outcome is None:
            return f"no judge's ballot could be read ({self.unparsed} unparsed)"
        text = (f"W_A={t['affirmative']:.3f}, W_N={t['negative']:.3f} (|W_N|={abs(t['negative']):.3f}), "
                f"W_T={t['tie']:.3f} -> {self.outcome}; consensus {self.consensus:.3f}")
        return text + (f"; {self.unparsed} judge(s) unparsed, left out" if self.unparsed else "")


def tally(judgements: list[Judgement]) -> Tally:
    """argmax{W_A, |W_N|, W_T} over the parsed ballots (a shared maximum: a tie), and the consensus."""
    ballots = [(LABEL_VOTE[j.vote], j.confidence or 0.0) for j in judgements if j.parsed and j.vote is not None]
    unparsed = sum(not j.parsed or j.vote is None for j in judgements)
    w_a = sum(v * c for v, c in ballots if v == 1)
    w_n = sum(v * c for v, c in ballots if v == -1)
    w_t = sum(v * c for v, c in ballots if v == 0)  # 0 by construction: the paper's W_T
    totals = {"affirmative": w_a, "negative": w_n, "tie": w_t}
    if not ballots:
        return Tally(totals, None, None, 0, unparsed)
    compared = {"affirmative": w_a, "negative": abs(w_n), "tie": w_t}
    best = max(compared.values())
    leaders = [name for name, value in compared.items() if value == best]
    outcome = leaders[0] if len(leaders) == 1 else "tie"
    winning = VOTES[outcome]
    total_confidence = sum(c for _, c in ballots)
    agreeing = sum(c for v, c in ballots if v == winning)
    consensus = agreeing / total_confidence if total_confidence > 0 else 0.0
    return Tally(totals, outcome, consensus, len(ballots), unparsed)


def judgement_from(name: str, ballot: Ballot | None, raw: str, retries: int, constrained: bool) -> Judgement:
    if ballot is None:
        return Judgement(agent=name, role="judge", response=raw.strip(), vote=None, confidence=None, weight=0.0,
                         parsed=False, parse_retries=retries)
    return Judgement(agent=name, role="judge", response=raw.strip(), vote=OUTCOME_LABEL[vote_name(ballot.vote)],
                     confidence=ballot.confidence, weight=ballot.vote * ballot.confidence, parsed=True,
                     parse_retries=retries, label_constrained=constrained, scores=ballot.scores)


async def ask_judge(llm: LLM, prompt: Prompt, name: str, round: int, *, temperature: float,
                    max_tokens: int) -> Judgement:
    """One ballot under the JSON schema; an unreadable one is re-asked once, then recorded as unparsed."""
    asked = await ask(llm, prompt, read_ballot, what="ballot", agent=name, round=round,
                      params=GenParams(temperature=temperature, max_tokens=max_tokens,
                                       json_schema=judge_schema(max_tokens)))
    return judgement_from(name, asked.value, asked.raw, asked.retries, asked.constrained)


@dataclass(frozen=True)
class PanelJudge:
    name: str
    focus: str
    llm: LLM


async def run_panel(judges: list[PanelJudge], render_for: Any, round: int, *, temperature: float,
                    max_tokens: int) -> tuple[list[Judgement], Tally]:
    """Every judge at once (they are independent), each traced as it lands; then the tally."""

    async def one(judge: PanelJudge) -> Judgement:
        judgement = await ask_judge(judge.llm, render_for(judge), judge.name, round, temperature=temperature,
                                    max_tokens=max_tokens)
        judged(judgement, round)
        return judgement

    judgements = await gather_all(*(one(j) for j in judges))  # a failed judge ends its siblings
    return judgements, tally(judgements)


def announce(tally_: Tally, round: int, stop: bool) -> None:
    emit(PanelDecided(round=round, totals={k: round_(v) for k, v in tally_.totals.items()},
                      outcome=tally_.outcome, consensus=None if tally_.consensus is None else round_(tally_.consensus),
                      judges=tally_.parsed + tally_.unparsed, unparsed=tally_.unparsed, stop=stop))


def round_(value: float) -> float:
    return round(value, 4)


_SLUG = re.compile(r"^[a-z][a-z0-9-]{0,30}$")


def check_judge_names(names: list[str]) -> list[str]:
    if not names:
        raise ValueError("the panel needs at least one judge")
    for name in names:
        if not _SLUG.fullmatch(name):
            raise ValueError(f"judge name '{name}': use lowercase letters, digits and '-' (it names a model "
                             "role, judge-<name>)")
    if len(set(names)) != len(names):
        raise ValueError("judge names must differ")
    return names
