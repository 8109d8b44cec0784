"""What every tool server shares: bounded inputs, results as plain dicts, and failures as tool errors."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from factdebate.core.types import Document
from factdebate.util.errors import FactDebateError

MAX_QUERY_CHARS = 300
MAX_K = 10
MAX_TEXT_CHARS = 8000  # one observation must fit an agent's prompt next to its history

Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look for.")]
Title = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description="Article title.")]
K = Annotated[int, Field(ge=1, le=MAX_K, description="How many results.")]
SearchBefore = Annotated[str | None, Field(
    default=None, pattern=r"^\d{4}-\d{2}-\d{2}$",
    description="Only evidence published (or page revisions saved) before this date, YYYY-MM-DD.")]
ExcludeDomains = Annotated[list[Annotated[str, Field(max_length=100)]] | None, Field(
    default=None, max_length=50, description="Drop results from these domains (and their subdomains).")]
ExcludeFactCheckers = Annotated[bool, Field(
    default=False, description="Also drop results from well-known fact-checking sites.")]

log = logging.getLogger("factdebate.toolservers")
P = ParamSpec("P")
R = TypeVar("R")


def tool_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Turn every failure into a :class:`ToolError`: our errors with their message, others by type only."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except ToolError:
            raise
        except (FactDebateError, ValueError) as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:
            log.exception("tool %s failed", fn.__name__)
            raise ToolError(f"{fn.__name__} failed unexpectedly ({type(exc).__name__}); "
                            "the server log has the details") from None

    return wrapper


def clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def doc_result(doc: Document, chars: int = 1500, **extra: Any) -> dict[str, Any]:
    return {"title": doc.title, "text": clip(doc.text, chars), "source": doc.source,
            "score": round(doc.score, 4), **extra}


def search_reply(docs: list[Document], notes: list[str], chars: int = 1500) -> dict[str, Any]:
    """What every search tool answers: the passages, and notes on the controls it could not apply."""
    return {"results": [doc_result(d, chars) for d in docs], "notes": notes}
