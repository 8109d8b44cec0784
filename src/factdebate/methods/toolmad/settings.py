"""Tool-MAD's settings (``methods.toolmad.*``, flags such as ``--rounds``), apart so that the modules
``method.py`` imports can name the type without a cycle."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from factdebate.core.fields import offered
from factdebate.methods.base import MethodSettings
from factdebate.tools.registry import AgentTool


class ToolMADSettings(MethodSettings):
    rounds: int = Field(
        title="Debate rounds", default=3, ge=1, le=10, json_schema_extra=offered(group="rounds", main=True),
        description="Maximum debate rounds T.")
    agents: list[AgentTool] = Field(
        title="Agents' tools", default_factory=lambda: ["rag", "search"],
        json_schema_extra=offered(group="agents", main=True, minItems=2, maxItems=3),  # checked below, in words
        description="Tools of the debaters: 2 or 3 of rag, search, none, mcp:<server>/<tool>.")
    faithfulness_threshold: float = Field(
        title="Faithfulness threshold", default=0.7, ge=0, le=1, json_schema_extra=offered(group="scoring", main=True),
        description="Faithfulness each agreeing answer needs for a consensus.")
    relevance_threshold: float = Field(
        title="Relevance threshold", default=0.8, ge=0, le=1, json_schema_extra=offered(group="scoring", main=True),
        description="Answer relevance each agreeing answer needs for a consensus.")
    # Where relevance_threshold came from, field by field (`factdebate calibrate relevance` writes them), so a
    # run can check its own encoder against the one the threshold was measured with.
    relevance_calibrated_dataset: str = Field(
        title="Calibrated on dataset", default="", max_length=500, json_schema_extra=offered(group="scoring"),
        description="The dataset relevance_threshold was calibrated on (`factdebate calibrate relevance`); "
                    "empty: the paper's 0.8, set on another encoder.")
    relevance_calibrated_encoder: str = Field(
        title="Calibrated with encoder", default="", max_length=200, json_schema_extra=offered(group="scoring"),
        description="The encoder that calibration scored with; a run scoring with another is warned.")
    relevance_calibrated_share: float | None = Field(
        title="Calibrated share", default=None, ge=0.01, le=0.99, json_schema_extra=offered(group="scoring"),
        description="The share of round-1 debate answers the calibrated threshold lets pass.")
    # Algorithm 1 adds each round's scores into a running sum (S <- S + (f, ar)) and compares that with the
    # thresholds; the text, and the authors' code, test each round's own scores and hand the sums to the judge
    # only. We default to that (a sum passes 0.8 from round 2 on whatever the answers), offer Algorithm 1's sum
    # and the running mean, and declare either.
    threshold_on: Literal["round", "average", "sum"] = Field(
        title="Thresholds apply to", default="round", json_schema_extra=offered(group="scoring"),
        description="Test thresholds on this round's scores (the paper's text and its authors' code), the running "
                    "mean, or the running sum of Algorithm 1.")
    # Algorithm 1 writes S > St, and the authors' code fails a score at or under its threshold: a score equal
    # to its threshold does not pass. ``at_least`` lets it pass (declared).
    threshold_pass: Literal["above", "at_least"] = Field(
        title="A score passes when it is", default="above", json_schema_extra=offered(group="scoring"),
        description="above its threshold (>, Algorithm 1 and the authors' code) or at least at it (>=).")
    query_formulation: bool = Field(
        title="Rewrite queries", default=True, json_schema_extra=offered(group="evidence"),
        description="Agents rewrite their query each round.")
    # Algorithm 1's Query(A, c): the authors' code (and the earlier draft's appendix) has each debater write
    # its round-1 query from the claim alone, one query-selection call. The claim verbatim is declared.
    round1_query: Literal["model", "claim"] = Field(
        title="Round-1 query", default="model", json_schema_extra=offered(group="evidence"),
        description="Round 1's query: written by each debater from the claim (one call, as the paper's authors "
                    "do) or the claim verbatim (no call).")
    scoring: bool = Field(
        title="Score the answers", default=True, json_schema_extra=offered(group="scoring", main=True),
        description="Scoring feedback on/off (off: consensus on labels).")
    scoring_variant: Literal["stability", "consistency"] = Field(
        title="Scoring variant", default="stability", json_schema_extra=offered(group="scoring"),
        description="stability (paper) or consistency (draft).")
    relevance_questions: int = Field(
        title="Relevance questions", default=3, ge=1, le=10, json_schema_extra=offered(group="scoring"),
        description="Questions per relevance score.")
    judge_evidence_chars: int = Field(
        title="Evidence the judge reads", default=300, ge=0, le=100_000, json_schema_extra=offered(group="length"),
        description="Evidence characters the judge reads.")
    # The authors' code, not the paper, has this note (methods/toolmad/score_note.py). Off is declared.
    score_note: bool = Field(
        title="Tell a low-scored agent", default=True, json_schema_extra=offered(group="scoring"),
        description="After a round that ended in agreement with a score of an agent at or under its threshold, "
                    "that agent's next prompt says which score was low and why it matters.")
    # The paper's prompt (Fig. 5) sets no length limit; a cap also coarsens faithfulness (3 statements: 0, 1/3...).
    answer_sentences: int | None = Field(
        title="Answer length cap", default=None, ge=1, le=20, json_schema_extra=offered(group="length"),
        description="Most sentences of reasoning a debater writes (unset: no limit, as in the paper).")
    # A small in-process model reads "no passage says the tower is in Rome" as no information, and calls a
    # claim that a passage contradicts NOT ENOUGH INFO; the papers' prompts name the labels without saying
    # what tells them apart (benchmarks/decisions/label_guide.md).
    label_guide: bool | None = Field(
        title="Say what the labels mean", default=None, json_schema_extra=offered(group="scoring"),
        description="Two sentences before the debaters' and the judge's reasoning, where a document they are "
                    "shown names the claim's subject: first say what the documents state about it, then whether "
                    "it matches; another value (a place, date, number or name) makes the claim REFUTES, and NOT "
                    "ENOUGH INFO is for documents silent on it. Unset: on for an in-process GGUF model other than "
                    "the embedded SmolLM2 (the offline model), off for a served model. On is declared.")
    # The offline model's rounds agree but almost never pass the paper's scores: MiniLM scores its answers'
    # relevance lower than the paper's encoder, and its scorer checks a refutation's conclusion ("X is not in
    # Rome") literally, so every claim costs three rounds and the judge (benchmarks/decisions/offline_scoring.md).
    offline_scoring: bool | None = Field(
        title="Scores tuned to the offline model", default=None, json_schema_extra=offered(group="scoring"),
        description="Answer relevance is tested against the threshold calibrated for the offline model with "
                    "MiniLM (unless relevance_threshold is set to another value or calibrated), and faithfulness "
                    "leaves out the statements that are an answer's conclusion (the claim negated, or what it says "
                    "about the claim or the verdict). Unset: on for the offline model (llama-cpp:qwen2.5-coder-1.5b) "
                    "debating and scoring, off otherwise. On is declared.")
    speculate: bool | None = Field(
        title="Start rounds ahead", default=None, json_schema_extra=offered(operator_only=True, group="rounds"),
        description="Start round r+1 while round r is scored (same verdicts, less time, some discarded calls). "
                    "Unset: on when the debater's backend serves calls in parallel (served models), off for the "
                    "in-process llama.cpp model.")  # discarded calls cost: the operator's choice

    @model_validator(mode="before")
    @classmethod
    def _free_text_calibration(cls, data: Any) -> Any:
        """The free-text ``relevance_calibration`` of older runs: empty, it is dropped; a note cannot be
        checked against a run's encoder, so it is refused with the way to the structured fields."""
        if isinstance(data, dict) and "relevance_calibration" in data:
            data = dict(data)
            if data.pop("relevance_calibration"):
                raise ValueError("relevance_calibration (a free-text note) is replaced by relevance_calibrated_"
                                 "dataset, _encoder and _share: run `factdebate calibrate relevance` again")
        return data

    @model_validator(mode="after")
    def _calibration_whole(self) -> ToolMADSettings:
        given = [bool(self.relevance_calibrated_dataset), bool(self.relevance_calibrated_encoder),
                 self.relevance_calibrated_share is not None]
        if any(given) and not all(given):
            raise ValueError("a relevance calibration names its dataset, encoder and share together "
                             "(relevance_calibrated_dataset, relevance_calibrated_encoder, relevance_calibrated_share)")
        return self

    @property
    def calibrated(self) -> bool:
        return bool(self.relevance_calibrated_dataset)

    @field_validator("agents")
    @classmethod
    def _two_or_three(cls, agents: list[AgentTool]) -> list[AgentTool]:
        if len(agents) not in (2, 3):
            raise ValueError("Tool-MAD needs 2 or 3 agents")
        return agents
