"""Where a run on the Tool-MAD paper's medical sets (Table V) departs from the paper's setting, declared in
``run.json`` and the summary beside the method's own deviations (eval/runner.py ``Plan.info``):

MedQA's RAG corpus, PubMedQA's questions checked as claims, and its abstracts summarised by the debater's model
rather than BERT."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation

if TYPE_CHECKING:
    from factdebate.settings.model import Settings


def with_medical(kind: str, settings: Settings, tools: Iterable[str], method: list[Deviation]) -> list[Deviation]:
    """A run's deviations: the method's, then the medical set's (on MedQA without the method's ``rag_corpus``,
    which ``medqa_corpus`` replaces)."""
    if kind == "medqa":
        method = [d for d in method if d.key != "rag_corpus"]
    return [*method, *medical_deviations(kind, settings, tools)]


def medical_deviations(kind: str, settings: Settings, tools: Iterable[str]) -> list[Deviation]:
    """The deviations of a run on dataset ``kind`` whose method uses ``tools`` (its kinds)."""
    tools = set(tools)
    found: list[Deviation] = []
    corpus = settings.retrieval.corpus
    if kind == "medqa" and "rag" in tools and "pubmed" not in corpus.lower():
        what = " (English Wikipedia lead summaries)" if corpus == "builtin" else ""
        found.append(Deviation(key="medqa_corpus", paper="the MedQA runs' RAG agent reads a PubMed-based corpus "
                               "(Section IV, medical experiments)",
                               here=f"the RAG tool reads the '{corpus}' corpus{what}",
                               restore="index PubMed abstracts (factdebate index), then --corpus NAME"))
    if kind == "pubmedqa":
        found.append(Deviation(
            key="pubmedqa_claims", paper="PubMedQA's yes/no/maybe questions are answered (Table V, exact match)",
            here='each question is checked as the claim \'The answer to the biomedical research question "..." '
                 "is yes.' (SUPPORTS = yes, REFUTES = no, NOT ENOUGH INFO = maybe)"))
        if "search" in tools and settings.medical.search != "default":
            here = ("the debater's model writes each abstract's summary (one call per abstract)"
                    if settings.medical.summarize else "the abstracts go into the debate whole, not summarised")
            found.append(Deviation(key="abstract_summaries", paper="the three abstracts are summarised with BERT "
                                   "before they enter the debate (Section IV, Fig. 7)", here=here))
    return found
