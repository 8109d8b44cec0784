"""What ``--llm scripted:agree|disagree`` answers to Tool-MAD's prompts: SUPPORTS (with ``disagree`` the search
agent says REFUTES), and a judge on the RAG agent's side."""

from __future__ import annotations

from factdebate.llm.scripted_library import Asked, ScriptedReply


def debate_answer(asked: Asked) -> str:
    second = asked.call.agent.startswith("search") or asked.call.agent.endswith("-2")
    label = "REFUTES" if asked.disagree and second else "SUPPORTS"
    return f"Document [1] states that {asked.claim.rstrip('.')}.\nSo the evidence points one way.\n{label}"


def query_select(asked: Asked) -> str:
    return f"[{asked.claim} evidence round {asked.call.round}]"


def judge(asked: Asked) -> str:
    return "The RAG agent's answers were better supported by its documents.\nSUPPORTS"


REPLIES: dict[str, ScriptedReply] = {"debate_answer": debate_answer, "query_select": query_select, "judge": judge}
