"""Verdicts of any schema version, brought to the current one.

Version 1 (no ``schema_version`` field) is what factdebate wrote before the method plug-ins: one ``judge``
object, score fields on each turn, and three methods that bent the shape — ``vote`` kept its tally as a
fake judge, ``mad`` kept its moderator as a turn, ``react`` kept each step as a round. :func:`upgrade`
rewrites such a record into version 2 (``Verdict.read`` validates the result, ``Verdict.model_json_schema`` is
the current version's schema)."""

from __future__ import annotations

import copy
from typing import Any

from factdebate.core.runfiles import MAX_DEPTH
from factdebate.util.errors import InputError
from factdebate.util.textsafe import nesting_depth, unencodable_reason

SCHEMA_VERSION = 2  # 1: until the method plug-ins (one judge, fixed score fields)
SCORE_FIELDS = ("faithfulness", "answer_relevance", "consistency")


def upgrade(record: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` (a verdict, or a results-file row holding one) in the current schema; a record
    nested more than :data:`MAX_DEPTH` levels is refused (InputError)."""
    if nesting_depth(record, MAX_DEPTH + 1) > MAX_DEPTH:
        raise InputError(f"the record nests lists or objects more than {MAX_DEPTH} levels deep: it is not a verdict")
    if problem := unencodable_reason(record):
        # ``schema_version: 1e400`` reads as infinity: int() of it, or the reply echoing it, failed (a 500).
        raise InputError(f"the record is not a verdict factdebate wrote: it holds {problem}")
    try:
        return _upgraded(record)
    except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as exc:
        # A field of the wrong shape (a string where rounds or a version number belong) is the caller's
        # record, not our fault: one line, not a 500 or a traceback.
        raise InputError(f"the record is not a verdict factdebate wrote (a field has the wrong shape: "
                         f"{type(exc).__name__})") from exc


def _upgraded(record: dict[str, Any]) -> dict[str, Any]:
    if int(record.get("schema_version") or 1) >= SCHEMA_VERSION:
        return record
    out = copy.deepcopy(record)
    for rnd in out.get("rounds") or []:
        for turn in rnd.get("turns") or []:
            scores = {name: turn.pop(name) for name in SCORE_FIELDS if name in turn}
            turn["scores"] = {k: v for k, v in scores.items() if v is not None or _errored(turn, k)}
    judge = out.pop("judge", None)
    out["judges"] = [] if judge is None else [_judgement(judge, "judge")]
    method = out.get("method")
    if method == "vote" and out["judges"]:
        out["explanation"] = out.pop("judges")[0]["response"]
        out["judges"] = []
        if out.get("decided_by") == "consensus":
            out["decided_by"] = "vote"
    elif method == "mad":
        _mad(out)
    elif method == "react":
        _react(out)
    out["schema_version"] = SCHEMA_VERSION
    return out


def _errored(turn: dict[str, Any], score: str) -> bool:
    return any(str(e).startswith(score) for e in turn.get("score_errors") or [])


def _judgement(old: dict[str, Any], agent: str) -> dict[str, Any]:
    label = old.get("label")
    return {"agent": agent, "role": agent, "response": old.get("response", ""), "vote": label,
            "parsed": label is not None, "parse_retries": old.get("parse_retries", 0)}


def _mad(out: dict[str, Any]) -> None:
    """The moderator turn becomes the round's judgement; an early stop was decided by the moderator."""
    for rnd in out.get("rounds") or []:
        turns = rnd.get("turns") or []
        for turn in [t for t in turns if t.get("agent") == "moderator"]:
            turns.remove(turn)
            preference = "preference: yes" in str(turn.get("response", "")).lower()
            rnd.setdefault("judges", []).append(
                {"agent": "moderator", "role": "moderator", "response": turn.get("response", ""),
                 "vote": turn.get("label") if preference else None,
                 "parsed": turn.get("label") is not None or "preference: no" in str(turn.get("response")).lower()})
        for turn in turns:
            turn.setdefault("team", turn.get("agent"))
    if out.get("decided_by") == "consensus":
        out["decided_by"] = "moderator"


def _react(out: dict[str, Any]) -> None:
    """The rounds (one per step) become the steps of one turn."""
    rounds = out.get("rounds") or []
    turns = [t for rnd in rounds for t in rnd.get("turns") or []]
    if not turns:
        return
    final = turns[-1]
    loop = turns[:-1] if final.get("tool") == "none" else turns  # tool "none": the forced final answer
    steps = [_react_step(turn) for turn in loop]
    searches = [s for s in steps if "query" in s["arguments"]]
    merged = {**final, "tool": loop[0].get("tool", "none") if loop else final.get("tool", "none"),
              "steps": steps, "evidence": [d for s in searches for d in s["evidence"]],
              "query": searches[0]["arguments"]["query"] if searches else None}
    out["rounds"] = [{"round": 1, "turns": [merged]}]


def _react_step(turn: dict[str, Any]) -> dict[str, Any]:
    thought = str(turn.get("response", ""))
    if turn.get("query"):
        return {"tool": turn.get("tool", ""), "arguments": {"query": turn["query"]}, "thought": thought,
                "evidence": turn.get("evidence") or []}
    if turn.get("label"):
        return {"tool": "finish", "arguments": {"label": turn["label"]}, "thought": thought, "evidence": []}
    return {"tool": "", "arguments": {}, "thought": thought, "observation": "no valid action was given",
            "evidence": []}

