"""Every loader on small files the tests write, on the real samples in ../shared/datasets when present,
and the built-in datasets."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from factdebate.eval.datasets import select
from factdebate.eval.datasets.countries import _world, generate, mentions
from factdebate.eval.datasets.loader import describe, load_dataset
from factdebate.util.errors import InputError
from tests.paths import SHARED as SHARED_DIR

S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
SHARED = SHARED_DIR / "datasets"


def jsonl(path: Path, rows: list[Any]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def golds(spec: str) -> list[str]:
    return [s.gold for s in load_dataset(spec).samples]


def test_fever_and_generic_claims(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "fever.jsonl", [
        {"id": 7, "claim": "A", "label": "SUPPORTS"}, {"id": 8, "claim": "B", "label": "REFUTES"},
        {"id": 9, "claim": "C", "label": "NOT ENOUGH INFO"}, {"id": 10, "claim": "", "label": "SUPPORTS"}])
    dataset = load_dataset(f"fever:{path}")
    assert [(s.id, s.gold) for s in dataset.samples] == [("7", S), ("8", R), ("9", N)]
    assert dataset.labels == (S, R, N) and dataset.skipped == {"no 'claim' text": 1}
    generic = jsonl(tmp_path / "c.jsonl", [{"claim": "x", "label": True}, {"claim": "y", "label": "false"}])
    assert golds(f"claims:{generic}") == [S, R]
    assert load_dataset(f"claims:{generic}").labels == (S, R)  # no NEI claim: a two-way task


def test_feverous_both_shapes_keep_the_challenge(tmp_path: Path) -> None:
    original = jsonl(tmp_path / "f.jsonl", [{"id": "", "claim": "", "label": ""},  # the header line
                                            {"id": 1, "claim": "A", "label": "NOT ENOUGH INFO", "challenge": "Other"}])
    assert golds(f"feverous:{original}") == [N]
    programfc = tmp_path / "s.json"
    programfc.write_text(json.dumps([{"id": 3, "claim": "A", "label": "supports", "challenge": "Multi-hop"},
                                     {"id": 4, "claim": "B", "label": "refutes", "challenge": "Other"}]))
    dataset = load_dataset(f"feverous:{programfc}")
    assert dataset.labels == (S, R) and dataset.samples[0].meta["group"] == "Multi-hop"


def test_faviq_averitec_hover(tmp_path: Path) -> None:
    faviq = tmp_path / "faviq.json"
    faviq.write_text(json.dumps([{"id": "1", "claim": "a", "label": "SUPPORTS"}, {"id": "2", "claim": "b",
                                                                                  "label": "REFUTES"}]))
    assert golds(f"faviq:{faviq}") == [S, R]
    averitec = tmp_path / "averitec.json"
    verdicts = ["Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"]
    averitec.write_text(json.dumps([{"claim": c, "label": lab} for c, lab in zip("abcd", verdicts, strict=True)]))
    dataset = load_dataset(f"averitec:{averitec}")
    assert [s.gold for s in dataset.samples] == [S, R, N, "CONFLICTING EVIDENCE/CHERRYPICKING"]
    assert len(dataset.labels) == 4 and dataset.predicted(N) == N
    hover = tmp_path / "hover.json"
    hover.write_text(json.dumps([{"uid": "u1", "claim": "a", "label": "SUPPORTED", "num_hops": 2},
                                 {"uid": "u2", "claim": "b", "label": "NOT_SUPPORTED", "num_hops": 4}]))
    dataset = load_dataset(f"hover:{hover}")
    assert [(s.id, s.gold, s.meta["group"]) for s in dataset.samples] == [("u1", S, "2 hops"), ("u2", R, "4 hops")]


def test_scifact_labels_come_from_the_evidence(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "sf.jsonl", [
        {"id": 1, "claim": "a", "evidence": {}},
        {"id": 2, "claim": "b", "evidence": {"9": [{"sentences": [1], "label": "SUPPORT"}]}},
        {"id": 3, "claim": "c", "evidence": {"9": [{"sentences": [1], "label": "CONTRADICT"}]}},
        {"id": 4, "claim": "d", "evidence": {"9": [{"label": "SUPPORT"}], "8": [{"label": "CONTRADICT"}]}}])
    dataset = load_dataset(f"scifact:{path}")
    assert [(s.id, s.gold) for s in dataset.samples] == [("1", N), ("2", S), ("3", R)]  # 4 is ambiguous
    unlabelled = jsonl(tmp_path / "test.jsonl", [{"id": 1, "claim": "a"}])
    with pytest.raises(InputError, match="unlabelled"):
        load_dataset(f"scifact:{unlabelled}")


def test_pubmedqa_yes_no_maybe_and_medqa_choices(tmp_path: Path) -> None:
    pubmed = tmp_path / "pqa.json"
    pubmed.write_text(json.dumps({"111": {"QUESTION": "Does X help?", "final_decision": "yes", "CONTEXTS": []},
                                  "222": {"QUESTION": "Is Y bad?", "final_decision": "maybe"}}, indent=2))
    dataset = load_dataset(f"pubmedqa:{pubmed}")
    assert dataset.answer_format == "yesno" and dataset.labels == ("yes", "no", "maybe")
    assert [(s.id, s.gold) for s in dataset.samples] == [("111", "yes"), ("222", "maybe")]
    assert "Does X help?" in dataset.samples[0].claim
    assert [dataset.predicted(label) for label in (S, R, N, None)] == ["yes", "no", "maybe", None]
    medqa = jsonl(tmp_path / "mq.jsonl", [{"question": "Q?", "options": {"A": "a", "B": "b", "C": "c", "D": "d",
                                                                        "E": "e"}, "answer_idx": "C"}])
    dataset = load_dataset(f"medqa:{medqa}")
    assert dataset.answer_format == "choice" and dataset.labels == ("A", "B", "C", "D", "E")
    assert dataset.samples[0].gold == "C" and dataset.samples[0].options["E"] == "e"


def test_factool_bingcheck_factcheck_bench(tmp_path: Path) -> None:
    factool = jsonl(tmp_path / "kqa.jsonl", [{"prompt": "p", "claims": [{"claim": "a", "label": True},
                                                                         {"claim": "b", "label": False}]}])
    assert [(s.id, s.gold) for s in load_dataset(f"factool-qa:{factool}").samples] == [("0-0", S), ("0-1", R)]
    bing = jsonl(tmp_path / "b.jsonl", [{"claim": c, "label": lab} for c, lab in [
        ("a", "supported"), ("b", "partially supported"), ("c", "not supported"), ("d", "refuted")]])
    assert golds(f"bingcheck:{bing}") == [S, S, N, R]
    fcb = jsonl(tmp_path / "fcb.jsonl", [{"claim": "a", "label": "true"}, {"claim": "b", "label": "false"},
                                         {"claim": "c", "label": "not_enough_evidence"}])
    assert golds(f"factcheck-bench:{fcb}") == [S, R, N]


def test_bad_specs_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown dataset 'nope'"):
        load_dataset("nope")
    with pytest.raises(InputError, match="needs a file"):
        load_dataset("hover")  # a format the Hub registry does not fetch (`fever` alone is fetched now)
    with pytest.raises(InputError, match="not found"):
        load_dataset(f"fever:{tmp_path / 'missing.jsonl'}")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"claim": "a", "label": "SUPPORTS"}\n{oops\n')
    with pytest.raises(InputError, match=r"broken\.jsonl:2"):
        load_dataset(f"fever:{broken}")
    wrong = jsonl(tmp_path / "w.jsonl", [{"text": "a", "verdict": "yes"}])
    with pytest.raises(InputError, match="right format"):
        load_dataset(f"fever:{wrong}")
    dup = jsonl(tmp_path / "d.jsonl", [{"id": 1, "claim": "a", "label": "SUPPORTS"},
                                       {"id": 1, "claim": "b", "label": "REFUTES"}])
    with pytest.raises(InputError, match="duplicate"):
        load_dataset(f"fever:{dup}")
    listed = [name for name, _ in describe()]
    assert "countries" in listed and "halueval-qa" in listed and "medqa:PATH" in listed


def test_select_is_seeded_and_a_larger_limit_extends_a_smaller_one(tmp_path: Path) -> None:
    samples = load_dataset("halueval-qa").samples
    assert [s.id for s in select(samples, 5, 3)] == [s.id for s in select(samples, 5, 3)]
    assert [s.id for s in select(samples, 20, 3)][:5] == [s.id for s in select(samples, 5, 3)]
    assert select(samples, 5, 3) != select(samples, 5, 4)


def test_halueval_builtins_are_balanced_and_stable() -> None:
    loaded = {name: load_dataset(name) for name in ("halueval-qa", "halueval-dialogue", "halueval-summarization")}
    for dataset in loaded.values():
        counts = Counter(s.gold for s in dataset.samples)
        assert len(dataset.samples) == 10_000 and abs(counts[S] - counts[R]) < 300
        assert dataset.labels == (S, R)
    qa = loaded["halueval-qa"].samples[0]
    assert qa.id == "qa-0" and "Arthur's Magazine" in qa.claim and qa.meta["knowledge"]
    assert loaded["halueval-summarization"].max_claim_chars > 2000  # the article is in the claim


def test_the_summarisation_articles_split_into_the_sentences_they_always_had() -> None:
    """builtin_data.sentences finds sentence ends by their punctuation (a third of the set's load time): the
    split of the look-behind pattern it replaced, on whitespace of every kind and on real articles."""
    from factdebate.eval.datasets.builtin_data import halueval_file, sentences

    def before(text: str) -> list[str]:
        return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])", " ".join(text.split())) if s.strip()]

    odd = ["", "   ", "One. Two", " A.\u00a0\u2003B!\tC?\n\n(D) x. . Y", "e.g. fine. \"Quoted.\" 3 dogs.  ", "No end",
           "Ends here.", "a.B. c!D? 'E' .F"]
    with halueval_file("summarization").open(encoding="utf-8") as fh:
        articles = [json.loads(next(fh))["document"] for _ in range(300)]
    for text in [*odd, *articles]:
        assert sentences(text) == before(text), text[:200]


def test_countries_claims_are_fixed_balanced_and_checkable_against_the_summaries() -> None:
    samples = generate()
    assert [s.id for s in samples] == [s.id for s in generate()]
    counts = Counter(s.gold for s in samples)
    assert min(counts.values()) > 150 and set(counts) == {S, R, N}
    world = {c.name: c for c in _world()[0].values()}
    for sample in samples:
        country = world[sample.meta["country"]]
        kind = sample.meta["kind"]
        if sample.gold == S and kind == "capital":
            assert mentions(country.extract, country.capital) and country.capital in sample.claim
        if sample.gold == R and kind == "capital":
            wrong = sample.claim.rsplit(" is ", 1)[1].rstrip(".")
            assert wrong not in country.capitals and not mentions(country.extract, wrong)
        if sample.gold == N:
            assert kind in ("currency", "area")
            if kind == "area":
                assert "km2" not in country.extract
    assert {s.id.split("-")[0] for s in samples if s.gold == S} >= {"FRA", "JPN", "BRA"}
    # The set is fixed (pinned packages, a seed per country): its bytes, as generated before mentions() took
    # its shortcut, so a faster generation cannot quietly change what every countries run is scored on.
    digest = hashlib.sha256(json.dumps([[s.id, s.claim, s.gold, s.meta] for s in samples]).encode()).hexdigest()
    assert len(samples) == 558 and digest == "894d182855c2b70c4358e064ee4857ec57ac5e621eb6d134d73f9d6df52b5d57", digest


@pytest.mark.parametrize(("text", "phrase"), [
    ("İstanbul is big", "Istanbul"), ("ıstanbul", "Istanbul"), ("\u212aelvin", "kelvin"), ("Maſs", "MASS"),
    ("Paris, France", "paris"), ("Parisian", "Paris"), ("the Côte d'Ivoire", "côte d'ivoire"), ("", "x"),
    ("Kinshasa-Brazzaville", "Kinshasa"), ("PESO", "peso"), ("pesos", "peso")])
def test_mentions_says_what_a_case_blind_whole_word_search_says(text: str, phrase: str) -> None:
    searched = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.I) is not None
    assert mentions(text, phrase) == searched


REAL = [("feverous", "feverous/programfc_feverous_s_dev.json", 2962),
        ("feverous", "feverous/graphrag_core_feverous_dev_sample50.jsonl", 50),
        ("faviq", "faviq/samples.json", 100), ("averitec", "averitec/dev.json", 500),
        ("scifact", "scifact/claims_dev.jsonl", 300), ("scifact", "scifact/claims_train.jsonl", 809),
        ("medqa", "medqa/phrases_no_exclude_test.jsonl", 1273),
        ("factool-qa", "factool_qa/knowledge_qa.jsonl", 233), ("factool-qa", "factool_qa/fire_data.jsonl", 233),
        ("bingcheck", "bingcheck/fire_bingcheck.jsonl", 3840), ("bingcheck", "bingcheck/fire_data.jsonl", 142),
        ("factcheck-bench", "factcheck_bench/subtask4_claim_factuality.jsonl", 661),
        ("factcheck-bench", "factcheck_bench/fire_data.jsonl", 631), ("claims", "felm_wk/fire_data.jsonl", 184)]


@pytest.mark.parametrize(("fmt", "relative", "count"), REAL, ids=[r[1] for r in REAL])
def test_real_samples_when_present(fmt: str, relative: str, count: int) -> None:
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"real sample not available: {path}")
    dataset = load_dataset(f"{fmt}:{path}")
    assert len(dataset.samples) == count
    assert {s.gold for s in dataset.samples} <= set(dataset.labels)
