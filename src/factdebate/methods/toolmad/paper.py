"""Where Tool-MAD's settings depart from the journal paper's main experiment (Algorithm 1, Sections III-IV);
its ablations are listed too, so a run's figures are compared with the right table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from factdebate.core.deviations import Deviation
from factdebate.methods.kit.paper_setup import (
    answer_format,
    guide_labels,
    number_notes,
    toolmad_backbone,
    toolmad_scorer,
    top_k,
)
from factdebate.methods.kit.sources import homogeneous_deviation, rag_corpus_deviation, search_engine_deviation
from factdebate.methods.kit.turns import ANSWER_TOKENS
from factdebate.methods.toolmad import authors_code
from factdebate.methods.toolmad.offline_scoring import offline_scoring_on
from factdebate.scoring.calibrate import relevance_encoder

if TYPE_CHECKING:
    from factdebate.methods.settings_protocol import RunSettings
    from factdebate.methods.toolmad.settings import ToolMADSettings

AGENTS = ["rag", "search"]
ROUNDS = 3
FAITHFULNESS, RELEVANCE = 0.7, 0.8
TOOLS_PAPER = "a RAG agent over a Wikipedia vector index and a search agent on the live web (Tavily)"


def deviations(cfg: ToolMADSettings, settings: RunSettings) -> list[Deviation]:
    found = toolmad_backbone(settings, answers=False)
    tools = [str(kind) for kind in cfg.agents]
    found += homogeneous_deviation(tools, settings, paper=TOOLS_PAPER)
    found += search_engine_deviation(tools, settings, paper_engine="tavily", who="the search agent's searches")
    found += rag_corpus_deviation(tools, settings, paper="the RAG agent searches a Milvus vector index of Wikipedia")
    if tools != AGENTS:
        found.append(Deviation(key="agents", paper="RAG + SEARCH (other pairs are Table VI's ablations)",
                               here=f"agents {' + '.join(tools)}", restore="--agents rag,search"))
    if cfg.rounds != ROUNDS:
        found.append(Deviation(key="rounds", paper=f"T = {ROUNDS}", here=f"T = {cfg.rounds}",
                               restore=f"--rounds {ROUNDS}"))
    found += top_k(settings)
    found += number_notes(settings)
    found += authors_code.deviations(cfg, settings)
    calibrated = cfg.calibrated
    if (cfg.faithfulness_threshold, RELEVANCE if calibrated else cfg.relevance_threshold) != (FAITHFULNESS,
                                                                                             RELEVANCE):
        found.append(Deviation(
            key="thresholds", paper=f"thresholds: faithfulness {FAITHFULNESS}, answer relevance {RELEVANCE}",
            here=f"thresholds: faithfulness {cfg.faithfulness_threshold}, answer relevance {cfg.relevance_threshold}",
            restore=f"--faithfulness-threshold {FAITHFULNESS} --relevance-threshold {RELEVANCE}"))
    if cfg.scoring and cfg.scoring_variant == "stability":
        found += toolmad_scorer(settings)
        found += _relevance_encoder(cfg, settings)
    found += _ablations(cfg)
    if cfg.scoring and cfg.scoring_variant == "stability":
        found += _threshold_test(cfg)
        if not cfg.score_note:
            found.append(Deviation(
                key="score_note", paper="after a round that ended in agreement with a low score, the authors' code "
                "tells that debater its faithfulness or relevance was low and why it matters (the papers are silent)",
                here="no note: a debater is not told its scores", restore="--score-note"))
    found += answer_format(settings, paper="debaters answer in free text, the label on the last line (Fig. 5); "
                           "faithfulness is scored on that text", scored=True)
    found.append(Deviation(
        key="judge_explains", paper="the judge outputs the label (Fig. 6: SUPPORTS, REFUTES or NOT ENOUGH INFO)",
        here="the judge explains in two or three sentences, then gives the label on the last line"))
    found.append(Deviation(
        key="answer_tokens", paper="no length is set for a debater's answer (Fig. 5)",
        here=f"a debater's answer is cut at {ANSWER_TOKENS} tokens (a generation limit)"))
    if label_guide_on(cfg, settings):
        found.append(Deviation(
            key="label_guide", paper="the debate and judge prompts (Fig. 5, 6) list the labels without saying what "
            "tells REFUTES from NOT ENOUGH INFO",
            here="where a document shown names the claim's subject, the debaters' and the judge's prompts end by "
                 "asking them to say first what the documents state about it and whether it matches: another value "
                 "refutes the claim, and NOT ENOUGH INFO is for documents silent on it (on for an in-process GGUF "
                 "model)", restore="--no-label-guide"))
    if cfg.scoring and cfg.scoring_variant == "stability" and offline_scoring_on(cfg, settings):
        found.append(Deviation(
            key="offline_scoring", paper="faithfulness is the share of all an answer's statements that its "
            "documents back (RAGAS), and answer relevance is tested against 0.8",
            here="faithfulness leaves out the statements that are the answer's conclusion (the claim negated, or "
                 "what it says about the claim or the verdict), and answer relevance is tested "
                 "against the threshold calibrated for the offline model unless one is set (on for "
                 "llama-cpp:qwen2.5-coder-1.5b)", restore="--no-offline-scoring"))
    if cfg.answer_sentences is not None:
        found.append(Deviation(
            key="answer_cap", paper="debaters explain, then give the label, with no length limit (Fig. 5)",
            here=f"debaters write at most {cfg.answer_sentences} sentence(s), which also coarsens faithfulness "
                 "(a share of few statements)", restore="leave methods.tool-mad.answer_sentences unset"))
    if cfg.judge_evidence_chars < settings.retrieval.max_doc_chars:
        found.append(Deviation(
            key="judge_evidence", paper="the judge reads the debate history with each round's retrieved evidence",
            here=f"the judge reads the first {cfg.judge_evidence_chars} characters of each document",
            restore=f"--judge-evidence-chars {settings.retrieval.max_doc_chars}"))
    return found


def label_guide_on(cfg: ToolMADSettings, settings: RunSettings) -> bool:
    """Whether the prompts say what tells the labels apart (kit/paper_setup.py ``guide_labels``)."""
    return guide_labels(cfg.label_guide, settings)


def _threshold_test(cfg: ToolMADSettings) -> list[Deviation]:
    """How a score is tested against its threshold. The default (each round's own four scores, a score
    passing only above its threshold) is what the authors' code does and declares nothing."""
    found = []
    if cfg.threshold_pass != "above":
        found.append(Deviation(
            key="threshold_comparison", paper="Algorithm 1 stops on agreement when the scores are above the "
            "thresholds (S > St), and the authors' code fails a score at or under its threshold",
            here="a score equal to its threshold passes (>=)", restore="--threshold-pass above"))
    if cfg.threshold_on != "round":
        found.append(Deviation(
            key="stability_sum", paper="Algorithm 1 writes a running sum S <- S + (f, ar) tested against the "
            "thresholds; the text calls a round inconclusive when its own score falls below one, and the authors' "
            "code tests each round's own four scores, handing the running sums to the judge alone (S / 3, Fig. 6)",
            here="the thresholds test " + ("the running sum of the rounds so far, as Algorithm 1 writes it"
                                           if cfg.threshold_on == "sum" else "the mean of the rounds so far"),
            restore="--threshold-on round"))
    return found


def _ablations(cfg: ToolMADSettings) -> list[Deviation]:
    found = []
    if not cfg.query_formulation:
        found.append(Deviation(key="query_formulation", paper="agents rewrite their query every round",
                               here="every round searches with the claim (the paper's ablation, Fig. 9)",
                               restore="--query-formulation"))
    elif cfg.round1_query == "claim":
        found.append(Deviation(key="round1_query", paper="each debater writes its round-1 query from the claim "
                               "(Algorithm 1's Query(A, c); the authors' code asks the model once per agent)",
                               here="round 1 searches with the claim verbatim, no query call",
                               restore="--round1-query model"))
    if not cfg.scoring:
        found.append(Deviation(key="scoring", paper="stability scores decide the early stop and inform the judge",
                               here="no scores (the paper's ablation, Fig. 10)", restore="--scoring"))
    elif cfg.scoring_variant != "stability":
        found.append(Deviation(key="scoring_variant", paper="faithfulness and answer relevance (stability score)",
                               here="the earlier draft's consistency score", restore="--scoring-variant stability"))
    return found


def _relevance_encoder(cfg: ToolMADSettings, settings: RunSettings) -> list[Deviation]:
    """The paper set 0.8 from its own encoder's scores; MiniLM scores lower, and a threshold calibrated with
    another encoder does not carry over."""
    paper = ("answer relevance above 0.8 (S > St), read off the paper's own score distribution (most answers "
             "score above 0.8; Section III.C, Fig. 3)")
    encoder = relevance_encoder(settings.retrieval.encoder)
    if not cfg.calibrated:
        return [Deviation(key="relevance_encoder", paper=paper,
                          here=f"{encoder} scores against {cfg.relevance_threshold}, a cut-off set on another "
                               "encoder (MiniLM scores good answers about 0.76-0.88), so fewer rounds pass it",
                          restore="factdebate calibrate relevance --dataset D, then the flags it prints")]
    share = cfg.relevance_calibrated_share or 0.0
    found = [Deviation(key="relevance_encoder", paper=paper,
                       here=f"{encoder} with the threshold {cfg.relevance_threshold}, calibrated so that "
                            f"{share:.0%} of round-1 debate answers on {cfg.relevance_calibrated_dataset} pass "
                            f"(scored with {cfg.relevance_calibrated_encoder})")]
    if cfg.relevance_calibrated_encoder != encoder:
        found.append(Deviation(
            key="relevance_calibration_encoder", paper="a threshold read off the scores of the encoder in use",
            here=f"WARNING: the threshold {cfg.relevance_threshold} was calibrated with "
                 f"{cfg.relevance_calibrated_encoder}, and this run scores with {encoder}: it does not carry over",
            restore=f"factdebate calibrate relevance --dataset {cfg.relevance_calibrated_dataset} with this "
                    "run's encoder"))
    return found
