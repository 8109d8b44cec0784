"""Silent evidence on the offline model itself: Tool-MAD's round-1 RAG debater, shown the built-in passages the
full-text index returns for a FEVER NOT ENOUGH INFO claim (passages about someone or something else), answers
NOT ENOUGH INFO with the offline default. The label guide, which turned these claims into REFUTES
(benchmarks/decisions/label_guide.md), is given only where a document names the claim's subject, so the
default's prompt here is the papers'. The prompt is the method's, with the number note as the
offline model gets it, on two llama.cpp threads as measured; minutes on 2 cores, skipped where
``factdebate setup`` has not installed the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.core.types import Label
from factdebate.corpus.builtin import load_builtin_corpus
from factdebate.hub.offline_model import QWEN_CODER_1_5B
from factdebate.llm.llama_threads import ENV as THREADS_ENV
from factdebate.methods.kit.common import trim
from factdebate.methods.kit.paper_setup import notes_numbers
from factdebate.methods.kit.subject import names_subject
from factdebate.methods.kit.turns import answer_turn
from factdebate.methods.toolmad.method import ToolMAD, debate_prompt
from factdebate.methods.toolmad.paper import label_guide_on
from factdebate.run.build import build_resources
from factdebate.settings.load import settings_from
from factdebate.tools.registry import agent_description
from tests.server.proxy_quick_start import installed_data_folder, offline_data_folder

QWEN = "llama-cpp:qwen2.5-coder-1.5b"
# FEVER NOT ENOUGH INFO claims of the Tool-MAD authors' sample, each with the three built-in articles the RAG
# tool's full-text index returns for it: passages about someone or something else.
SILENT = [
    ("Steve Coogan produced What Maisie Knew.", ("Steve Wozniak", "Steve Jobs", "Steve Biko")),
    ("Avatar: The Last Airbender ran for 61 episodes.",
     ("The Last Supper (Leonardo)", "Fermat's Last Theorem", "Vlad the Impaler")),
]


@pytest.mark.slow
@pytest.mark.skipif(not (installed_data_folder() / "models" / QWEN_CODER_1_5B.file).exists(),
                    reason="the offline model is not installed (factdebate setup)")
@pytest.mark.parametrize(("claim", "titles"), SILENT)
async def test_passages_about_someone_else_end_not_enough_info(claim: str, titles: tuple[str, ...],
                                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTDEBATE_DATA_DIR", str(offline_data_folder(tmp_path / "data", installed_data_folder())))
    monkeypatch.setenv(THREADS_ENV, "2")
    settings = settings_from({"llm": QWEN, "cache": False})
    cfg = ToolMAD().cfg(settings)
    articles = {document.title: document for document in load_builtin_corpus()}
    documents = trim([articles[title] for title in titles], settings.retrieval.max_doc_chars)
    assert label_guide_on(cfg, settings)  # the offline default turns the guide on ...
    guided = label_guide_on(cfg, settings) and names_subject(claim, documents)
    assert not guided  # ... and these passages name nothing the claim is about: the papers' prompt
    prompt = debate_prompt(cfg, agent_description("rag"), claim, documents, label_guide=guided,
                           number_notes=notes_numbers(settings))
    resources = build_resources(settings)
    try:
        turn = await answer_turn(resources.debater, prompt, agent="rag", round=1)
    finally:
        await resources.aclose()
    assert turn.label == Label.NOT_ENOUGH_INFO, turn.response
