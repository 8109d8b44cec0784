"""Search results in one order whatever the index's layout: best score first, equal scores by passage id.

An engine breaks ties by where a passage sits in its index, which differs between two builds of one corpus.
So a search asks for a few more than ``k`` (more while ties with the ``k``-th may go on) and cuts after
sorting by id."""

from __future__ import annotations

from collections.abc import Callable

from factdebate.core.types import Document

# Extra passages asked for beyond k, so that a tie at the k-th place is usually seen whole in one search.
TIE_MARGIN = 8
# Past this many passages of one score, the rest of the tie is left to the engine's order.
MAX_TIED = 4096


def best_first(documents: list[Document], k: int) -> list[Document]:
    """The ``k`` highest-scored passages, equal scores in order of id."""
    return sorted(documents, key=lambda d: (-d.score, d.id))[:k]


def search_ties_by_id(search: Callable[[int], list[Document]], k: int) -> list[Document]:
    """The ``k`` best passages of ``search(limit)`` (an engine's ``limit`` best, best first), ties by id."""
    limit = k + TIE_MARGIN
    while True:
        found = search(limit)
        # Complete when the engine had no more to give, or when the last passage it gave scores below the k-th.
        if len(found) < limit or len(found) <= k or found[-1].score < found[k - 1].score or limit >= MAX_TIED:
            return best_first(found, k)
        limit *= 4
