"""Every method, and ``check-response``, against a real served model: llama-cpp-python's own OpenAI-compatible
server on the shipped SmolLM2 weights, started here.

Each method checks ``--claims`` claims (default 2) and ``check-response`` checks three texts, all through the
``openai:`` backend as a user with a small local model would. The searches answer from a small fixed corpus
(no network here), ranked by shared words. Per method it prints:

- calls: requests the server received (counted by a proxy in front of it, so a retry or an abandoned try
  counts as the server saw it), and ``llm_calls`` of the verdicts' usage beside them;
- lost / recovered: replies no parser could read even after the re-ask, and re-asks that recovered one
  (the verdicts' ``parse_counts``); cut: replies stopped at their token limit;
- junk: searches that were no query: a bare label, words that speak to someone ("you", "here"), a run of six
  words from an answer the same claim's agents wrote, or more than 24 words (this file's own test, so it
  reads any version of factdebate alike);
- failed: claims that ended in an error; seconds: wall time of the method's claims.

The server is started with ``--interrupt_requests False``, as docs/configuration.md says to start it, so the
calls are streams (``llm.stream: auto``) and a call cut short stops there; ``--server-default`` leaves the
flag out. The load this puts on the machine is the server's threads (``--threads``, default 2) at full use while a
method runs; run it under ``nice`` on a shared machine. It writes nothing but ``--json`` if asked.

    nice -n 5 .venv/bin/python benchmarks/served.py
    nice -n 5 .venv/bin/python benchmarks/served.py --methods single,react --claims 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CLAIMS = ["The Eiffel Tower is located in Rome.", "Mount Everest is the highest mountain above sea level."]
TEXTS = [
    "Hi! The Eiffel Tower is in Paris and was completed in 1889. It is about 330 metres tall.",
    "I looked into this for you. The Great Wall of China is visible from the Moon with the naked eye. "
    "It was built over many centuries.",
    "Sure. Water boils at 100 degrees Celsius at sea level. The Amazon is the longest river in Europe.",
]
CORPUS = [
    ("Eiffel Tower", "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was completed in 1889 "
     "and is about 330 metres tall."),
    ("Rome", "Rome is the capital city of Italy. Its landmarks include the Colosseum and the Pantheon."),
    ("Mount Everest", "Mount Everest is Earth's highest mountain above sea level, in the Himalayas on the border of "
     "Nepal and China; its elevation is 8,849 metres."),
    ("Great Wall of China", "The Great Wall of China is generally not visible from the Moon with the naked eye, "
     "contrary to a popular myth. It was built over many centuries."),
    ("Water", "At sea level, pure water boils at 100 degrees Celsius."),
    ("Amazon River", "The Amazon River in South America is the largest river by discharge; it flows through "
     "Brazil, Peru and Colombia, not Europe."),
    ("Paris", "Paris is the capital and largest city of France."),
]
_WORD = re.compile(r"\w+")
LABEL_WORDS = {"true", "false", "yes", "no", "supports", "support", "refutes", "refute", "not", "enough", "info",
               "nei", "affirmative", "negative", "tie", "correct", "incorrect", "verdict"}
FILLER = {"you", "your", "i", "me", "my", "we", "let", "here", "please", "sure"}


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def junk(query: str, claim: str, answers: list[str]) -> str | None:
    """Why ``query`` is no search (see the module docstring), or None."""
    said, stated = words(query), words(claim)
    if not said or set(said) <= LABEL_WORDS:
        return "label"
    if (set(said) - set(stated)) & FILLER:
        return "filler"
    if len(said) > max(24, len(stated) + 6):
        return "sentence"
    for answer in answers:
        grams = {tuple(said[i:i + 6]) for i in range(len(said) - 5)}
        theirs = words(answer)
        if any(tuple(theirs[i:i + 6]) in grams and not _inside(theirs[i:i + 6], stated)
               for i in range(len(theirs) - 5)):
            return "own answer"
    return None


def _inside(run: list[str], text: list[str]) -> bool:
    return any(text[i:i + len(run)] == run for i in range(len(text) - len(run) + 1))


class Corpus:
    """A search tool answering from CORPUS, the passages sharing most words with the query first."""

    name = "corpus"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    async def search(self, query: str, k: int) -> list[Any]:
        from factdebate.core.types import Document

        asked = set(words(query))
        ranked = sorted(CORPUS, key=lambda doc: -len(asked & set(words(doc[0] + " " + doc[1]))))
        return [Document(id=f"corpus-{title}", title=title, text=text, source=f"corpus:{title}")
                for title, text in ranked[:k]]

    async def aclose(self) -> None:
        return None


# A proxy that counts what reaches the server: every request, whatever the client later does with it. With
# ``names_server`` False it answers GET (``/models``) 404, as a gateway that names no server does.
class Proxy:
    def __init__(self, upstream: str, names_server: bool = True) -> None:
        self.upstream, self.requests = upstream, 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                return None

            def do_GET(self) -> None:
                if not names_server:
                    self.send_error(404)
                    return
                self._forward(b"")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.path.endswith("/chat/completions"):
                    proxy.requests += 1
                self._forward(body)

            def _forward(self, body: bytes) -> None:
                headers = {"content-type": self.headers.get("content-type", "application/json")}
                try:
                    with httpx.Client(timeout=None) as client, client.stream(
                            self.command, proxy.upstream + self.path, content=body or None, headers=headers) as reply:
                        self.send_response(reply.status_code)
                        for name in ("content-type",):
                            if name in reply.headers:
                                self.send_header(name, reply.headers[name])
                        self.send_header("transfer-encoding", "chunked")
                        self.end_headers()
                        for chunk in reply.iter_raw():
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                            self.wfile.flush()
                        self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client left; closing the upstream stream tells the server so

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(work: Path, threads: int, extra: Sequence[str] = ()) -> tuple[subprocess.Popen[bytes], str]:
    from factdebate.llm.llama_cpp import builtin_model_path

    port = free_port()
    log = (work / "llama.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(builtin_model_path()),
                                "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--model_alias",
                                "smollm2", "--seed", "0", "--n_threads", str(threads), "--n_threads_batch",
                                str(threads), *extra], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(f"{url}/v1/models", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError(f"llama.cpp server did not start; see {log.name}")
        time.sleep(0.5)


def settings_for(method: str, url: str, timeout: float) -> Any:
    from factdebate.settings.load import load_settings

    os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = f"{url}/v1", "not-needed"  # read by the backend
    return load_settings(overrides={"method": method, "llm": {"debater": "openai:smollm2", "cache": False,
                                                             "timeout": timeout}}, environ={})


def resources_for(settings: Any) -> Any:
    from factdebate.run.build import build_resources
    from tests.helpers import BagOfWordsEncoder

    return build_resources(settings, tool_factory=Corpus, encoder_factory=BagOfWordsEncoder)


def fresh(method: str) -> dict[str, Any]:
    return {"method": method, "calls": 0, "llm_calls": 0, "lost": 0, "recovered": 0, "junk": 0, "cut": 0,
            "failed": 0, "seconds": 0.0, "junk_examples": [], "lost_examples": []}


def tally(record: dict[str, Any], parse_counts: dict[str, Any]) -> None:
    for what, counts in parse_counts.items():
        counts = counts if isinstance(counts, dict) else counts.model_dump()
        for key in ("lost", "recovered", "cut"):
            record[key] += counts.get(key, 0)
        if counts.get("lost"):  # which replies were lost, by kind
            record.setdefault("lost_by", {})[what] = record.get("lost_by", {}).get(what, 0) + counts["lost"]


async def one_method(method: str, url: str, proxy: Proxy, args: argparse.Namespace) -> dict[str, Any]:
    from factdebate.run.claim import run_claim

    record = fresh(method)
    before = proxy.requests
    started = time.perf_counter()
    for claim in CLAIMS[:args.claims]:
        settings = settings_for(method, proxy.url, args.timeout)
        events: list[dict[str, Any]] = []
        try:
            async with resources_for(settings) as resources:
                verdict = await run_claim(claim, settings, resources, sinks=[events.append])
        except Exception as exc:
            record["failed"] += 1
            record.setdefault("errors", []).append(str(exc)[:200])
            continue
        record["llm_calls"] += verdict.usage.llm_calls
        tally(record, verdict.parse_counts)
        answers = [t.response for r in verdict.rounds for t in r.turns if t.response]
        for event in events:  # what each lost reply said, so that a "lost" figure can be read
            if event.get("event") == "parse_failure":
                record["lost_examples"].append(f"{event.get('what')} ({event.get('problem', '')[:100]}): "
                                               f"{str(event.get('reply', ''))[:100]!r}, re-asked "
                                               f"{str(event.get('reask_reply', ''))[:100]!r}")
        searched = [e["query"] for e in events if e.get("event") == "tool_call" and e.get("query")]
        for query in searched:
            if query != claim and (why := junk(query, claim, answers)) is not None:
                record["junk"] += 1
                record["junk_examples"].append(f"{why}: {query[:80]}")
    record["seconds"] = round(time.perf_counter() - started, 1)
    record["calls"] = proxy.requests - before
    return record


async def check_texts(proxy: Proxy, args: argparse.Namespace) -> dict[str, Any]:
    from factdebate.guard_engine.response_check import run_response

    record = fresh("check-response")
    before = proxy.requests
    started = time.perf_counter()
    for text in TEXTS:
        settings = settings_for(args.response_method, proxy.url, args.timeout)
        try:
            async with resources_for(settings) as resources:
                result = await run_response(text, settings, resources)
        except Exception as exc:
            record["failed"] += 1
            record.setdefault("errors", []).append(str(exc)[:200])
            continue
        record["llm_calls"] += result.usage.llm_calls
        tally(record, result.parse_counts)
    record["seconds"] = round(time.perf_counter() - started, 1)
    record["calls"] = proxy.requests - before
    return record


async def run_all(methods: list[str], url: str, proxy: Proxy, args: argparse.Namespace,
                  records: list[dict[str, Any]]) -> None:
    """check-response, then every method, on one event loop (the backends' clients live as long as it)."""
    if not args.no_texts:
        records.append(await check_texts(proxy, args))
        show(records[-1])
    for method in methods:
        records.append(await one_method(method, url, proxy, args))
        show(records[-1])


def main() -> None:
    from factdebate.methods.base import Method

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--methods", default="", help="comma-separated (default: every method but MERMAID, whose "
                        "tool servers build the built-in index first)")
    parser.add_argument("--claims", type=int, default=2, choices=(1, 2))
    parser.add_argument("--threads", type=int, default=2, help="the server's threads")
    parser.add_argument("--timeout", type=float, default=600.0, help="llm.timeout (seconds per try)")
    parser.add_argument("--response-method", default="single", help="check-response's method")
    parser.add_argument("--no-texts", action="store_true", help="skip check-response")
    parser.add_argument("--json", type=Path, help="write the records here")
    parser.add_argument("--server-default", action="store_true",
                        help="start the server as it starts by default (--interrupt_requests True: it cuts streams, "
                        "so llm.stream: auto asks it plainly after the first cut)")
    args = parser.parse_args()
    methods = [m for m in args.methods.split(",") if m] or sorted(m for m in Method.registered() if m != "mermaid")
    os.environ.setdefault("FACTDEBATE_DATA_DIR", tempfile.mkdtemp(prefix="served-bench-"))
    with tempfile.TemporaryDirectory() as work:
        process, url = start_server(Path(work), args.threads,
                                    [] if args.server_default else ["--interrupt_requests", "False"])
        proxy = Proxy(url)
        records: list[dict[str, Any]] = []
        try:
            asyncio.run(run_all(methods, url, proxy, args, records))
        finally:
            process.terminate()
            process.wait(timeout=30)
            proxy.server.shutdown()
    total = {key: sum(r[key] for r in records) for key in ("calls", "llm_calls", "lost", "recovered", "junk", "cut",
                                                           "failed")}
    print("total", " ".join(f"{k}={v}" for k, v in total.items()),
          f"seconds={sum(r['seconds'] for r in records):.0f}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))


def show(record: dict[str, Any]) -> None:
    print(f"{record['method']:<15} calls={record['calls']:>3} (usage {record['llm_calls']:>3}) "
          f"lost={record['lost']:>2} recovered={record['recovered']:>2} junk={record['junk']:>2} "
          f"cut={record['cut']:>2} failed={record['failed']} seconds={record['seconds']:>6.1f}", flush=True)
    if record.get("lost_by"):
        print("    lost " + ", ".join(f"{what} {n}" for what, n in sorted(record["lost_by"].items())))
    for example in record["junk_examples"][:3]:
        print(f"    junk {example}")
    for example in record["lost_examples"][:3]:
        print(f"    lost {example}")
    for error in record.get("errors", [])[:2]:
        print(f"    error {error}")


if __name__ == "__main__":
    main()
