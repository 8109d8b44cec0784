"""The record of a build on Ray: finished shards read back, a torn last line ignored, another build's
record set aside."""

from __future__ import annotations

from factdebate.corpus.index_log import IndexLog, index_log_path, plan_fingerprint

URI = "http://127.0.0.1:19530"


def test_finished_shards_read_back_and_a_torn_last_line_is_ignored() -> None:
    plan = plan_fingerprint([("/data/a.jsonl", 10, 1)], shard_docs=5, engines=("rag", "local"))
    log = IndexLog("c", URI, plan).open()
    assert not log.resumed and log.done == {}
    log.record("/data/a.jsonl#1-6", {"passages": 7})
    with index_log_path("c", URI).open("a", encoding="utf-8") as fh:
        fh.write('{"shard": "/data/a.jsonl#6-11", "pass')  # the crash came mid-line
    again = IndexLog("c", URI, plan).open()
    assert again.resumed and list(again.done) == ["/data/a.jsonl#1-6"]
    assert again.done["/data/a.jsonl#1-6"]["passages"] == 7


def test_a_different_build_starts_a_new_record() -> None:
    IndexLog("c", URI, plan_fingerprint([("/a", 1, 1)], shard_docs=5)).open().record("/a", {"passages": 1})
    changed = IndexLog("c", URI, plan_fingerprint([("/a", 2, 2)], shard_docs=5)).open()  # the file changed
    assert changed.replaced and not changed.resumed and changed.done == {}
    assert IndexLog("c", "http://elsewhere:19530", plan_fingerprint([("/a", 1, 1)], shard_docs=5)).open().done == {}
