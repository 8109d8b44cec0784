"""``factdebate eval-retrieval``: recall@k, MRR and the corpus's coverage of the gold
pages for each search, as a user reads them, on the built-in corpus's first 40 articles (the tests' shared
index: BM25 and int8 vectors); and the scoring rules underneath (a gold set counts only when found whole)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from factdebate.cli.main import run as cli_run
from factdebate.core.types import Document
from factdebate.eval.report.intervals import wilson
from factdebate.eval.retrieval import ClaimRanks, SearchCost, first_complete_rank, summarise

EXE = str(Path(sys.executable).with_name("factdebate"))


def passages(*titles: str) -> list[Document]:
    return [Document(id=f"{t}#0", title=t, text="") for t in titles]


def test_a_gold_set_counts_when_all_its_pages_are_returned() -> None:
    gold = (("Aeneid", "Virgil"), ("Angkor Wat",))
    assert first_complete_rank(passages("Aeneid", "Anime", "virgil"), gold, "title") == 3  # case and spacing
    assert first_complete_rank(passages("Aeneid", "Anime", "Angkor_Wat"), gold, "title") == 3
    assert first_complete_rank(passages("Aeneid", "Anime"), gold, "title") is None
    assert first_complete_rank([Document(id="123#4", title="x", text="")], (("123",),), "id") == 1


def test_the_summary_counts_hits_at_each_k_and_pairs_the_searches() -> None:
    claims = [ClaimRanks(str(n), "c", {"bm25": "c"}, (("p",),), held=n < 3, rank={"a": rank_a, "b": rank_b})
              for n, (rank_a, rank_b) in enumerate([(1, 2), (1, None), (4, 1), (None, None)])]
    costs = {"a": SearchCost(4, 0.004, 0.008), "b": SearchCost(4, 0.008, 0.01)}
    summary = summarise(claims, ["a", "b"], costs)
    a, b = summary["searches"]
    assert [a["recall"][k]["hits"] for k in ("1", "3", "10")] == [2, 2, 3]
    assert [b["recall"][k]["hits"] for k in ("1", "3", "10")] == [1, 2, 2]
    assert a["recall"]["10"]["ci"] == list(wilson(3, 4))
    assert a["mrr"] == pytest.approx((1 + 1 + 0.25) / 4) and b["mrr_held"] == pytest.approx((0.5 + 1) / 3)
    assert a["cpu_ms_per_query"] == pytest.approx(1.0) and b["wall_ms_per_query"] == pytest.approx(2.5)
    at_1 = next(p for p in summary["pairs"] if p["k"] == 1)
    assert (at_1["only_a"], at_1["only_b"], at_1["difference"]) == (2, 1, 0.25)
    assert summary["held"] == 3


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, "eval-retrieval", *args], capture_output=True, text=True, env=dict(os.environ),
                          timeout=600)


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``eval-retrieval ARGS`` in this process, for a refusal's exit code and words: the console script's own
    runs are above; a start of it costs about a CPU-second the test worker has already paid."""
    capsys.readouterr()
    code = cli_run(["eval-retrieval", *args])
    said = capsys.readouterr()
    return subprocess.CompletedProcess(["factdebate", "eval-retrieval", *args], code, said.out, said.err)


def test_eval_retrieval_on_the_builtin_corpus(builtin_index: Path, tmp_path: Path) -> None:
    claims = tmp_path / "fever.jsonl"
    rows = [
        {"id": 1, "label": "SUPPORTS", "claim": "Angkor Wat is a temple complex in Cambodia.",
         "evidence": [[[1, 1, "Angkor_Wat", 0]]]},
        {"id": 2, "label": "REFUTES", "claim": "The Aeneid is a Latin epic poem written by Virgil.",
         "evidence": [[[2, 2, "Aeneid", 0]]]},
        {"id": 3, "label": "SUPPORTS", "claim": "Anna Karenina is a novel by Leo Tolstoy.",
         "evidence": [[[3, 3, "Anna_Karenina", 0], [3, 4, "Leo_Tolstoy", 1]], [[4, 5, "Anna_Karenina", 2]]]},
        {"id": 4, "label": "SUPPORTS", "claim": "Roger Penrose shared a prize with Stephen Hawking.",
         "evidence": [[[5, 6, "Roger_Penrose", 5]]]},  # not among the corpus's first 40 articles
        {"id": 5, "label": "NOT ENOUGH INFO", "claim": "Accordions were played at Alhambra.",
         "evidence": [[[6, None, None, None]]]},
    ]
    claims.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "out"
    result = run("--dataset", f"fever:{claims}", "--search", "bm25,dense,fusion", "--output", str(out))
    assert result.returncode == 0, result.stderr
    assert "4 claim(s) with gold evidence pages" in result.stderr and "(1 without" in result.stderr
    assert "bm25: 4 of 4 claims" in result.stderr and "fusion-int8: 4 of 4 claims" in result.stderr
    low, high = wilson(3, 4)
    assert result.stdout.splitlines()[0] == ("4 claims with gold pages; the corpus holds every page of a gold set "
                                             f"for 3 (75.0%, 95% CI {100 * low:.1f}%-{100 * high:.1f}%)")
    table = [line for line in result.stdout.splitlines() if line.startswith("| bm25 |")]
    assert len(table) == 2 and table[0].split(" | ")[4].startswith("0.750")  # recall@10 over all 4 claims
    assert table[1].split(" | ")[4].startswith("1.000")  # ... and over the 3 the corpus holds
    figures = json.loads((out / "retrieval.json").read_text())
    assert [row["search"] for row in figures["searches"]] == ["bm25", "dense-int8", "fusion-int8"]
    assert figures["corpus_pages"] == 40 and figures["held"] == 3 and figures["without_gold"] == 1
    ranked = [json.loads(line) for line in (out / "claims.jsonl").read_text().splitlines()]
    penrose = next(c for c in ranked if c["id"] == "4")
    assert penrose["held"] is False and penrose["rank"] == {"bm25": None, "dense-int8": None, "fusion-int8": None}
    angkor = next(c for c in ranked if c["id"] == "1")
    assert angkor["rank"]["bm25"] == 1 and angkor["pages"]["bm25"][0] == "Angkor Wat"
    assert (out / "retrieval.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "retrieval.md").read_text().splitlines()[0] == result.stdout.splitlines()[0]


def test_bad_requests_are_one_line(builtin_index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_gold = refused(capsys, "--dataset", "countries", "--limit", "3")
    assert no_gold.returncode == 2 and no_gold.stdout == ""
    assert no_gold.stderr.strip() == ("error: dataset 'countries' gives no gold evidence pages: measure retrieval "
                                      "on FEVER, FEVEROUS, HoVer or SciFact (e.g. --dataset fever:PATH)")
    claims = tmp_path / "fever.jsonl"
    claims.write_text(json.dumps({"id": 1, "label": "SUPPORTS", "claim": "Anime is animation.",
                                  "evidence": [[[1, 1, "Anime", 0]]]}) + "\n", encoding="utf-8")
    wrong_search = refused(capsys, "--dataset", f"fever:{claims}", "--search", "bm25,grep")
    assert wrong_search.returncode == 2
    assert wrong_search.stderr.strip() == ("error: --search 'bm25,grep': give one or more of bm25, dense, fusion, "
                                           "comma-separated")
    wrong_dense = refused(capsys, "--dataset", f"fever:{claims}", "--dense", "fp16")
    assert wrong_dense.returncode == 2 and len(wrong_dense.stderr.strip().splitlines()) == 1
    assert "--dense 'fp16': the encoder is one of int8, fp32" in wrong_dense.stderr


def test_tool_mads_round_one_queries_are_measured_on_its_own_searches(builtin_index: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """--queries tool-mad: each debater's round-1 query, written by the debater model through Tool-MAD's own
    query step (the scripted model answers '[<claim> evidence round 1]'), is what its search is asked."""
    claims = tmp_path / "fever.jsonl"
    claims.write_text(json.dumps({"id": 1, "label": "SUPPORTS", "claim": "Angkor Wat is a temple in Cambodia.",
                                  "evidence": [[[1, 1, "Angkor_Wat", 0]]]}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = run("--dataset", f"fever:{claims}", "--search", "bm25,dense", "--queries", "tool-mad",
                 "--llm", "scripted:agree", "--output", str(out))
    assert result.returncode == 0, result.stderr
    assert "writing Tool-MAD's round-1 queries with scripted:agree: 1 claim(s)" in result.stderr
    assert "round-1 queries: 1 of 1 claims" in result.stderr
    claim = json.loads((out / "claims.jsonl").read_text())
    assert claim["queries"] == {"bm25": "Angkor Wat is a temple in Cambodia. evidence round 1",
                                "dense": "Angkor Wat is a temple in Cambodia. evidence round 1"}
    assert claim["rank"]["bm25"] == 1
    assert json.loads((out / "retrieval.json").read_text())["queries"] == "tool-mad"
    fusion = refused(capsys, "--dataset", f"fever:{claims}", "--queries", "tool-mad", "--llm", "scripted:agree")
    assert fusion.returncode == 2 and fusion.stderr.startswith("error: --queries tool-mad measures Tool-MAD's")


def test_a_milvus_server_is_measured_as_the_rag_tool_searches_it(milvus_server_uri: str, onnx_model_file: Path,
                                                                  tmp_path: Path) -> None:
    """--dense int8=URI on a Milvus server: the corpus indexed there, its dense and fusion searches named
    '-server', the pages found from its collection."""
    data = tmp_path / "data"
    (data / "models").mkdir(parents=True)
    (data / "models" / onnx_model_file.name).write_bytes(onnx_model_file.read_bytes())
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(data)}
    docs = tmp_path / "landmarks.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in [
        {"id": "eiffel", "title": "Eiffel Tower", "text": "The Eiffel Tower is a wrought-iron lattice tower in Paris."},
        {"id": "colosseum", "title": "Colosseum", "text": "The Colosseum is an ancient amphitheatre in Rome."},
        {"id": "fuji", "title": "Mount Fuji", "text": "Mount Fuji is the highest mountain in Japan."}]),
        encoding="utf-8")
    built = subprocess.run([EXE, "index", str(docs), "--corpus", "landmarks", "--milvus-uri", milvus_server_uri],
                           capture_output=True, text=True, env=env, timeout=300)
    assert built.returncode == 0, built.stderr
    claims = tmp_path / "fever.jsonl"
    claims.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": 1, "label": "SUPPORTS", "claim": "The Eiffel Tower is made of wrought iron.",
         "evidence": [[[1, 1, "Eiffel_Tower", 0]]]},
        {"id": 2, "label": "REFUTES", "claim": "Mount Fuji is the lowest mountain in Japan.",
         "evidence": [[[2, 2, "Mount_Fuji", 0]]]}]), encoding="utf-8")
    out = tmp_path / "out"
    result = subprocess.run([EXE, "eval-retrieval", "--dataset", f"fever:{claims}", "--corpus", "landmarks",
                             "--search", "dense,fusion", "--dense", f"int8={milvus_server_uri}", "-o", str(out)],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    figures = json.loads((out / "retrieval.json").read_text())
    assert [row["search"] for row in figures["searches"]] == ["dense-int8-server", "fusion-int8-server"]
    assert figures["corpus_pages"] == 3 and figures["held"] == 2
    assert all(row["recall"]["1"]["hits"] == 2 for row in figures["searches"])
