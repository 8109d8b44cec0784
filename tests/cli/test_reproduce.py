"""``factdebate reproduce`` through the CLI entry point in-process, on the scripted backend: the runs a paper
needs, skipped ones said and explained, the report beside the paper's figures, resuming, ``--dry-run``, and
``--from`` giving the same verdicts again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from factdebate.cli.main import run
from tests.eval.reproduce.test_cells import claims_file
from tests.paths import SHARED

SCRIPTED = ["--llm", "scripted:agree", "--no-cache"]


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out, captured.err
    return code, captured.out, captured.err


def test_toolmad_runs_the_datasets_given_and_skips_the_others(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    data = ["--data", f"feverous=claims:{claims_file(tmp_path / 'feverous.jsonl')}",
            "--data", f"faviq=claims:{claims_file(tmp_path / 'faviq.jsonl')}"]
    out = tmp_path / "out"
    args = ["reproduce", "toolmad", "--rows", "single,cot", "--limit", "2", "-o", str(out), *data, *SCRIPTED]
    code, _, err = call(capsys, *args)
    assert code == 0, err
    assert "fever/single: skipped: cannot load 'fever'" in err and "--data fever=fever:PATH" in err
    manifest = json.loads((out / "reproduce.json").read_text())
    status = {f"{c['dataset']}/{c['run']}": c["status"] for c in manifest["cells"]}
    assert status == {f"{d}/{r}": "done" if d in ("feverous", "faviq") else "skipped"
                      for r in ("single", "cot") for d in ("fever", "feverous", "faviq", "averitec")}
    report = (out / "report.md").read_text()
    assert "A capable model is needed for the paper's numbers" in report
    # a scripted model is said to be one, not "the embedded model", in the report and the closing line
    assert "a scripted model (`scripted:...`) answers from a fixed script" in report and "SmolLM2" not in report
    closing = err.strip().splitlines()[-1]
    assert closing.startswith("A capable model is needed") and "a scripted model (scripted:...)" in closing
    assert "embedded model" not in closing
    assert "| GPT-4o-mini + CoT(Zero-shot) (GPT-4o-mini) | cot | FEVEROUS | accuracy | 31.0 |" in report
    assert "| GPT-4o-mini + CoT(Zero-shot) (GPT-4o-mini) | cot | FEVER | accuracy | 66.5 | not run (skipped) |" \
        in report
    assert "Tool-MAD (journal), Table III, row 'GPT-4o-mini + CoT(Zero-shot)', column 'FAVIQ', accuracy: 67.0" in report
    assert "## Not run" in report and "fever/cot (skipped): cannot load 'fever'" in report
    # what each run cost: model calls, tokens and seconds per claim, then its seconds in all
    done_row = next(line for line in report.splitlines() if line.startswith("| cot | faviq | cot | done |"))
    assert re.search(r"\| \d+\.\d, [\d,]+, \d+\.\d \| [\d,]+ \| `", done_row), done_row
    assert (out / "table3.png").exists() and (out / "feverous" / "cot" / "summary.json").exists()
    results = (out / "faviq" / "cot" / "results.jsonl").read_bytes()
    code, _, err = call(capsys, *args)  # a second invocation continues: nothing is left to run
    assert code == 0 and (out / "faviq" / "cot" / "results.jsonl").read_bytes() == results

    code, printed, err = call(capsys, "reproduce", "--from", str(out), "-o", str(tmp_path / "again"))
    assert code == 0, err
    assert printed.count("the verdicts match for 2 of 2 sample(s)") == 4
    assert "Rerun of an earlier reproduction" in (tmp_path / "again" / "report.md").read_text()


def test_nothing_available_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "reproduce", "toolmad", "-o", str(tmp_path / "out"), *SCRIPTED)
    assert code == 2 and "nothing to run" in err and "--data DATASET=FORMAT:PATH" in err
    code, _, err = call(capsys, "reproduce", "toolmad", "--table", "table9", "-o", str(tmp_path / "o"))
    assert code == 2 and "has no table 'table9'" in err
    code, _, err = call(capsys, "reproduce", "toolmad", "--table", "table2", "-o", str(tmp_path / "o"))
    assert code == 2 and "table3 (Table III: main results on four fact verification datasets (EM, %))" in err
    code, _, err = call(capsys, "reproduce", "toolmad", "--data", "hover=hover:x.json", "-o", str(tmp_path / "o"))
    assert code == 2 and "has no dataset hover" in err


def test_a_paper_and_its_tables_answer_to_the_papers_own_spellings() -> None:
    """Issue 50: `reproduce tool-mad` (the method's spelling) and `--table III` were refused."""
    from factdebate.eval.reproduce.spec import get_paper

    assert get_paper("tool-mad").key == "toolmad" and get_paper("Tool-MAD-draft").key == "toolmad-draft"
    paper = get_paper("toolmad")
    assert [paper.table(name).name for name in ("III", "Table IV", "5", "table-6")] == [
        "table3", "table4", "table5", "table6"]


def test_dry_run_lists_datasets_and_estimates_and_writes_nothing(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data = f"averitec=claims:{claims_file(tmp_path / 'a.jsonl', 10)}"
    code, printed, err = call(capsys, "reproduce", "toolmad", "--dry-run", "--data", data, "-o", str(tmp_path / "out"),
                              *SCRIPTED)
    assert code == 0, err
    assert "fever (FEVER; dev (not named by the paper); paper: 200, random draw): NOT AVAILABLE" in printed
    assert "averitec (AVERITEC; dev (not named by the paper); paper: 200, random draw): available:" in printed
    assert "averitec/tool-mad: tool-mad on claims:" in printed and "10 samples available, the paper used 200" in printed
    assert "6 run(s) ready, 18 skipped; estimated" in printed and "tokens" in printed
    assert not (tmp_path / "out").exists()


def test_datasets_picks_columns_of_the_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, printed, err = call(capsys, "reproduce", "dpd", "--table", "table3", "--rows", "dpd-given,factool-given",
                              "--datasets", "halueval-dialogue", "--dry-run", "-o", str(tmp_path / "out"), *SCRIPTED)
    assert code == 0, err
    planned = [line.split(":")[0].strip() for line in printed.splitlines() if line.startswith("  halueval-dialogue/")]
    assert planned == ["halueval-dialogue/factool-given", "halueval-dialogue/dpd-given"]
    assert "2 run(s) ready, 0 skipped" in printed and "halueval-qa/" not in printed
    code, _, err = call(capsys, "reproduce", "dpd", "--datasets", "fever", "-o", str(tmp_path / "o"), *SCRIPTED)
    assert code == 2 and "--datasets: no dataset fever in table2, table3; its datasets: factool-qa," in err


def test_dpd_runs_on_the_builtin_halueval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code, _, err = call(capsys, "reproduce", "dpd", "--table", "table4", "--rows", "dpd-given", "--limit", "1",
                        "-o", str(out), *SCRIPTED)
    assert code == 0, err
    report = (out / "report.md").read_text()
    assert "| True → Skeptic (ChatGPT) | dpd-given | HaluEval QA (80) | accuracy | 74.35 |" in report
    assert "--limit 1: 1 of the paper's 80 samples" in report
    run_json = json.loads((out / "halueval-qa-80" / "dpd-given" / "run.json").read_text())
    assert run_json["settings"]["methods"]["dpd"]["min_rounds"] == 2 and run_json["provenance"]["dataset"]["split"]


def test_mermaid_runs_with_and_without_a_memory_of_each_runs_own(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Figure 3's pair on one dataset: the memory run keeps an empty memory in its own folder (not a file
    named by --memory-path, which the first embedded run reported as a shared memory) and says so."""
    out = tmp_path / "out"
    data = f"factcheck-bench=claims:{claims_file(tmp_path / 'fcb.jsonl')}"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code, _, err = call(capsys, "reproduce", "mermaid", "--table", "figure3", "--limit", "2", "--data", data,
                        "--mermaid-servers", "search", "-o", str(out), *SCRIPTED)
    assert code == 0, err
    with_memory = json.loads((out / "factcheck-bench" / "mermaid" / "run.json").read_text())
    assert with_memory["run_state"]["memory"]["scope"] == "run"
    assert with_memory["settings"]["methods"]["mermaid"]["memory_path"] is None
    assert (out / "factcheck-bench" / "mermaid" / "evidence_memory.sqlite").is_file()
    keys = {d["key"] for d in with_memory["deviations"]}
    assert "memory_shared" not in keys and "memory_off" not in keys
    without = json.loads((out / "factcheck-bench" / "mermaid-no-memory" / "run.json").read_text())
    assert "run_state" not in without and "memory_off" in {d["key"] for d in without["deviations"]}
    report = (out / "report.md").read_text()
    assert "| with memory (GPT-5-mini) | mermaid | FactCheck-Bench | tool calls" in report
    assert "the memory file" not in report


def test_from_reruns_an_eval_run_with_the_same_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = claims_file(tmp_path / "claims.jsonl")
    first = tmp_path / "first"
    code, _, err = call(capsys, "eval", "--method", "cot", "--dataset", f"claims:{data}", "--limit", "3",
                        "-o", str(first), *SCRIPTED)
    assert code == 0, err
    code, printed, err = call(capsys, "reproduce", "--from", str(first), "-o", str(tmp_path / "second"))
    assert code == 0, err
    assert "the verdicts match for 3 of 3 sample(s)" in printed
    rerun = json.loads((tmp_path / "second" / "rerun.json").read_text())
    assert rerun["matching"] == rerun["samples"] == 3 and rerun["differ"] == [] and rerun["settings_changed"] == []
    before = json.loads((first / "run.json").read_text())["provenance"]["dataset"]["sample_ids"]
    assert json.loads((tmp_path / "second" / "run.json").read_text())["provenance"]["dataset"]["sample_ids"] == before

    data.write_text(data.read_text().replace("Claim number", "Another claim"), encoding="utf-8")
    code, _, err = call(capsys, "reproduce", "--from", str(first), "-o", str(tmp_path / "third"))
    assert code == 2 and "their checksum changed" in err
    code, _, err = call(capsys, "reproduce", "--from", str(first), "-o", str(first))
    assert code == 2 and "--output must be a new folder" in err


def test_from_reruns_with_the_recorded_longest_claim(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = claims_file(tmp_path / "claims.jsonl")
    first = tmp_path / "first"
    code, _, err = call(capsys, "eval", "--method", "cot", "--dataset", f"claims:{data}", "--limit", "2",
                        "--max-claim-chars", "13000", "-o", str(first), *SCRIPTED)
    assert code == 0, err
    code, printed, err = call(capsys, "reproduce", "--from", str(first), "-o", str(tmp_path / "second"))
    assert code == 0, err
    assert "max_claim_chars" not in printed + err
    assert json.loads((tmp_path / "second" / "run.json").read_text())["settings"]["max_claim_chars"] == 13000
    assert json.loads((tmp_path / "second" / "rerun.json").read_text())["settings_changed"] == []


def test_from_finds_a_relative_dataset_path_from_elsewhere(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    claims_file(work / "claims.jsonl")
    monkeypatch.chdir(work)
    code, _, err = call(capsys, "eval", "--method", "single", "--dataset", "claims:claims.jsonl", "--limit", "2",
                        "-o", "first", *SCRIPTED)
    assert code == 0, err
    monkeypatch.chdir(elsewhere)
    code, printed, err = call(capsys, "reproduce", "--from", str(work / "first"), "-o", "second")
    assert code == 0, err
    assert "the verdicts match for 2 of 2 sample(s)" in printed


@pytest.mark.skipif(not (SHARED / "datasets" / "feverous").exists(), reason="the shared datasets are not here")
def test_toolmad_on_the_shared_feverous_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    feverous = SHARED / "datasets" / "feverous" / "programfc_feverous_s_dev.json"
    code, _, err = call(capsys, "reproduce", "toolmad", "--table", "table3", "--rows", "tool-mad", "--limit", "1",
                        "--data", f"feverous=feverous:{feverous}", "--agents", "none,none", "--no-scoring",
                        "-o", str(tmp_path / "out"), *SCRIPTED)
    assert code == 0, err
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| GPT-4o-mini + Tool-MAD (GPT-4o-mini) | tool-mad | FEVEROUS | accuracy | 71.5 |" in report
    assert "your flag: agents: ['rag', 'search'] (paper) -> ['none', 'none']" in report


def test_an_openai_model_without_its_key_is_said_once_before_any_run(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code, _, err = call(capsys, "reproduce", "dpd", "--llm", "openai:gpt-4o-mini", "-o", str(out))
    assert code == 2 and "set the environment variable OPENAI_API_KEY" in err and not out.exists()
    code, printed, err = call(capsys, "reproduce", "dpd", "--llm", "openai:gpt-4o-mini", "--dry-run", "-o", str(out))
    assert code == 0 and "run(s) ready" in printed, err  # the plan needs no key


def test_figures_of_another_backbone_are_warned_of(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`--paper-model llama-3_3-70b` with a GPT-4o-mini run: stderr and report.md say the rows are another
    model's. The served model is the fake OpenAI server of tests/fake_openai.py."""
    from tests.fake_openai import FakeOpenAI, from_schema

    with FakeOpenAI(reply=from_schema("Verdict: SUPPORTS")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        data = ["--data", f"faviq=claims:{claims_file(tmp_path / 'faviq.jsonl')}"]
        code, _, err = call(capsys, "reproduce", "toolmad", "--rows", "single", "--limit", "1", "-o",
                            str(tmp_path / "out"), *data, "--paper-model", "llama-3_3-70b", "--llm",
                            "openai:gpt-4o-mini", "--no-cache")
    assert code == 0, err
    assert "warning: Table III, row 'LLama-3.3-70B(Inst)' (Llama-3.3-70B-Instruct): the paper's figures are " \
           "for its backbone, our run's debater is openai:gpt-4o-mini" in err
    assert "**our run's debater is openai:gpt-4o-mini, not this row's backbone**" in (
        tmp_path / "out" / "report.md").read_text()


def test_the_drafts_three_debater_row_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          builtin_index: Path) -> None:
    """The ACL draft's Table 3 row RAG + SEARCH + VANILA: Tool-MAD with three agents, beside the draft's
    figure. One scripted claim on the tests' pre-built 40-article index."""
    out = tmp_path / "out"
    code, _, err = call(capsys, "reproduce", "toolmad-draft", "--table", "table3", "--rows", "rag-search-vanilla",
                        "--datasets", "faviq", "--limit", "1", "--data",
                        f"faviq=claims:{claims_file(tmp_path / 'faviq.jsonl')}", "-o", str(out), *SCRIPTED)
    assert code == 0, err
    run = json.loads((out / "faviq" / "rag-search-vanilla" / "run.json").read_text())
    assert run["settings"]["methods"]["tool-mad"]["agents"] == ["rag", "search", "none"]
    assert run["settings"]["methods"]["tool-mad"]["scoring_variant"] == "consistency"
    report = (out / "report.md").read_text()
    assert "| RAG + SEARCH + VANILA (backbone not stated) | rag-search-vanilla | FAVIQ | accuracy | 73.0 |" in report
    assert "Tool-MAD (ACL draft), Table 3, row 'RAG + SEARCH + VANILA', column 'FAVIQ', accuracy: 73.0" in report


def test_feverous_and_faviq_without_the_authors_file_are_skipped_naming_both_reasons(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only FEVER and AVeriTeC have a bare dataset to draw from when the authors' file cannot be had;
    FEVEROUS and FaVIQ are skipped, saying that the authors' file could not be had either and how to supply
    a file, as the paper's note and docs/reproduce.md now say."""
    data = ["--data", f"fever=claims:{claims_file(tmp_path / 'fever.jsonl')}"]
    code, _, err = call(capsys, "reproduce", "toolmad", "--rows", "single", "--limit", "1", "-o",
                        str(tmp_path / "out"), *data, *SCRIPTED)
    assert code == 0, err
    for name in ("feverous", "faviq"):
        line = next(line for line in err.splitlines() if line.startswith(f"{name}/single: skipped"))
        assert f"cannot load '{name}': the '{name}' format needs a file" in line
        assert f"nor the authors' sample set toolmad-{name}:" in line and f"--data {name}={name}:PATH" in line
    from factdebate.eval.reproduce.spec import get_paper

    assert "FEVEROUS and FaVIQ have no such fallback" in get_paper("toolmad").note
