"""DPD's team members: the gatherer (one search, then snippets picked each round), the shared analyst, the
rebutter and the summarizer (k samples whose agreement is the team's confidence)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from factdebate.core.types import Document, Turn
from factdebate.embeddings import TextEncoder
from factdebate.llm.ask import ask, format_reask, say
from factdebate.llm.base import GenParams
from factdebate.llm.json_reply import enclosed
from factdebate.llm.model import LLM
from factdebate.methods.kit.common import search_tool, trim
from factdebate.methods.kit.fields import check_query
from factdebate.methods.kit.formats import lines_grammar, paragraph_grammar
from factdebate.methods.kit.query_text import CleanQuery, clean_query
from factdebate.methods.kit.turns import answered, scored, turn_started
from factdebate.methods.resources import Resources
from factdebate.prompts import Prompt, render
from factdebate.util.tasks import gather_all

if TYPE_CHECKING:
    import numpy as np  # imported where vectors are made: every command imports the methods to list them

STANCE = {"affirmative": "Your team holds that the claim is factual.",
          "negative": "Your team holds that the claim contains a hallucination: it is false or unsupported."}
POSITION = {"affirmative": "the claim is factual.", "negative": "the claim is hallucinated (false or unsupported)."}
# Each query is at most 100 characters, so the pair closes within QUERY_TOKENS.
_QUERY = {"type": "string", "minLength": 1, "maxLength": 100}
QUERY_SCHEMA = {"type": "object", "properties": {"support": _QUERY, "refute": _QUERY},
                "required": ["support", "refute"], "additionalProperties": False}
QUERY_TOKENS = 128
QUERY_GRAMMAR = ('root ::= "{\\"support\\": \\"" q "\\", \\"refute\\": \\"" q "\\"}"\n'
                 'q ::= [^"\\\\\\x00-\\x1F]{1,100}\n')  # no control character: JSON forbids them in strings


# A free-text turn is held to the shape its prompt asks for, bounded so that it closes within
# ``statement_tokens`` instead of being cut there (SmolLM2 wrote 11 of a claim's turns to the cap
# unbounded): the analyst's four points and its sentence, the rebutter's five points, a line each and one to spare;
# the summarizer's three or four sentences.
STATEMENT_LINES = 6
SUMMARY_SENTENCES = 4


def statement_params(role: str, temperature: float, max_tokens: int) -> GenParams:
    """A free-text turn's parameters: its cap, and the grammar that closes it within the cap."""
    grammar = (paragraph_grammar(max_tokens, SUMMARY_SENTENCES) if role == "summarizer"
               else lines_grammar(max_tokens, STATEMENT_LINES))
    return GenParams(temperature=temperature, max_tokens=max_tokens, grammar=grammar)


_QUERY_JSON = '{{"support": "{support}", "refute": "{refute}"}}'  # the schema's answer as the parser reads it


def other(side: str) -> str:
    return "negative" if side == "affirmative" else "affirmative"


def parse_queries(text: str, claim: str = "") -> tuple[CleanQuery, CleanQuery] | None:
    """The two queries, cleaned; ``None`` when either is empty. One that is no query
    (kit/fields.query_problem) is :class:`~factdebate.llm.ask.Unreadable`."""
    try:
        data = enclosed(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    support, refute = (clean_query(str(data.get(key) or "")) for key in ("support", "refute"))
    if not (support.text and refute.text):
        return None
    return (_searched(support, check_query(support.text, "dpd_queries", claim=claim, name="support")),
            _searched(refute, check_query(refute.text, "dpd_queries", claim=claim, name="refute")))


def _searched(query: CleanQuery, searched: str) -> CleanQuery:
    """``query`` as searched: a sentence cut to its key words keeps what the model wrote beside it."""
    return query if searched == query.text else CleanQuery(searched, query.written or query.text)


@dataclass
class DebateStore:
    """The documents one team gathered, embedded once; each round picks the snippets closest to the context."""

    encoder: TextEncoder
    documents: list[Document] = field(default_factory=list)
    _vectors: np.ndarray | None = None

    async def add(self, documents: list[Document]) -> None:
        seen = {d.id for d in self.documents}
        fresh = []
        for d in documents:
            if d.id not in seen and d.text.strip():
                seen.add(d.id)
                fresh.append(d)
        if not fresh:
            return
        import numpy as np

        vectors = await self.encoder.aencode([f"{d.title}. {d.text}" for d in fresh])
        self.documents.extend(fresh)
        self._vectors = vectors if self._vectors is None else np.vstack([self._vectors, vectors])

    async def select(self, context: str, n: int) -> list[Document]:
        """The ``n`` documents most similar to ``context`` (cosine), best first, scored by that cosine."""
        if self._vectors is None or not self.documents:
            return []
        import numpy as np

        query = (await self.encoder.aencode([context]))[0]
        sims = cosine_rows(self._vectors, query)
        order = np.argsort(-sims, kind="stable")[:n]
        return [self.documents[i].model_copy(update={"score": float(sims[i])}) for i in order]


def cosine_rows(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    return np.asarray((matrix @ vector) / (norms * (np.linalg.norm(vector) or 1.0)))


async def gather(side: str, claim: str, resources: Resources, *, tools: list[str], pool_k: int,
                 generate_queries: bool, store: DebateStore) -> Turn:
    """The gatherer's one search at the start: a query for its view and one against, on every tool at once,
    into the debate's store."""
    agent = f"{side}-gatherer"
    queries = (CleanQuery(claim), CleanQuery(claim))
    if generate_queries:
        asked = await ask(
            resources.llm("gatherer"), render("dpd_queries", side=side, stance=STANCE[side], claim=claim),
            lambda text: parse_queries(text, claim), what="query",
            problem='the answer must be a JSON object {"support": "...", "refute": "..."}',
            # The prompt asks for this object alone: held to its schema from the first ask where the backend can.
            params=GenParams(temperature=0.0, max_tokens=QUERY_TOKENS, json_schema=QUERY_SCHEMA),
            reask=format_reask(QUERY_TOKENS, QUERY_GRAMMAR, (QUERY_SCHEMA, _QUERY_JSON)),
            agent=agent)
        if asked.value is not None:  # else the claim is a fair query (the failure is recorded)
            queries = asked.value
    written = {q.text: q.written for q in reversed(queries)}  # the model's text of each distinct query
    unique = list(dict.fromkeys(q.text for q in queries))
    retrieval = resources.settings.retrieval
    found = await gather_all(*(search_tool(resources.tool(kind), query, pool_k, agent=agent, round=0,
                                               written=written[query])
                                   for kind in tools for query in unique))
    documents = trim([d for batch in found for d in batch], retrieval.max_doc_chars)
    await store.add(documents)
    turn = Turn(agent=agent, role="gatherer", team=side, tool="+".join(tools) or "none", query=" | ".join(unique),
                evidence=store.documents)
    turn.response = f"stored {len(store.documents)} document(s) from {len(found)} search(es)"
    turn_started(turn, 0)
    answered(turn, 0)
    return turn


async def given_turn(side: str, documents: list[Document]) -> Turn:
    """The gatherer's setup turn when the task supplies the evidence and nothing is searched."""
    turn = Turn(agent=f"{side}-gatherer", role="gatherer", team=side, tool="given", evidence=list(documents),
                response=f"stored {len(documents)} document(s) the task supplies")
    turn_started(turn, 0)
    answered(turn, 0)
    return turn


async def select_snippets(side: str, store: DebateStore, context: str, n: int, chars: int, round: int) -> Turn:
    """The gatherer's per-round move: no model call, only the store's nearest snippets to the context."""
    snippets = trim(await store.select(context, n), chars)
    turn = Turn(agent=f"{side}-gatherer", role="gatherer", team=side, tool="store", evidence=snippets,
                response=f"selected {len(snippets)} of {len(store.documents)} stored snippet(s)")
    turn_started(turn, round)
    answered(turn, round)
    return turn


async def statement(llm: LLM, prompt: Prompt, *, agent: str, role: str, team: str | None, round: int,
                    temperature: float, max_tokens: int, evidence: list[Document] | None = None,
                    draw: str = "") -> Turn:
    """A free-text statement, never re-asked, bounded by :func:`statement_params`; ``draw`` numbers one of a
    summarizer's k samples."""
    turn = Turn(agent=agent, role=role, team=team, evidence=list(evidence or []))
    if not draw:
        turn_started(turn, round)
    reply = await say(llm, prompt, statement_params(role, temperature, max_tokens), agent=agent, round=round,
                      draw=draw)
    turn.response = reply.text.strip()
    if not draw:
        answered(turn, round)
    return turn


async def summarize(llm: LLM, encoder: TextEncoder, variables: dict[str, Any], *, side: str, round: int, k: int,
                    temperature: float, max_tokens: int, evidence: list[Document]) -> Turn:
    """k samples at once: the medoid is the statement, their mean pairwise cosine the confidence (None for one)."""
    agent = f"{side}-summarizer"
    prompt = render("dpd_summarizer", **variables)
    turn = Turn(agent=agent, role="summarizer", team=side, evidence=evidence)
    turn_started(turn, round)
    samples = await gather_all(*(statement(llm, prompt, agent=agent, role="summarizer", team=side,
                                               round=round, temperature=temperature, max_tokens=max_tokens,
                                               draw=str(i + 1)) for i in range(k)))
    texts = [s.response for s in samples]
    chosen, confidence = 0, None
    if k > 1:
        chosen, confidence = await agreement(encoder, texts)
    turn.response = texts[chosen]
    answered(turn, round)
    turn.scores["confidence"] = confidence
    if confidence is None:
        turn.score_errors.append("confidence: one sample, no agreement to measure")
    scored(turn, round)
    return turn


async def agreement(encoder: TextEncoder, texts: list[str]) -> tuple[int, float]:
    """(index of the medoid, mean pairwise cosine clipped to [0, 1]); an empty sample agrees with nothing."""
    import numpy as np

    vectors = np.asarray(await encoder.aencode([t or " " for t in texts]), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit = vectors / norms
    sims = np.clip(unit @ unit.T, 0.0, 1.0)
    for i, text in enumerate(texts):
        if not text.strip():
            sims[i, :] = sims[:, i] = 0.0
    n = len(texts)
    off_diagonal = sims.sum(axis=1) - np.diag(sims)
    mean_pairwise = float(off_diagonal.sum() / (n * (n - 1)))
    return int(np.argmax(off_diagonal)), round(mean_pairwise, 4)
