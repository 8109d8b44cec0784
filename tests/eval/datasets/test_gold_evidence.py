"""The loaders keep each claim's gold evidence as the pages a search must find: FEVER's
alternative evidence sets, FEVEROUS's element ids and FEVEROUS-S's lines as page titles, HoVer's hops as
one set, SciFact's cited abstracts by document id; and ``factdebate corpus titles`` lists a corpus's pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from factdebate.eval.datasets.gold_evidence import page_key
from factdebate.eval.datasets.hub_datasets import records_sha256
from factdebate.eval.datasets.loader import load_dataset
from tests.paths import SHARED

EXE = str(Path(sys.executable).with_name("factdebate"))


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_fever_keeps_each_evidence_set_as_titles(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "dev.jsonl", [
        {"id": 1, "label": "SUPPORTS", "claim": "Nikolaj Coster-Waldau worked with Fox.",
         "evidence": [[[9, 10, "Nikolaj_Coster-Waldau", 7], [9, 11, "Fox_Broadcasting_Company", 0]],
                      [[12, 13, "Nikolaj_Coster-Waldau", 7], [12, 14, "Nikolaj_Coster-Waldau", 8]]]},
        {"id": 2, "label": "REFUTES", "claim": "Star Wars (film) came out in 1990.",
         "evidence": [[[5, 6, "Star_Wars_-LRB-film-RRB-", 0]]]},
        {"id": 3, "label": "NOT ENOUGH INFO", "claim": "History of art includes architecture.",
         "evidence": [[[7, None, None, None]]]},
    ])
    dataset = load_dataset(f"fever:{path}")
    assert dataset.gold_page_kind == "title"
    assert [s.gold_pages for s in dataset.samples] == [
        (("Fox Broadcasting Company", "Nikolaj Coster-Waldau"), ("Nikolaj Coster-Waldau",)),
        (("Star Wars (film)",),),
        (),
    ]


def test_feverous_original_and_s_formats_name_their_pages(tmp_path: Path) -> None:
    original = write_lines(tmp_path / "feverous.jsonl", [
        {"id": 7, "label": "SUPPORTS", "claim": "The 2014 Winter Paralympics had a medal table.",
         "evidence": [{"content": ["2014 Winter Paralympics medal table_sentence_0",
                                   "2014 Winter Paralympics medal table_header_cell_0_20_0",
                                   "Russia at the 2014 Winter Paralympics_cell_0_1_5"]},
                      {"content": ["Sochi_item_1_2"]}]},
    ])
    assert load_dataset(f"feverous:{original}").samples[0].gold_pages == (
        ("2014 Winter Paralympics medal table", "Russia at the 2014 Winter Paralympics"), ("Sochi",))
    programfc = tmp_path / "feverous_s.json"
    programfc.write_text(json.dumps([{"id": "1", "label": "supports", "claim": "Aramais Yepiskoposyan played.",
                                      "evidence": "Aramais Yepiskoposyan\tHe played [[FC Ararat|Ararat]].\n"
                                                  "FC Ararat Yerevan\tA club."}]), encoding="utf-8")
    sample = load_dataset(f"feverous:{programfc}").samples[0]
    assert sample.gold_pages == (("Aramais Yepiskoposyan", "FC Ararat Yerevan"),)
    assert sample.meta["evidence"][0] == {"title": "Aramais Yepiskoposyan", "text": "He played Ararat."}


def test_hover_hops_are_one_set_and_scifact_abstracts_are_ids(tmp_path: Path) -> None:
    hover = tmp_path / "hover.json"
    hover.write_text(json.dumps([{"uid": "a1", "claim": "Skagen Painters included Krøyer.", "label": "SUPPORTED",
                                  "num_hops": 2, "supporting_facts": [["Skagen Painters", 0], ["P. S. Krøyer", 1],
                                                                      ["Skagen Painters", 2]]}]), encoding="utf-8")
    assert load_dataset(f"hover:{hover}").samples[0].gold_pages == (("P. S. Krøyer", "Skagen Painters"),)
    claims = write_lines(tmp_path / "claims_dev.jsonl", [
        {"id": 3, "claim": "1,000 genomes maps rare variants.", "cited_doc_ids": [14717500, 99],
         "evidence": {"14717500": [{"sentences": [2], "label": "SUPPORT"}], "42": [{"sentences": [1],
                                                                                    "label": "SUPPORT"}]}},
        {"id": 13, "claim": "5% of perinatal mortality is due to low birth weight.", "evidence": {},
         "cited_doc_ids": [1606628]},
    ])
    dataset = load_dataset(f"scifact:{claims}")
    assert dataset.gold_page_kind == "id"
    assert [s.gold_pages for s in dataset.samples] == [(("14717500",), ("42",)), ()]


@pytest.mark.skipif(not (SHARED / "datasets" / "toolmad_authors" / "fever.json").is_file(),
                    reason="the shared datasets are not beside the repository")
def test_the_authors_fever_sample_keeps_its_pages_and_its_fingerprint() -> None:
    """The Tool-MAD authors' 200 FEVER claims: the 154 SUPPORTS/REFUTES claims name their pages; the records'
    fingerprint, which the registry pins (datasets.toml), is unchanged: the gold pages reach no prompt."""
    dataset = load_dataset(f"fever:{SHARED / 'datasets' / 'toolmad_authors' / 'fever.json'}")
    with_pages = [s for s in dataset.samples if s.gold_pages]
    assert len(with_pages) == 154 and all(s.gold != "NOT ENOUGH INFO" for s in with_pages)
    assert ("Roger Penrose",) in with_pages[0].gold_pages
    assert records_sha256(dataset.samples, dataset.skipped) == \
        "40f4376bed716f8d45e14715796ec870dbd469ccc06ec62bc57563dc71766090"


def test_page_keys_ignore_case_underscores_and_spacing() -> None:
    assert page_key("Roger_Penrose") == page_key("roger  Penrose") == "roger penrose"


def test_corpus_titles_lists_an_indexed_corpus(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "docs.jsonl", [
        {"id": "d1", "title": "Skagen Painters", "text": "The Skagen Painters were a community of artists."},
        {"id": "d2", "title": "Lighthouse", "text": "A lighthouse is a tower that emits light."},
    ])
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path / "data")}
    built = subprocess.run([EXE, "index", str(corpus), "--corpus", "small", "--engines", "local"],
                           capture_output=True, text=True, env=env, timeout=300)
    assert built.returncode == 0, built.stderr
    listed = subprocess.run([EXE, "corpus", "titles", "small", "--ids"], capture_output=True, text=True, env=env,
                            timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert sorted(listed.stdout.splitlines()) == ["d1\tSkagen Painters", "d2\tLighthouse"]
    assert listed.stderr.strip() == "corpus 'small': 2 page(s)"
    missing = subprocess.run([EXE, "corpus", "titles", "nothing-here"], capture_output=True, text=True, env=env,
                             timeout=300)
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.strip() == ("error: corpus 'nothing-here' has no full-text index in this data folder: "
                                      "index it first (factdebate index PATH --corpus nothing-here)")


def test_the_hubs_fever_parquet_is_converted_with_its_evidence_sets(tmp_path: Path) -> None:
    """The Hub's FEVER holds one row per evidence sentence: the conversion groups them back into FEVER's
    sets (rows of one annotation id), so ``--dataset fever`` has the pages ``fever:PATH`` has."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from factdebate.eval.datasets.hub_convert import fever_parquet
    from tests.eval.datasets.test_hub_datasets import FEVER_ROWS

    source, target = tmp_path / "dev.parquet", tmp_path / "dev.jsonl"
    pq.write_table(pa.Table.from_pylist(FEVER_ROWS), source)
    fever_parquet(source, target)
    dataset = load_dataset(f"fever:{target}")
    assert [(s.id, s.gold_pages) for s in dataset.samples] == [
        ("75397", (("Fox Broadcasting Company", "Nikolaj Coster-Waldau"),)),
        ("150448", (("Roman Atwood",),)),
        ("214861", ()),
    ]


def test_corpus_titles_lists_the_builtin_corpus_its_index_holds(tmp_path: Path) -> None:
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(tmp_path / "data"), "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": "3"}
    listed = subprocess.run([EXE, "corpus", "titles"], capture_output=True, text=True, env=env, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == ["20th-century classical music", "2001: A Space Odyssey",
                                          "A Sunday Afternoon on the Island of La Grande Jatte"]
    assert listed.stderr.strip() == "corpus 'builtin': 3 page(s)"
