"""The guard's CPU per reply and time to first token against LiteLLM's real proxy passing the same reply
through (goal: the guard's CPU per reply at or below LiteLLM's, time to first token through the guard
<= 1.05 x direct). One run, each in a process of its own:

- the upstream: tests/server/guard_support.py's scripted model streaming a 6-sentence reply, its first token
  after ``--first`` seconds (as benchmarks/guard.py's), then a word each ``--token-delay``;
- the checker: an OpenAI-compatible server (tests/fake_openai.py) answering each call after ``--latency``
  seconds: extraction gives the reply's sentences, the fast tier supports each (refutes Rome). It gives the
  fast tier's window call its claims without their verdicts, so each claim is then asked alone: 12 checker
  calls a plain reply (the window, six claims, the corrector's and the refuted claim's confirmation), the
  figure every earlier run took. ``--checker-window`` has it answer the window call as a capable model does,
  each claim with its verdict: the default path, 6 calls a plain reply;
- the guard: this script with ``--serve`` (benchmarks/guard.py's app, tier fast), its checker an
  ``openai:`` backend over HTTP (llm/openai_compat.py), served as ``factdebate serve`` serves it
  (server/ops/workers.py's ``serve_app``: the start-up's heap frozen out of the collector's way);
- LiteLLM 1.108.7 (.venv-litellm: ``make setup``), one model routed to the upstream, no guardrail.

Rounds alternate the order of direct, LiteLLM and the guard; each sends ``--replies`` replies at each
``--concurrency``, half of them streamed. Reported: median time to first token of the streamed ones, the
guard's and LiteLLM's process CPU milliseconds per reply (user + system, /proc), and the ratios.
``--guard-src`` runs the guard from another checkout's src (e.g. ``git archive`` of an older commit);
``--guard-checkout`` runs it as that checkout serves it (its src, its tests' helpers and its copy of this
script), for a before-and-after across renames; ``--before DIR`` runs that checkout's guard as one more target
(``guard_before``) in the same rounds, so before and after share the machine's state.
``FACTDEBATE_BENCH_CPU_SAMPLES=FILE`` has the guard sample its own stacks in CPU time (benchmarks/cpu_samples.py).
``--sentence-words N`` lengthens each of the 6 sentences to N words (each word one streamed event; the claims
to check stay six), so a reply's CPU can be read as a cost per reply plus a cost per streamed event.
``--checker-in-flight N`` sets the guard's ``llm.max_in_flight`` (default 64, a remote server's: the scripted
checker answers any number at once, as a served model does) and bounds the floor's calls the same. ``0`` leaves
the guard's own default, one call at a time to a server on loopback (llm/in_flight.py, for a local llama.cpp),
as every figure before 2026-11-26 13:00 UTC was taken: 8 replies' 96 calls then wait on one slot, the guard
idles between them, and its CPU per reply comes out about twice what it is with the calls in flight together.
``--floor`` adds benchmarks/relay_floor.py as a fourth target: a bare asyncio relay making the same 12 checker
calls with no framework and no check logic, the lower bound of any guard's CPU per reply in this interpreter.
``--traces`` adds a second guard, the same but sending OpenTelemetry traces (the standard OTEL_* variables, every
span over OTLP/HTTP to a receiver on loopback that answers 200 and keeps nothing), interleaved with the first:
its CPU per reply less the untraced guard's is what traces cost (``traces_cpu_ms_per_reply``). The SDK sends its
batch every 5 s (``OTEL_BSP_SCHEDULE_DELAY``'s default, as a service runs it), so with ``--traces`` both guards'
CPU is read 6 s after their wave: a wave's last spans are sent, and counted, within it.

    .venv/bin/python benchmarks/guard_vs_litellm.py --replies 40 --concurrency 1,8 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "bench-key-0123456789abcdef"
MASTER = "sk-bench-master-key"
LITELLM = ROOT / ".venv-litellm" / "bin" / "litellm"
ANSWER = ("Paris is the capital of France. The Louvre is a museum in Paris. The Eiffel Tower is in Rome. "
          "The Seine flows through Paris. Montmartre is a hill in Paris. The Pantheon stands in Paris.")
# Words that lengthen a sentence without changing what it claims (no "Rome": the checker refutes that one).
FILLER = ("as the guides that most visitors read before a first trip there tell it and as the people who live "
          "nearby will say when asked about it on any ordinary day of the year")


def answer_of(words: int) -> str:
    """ANSWER with each sentence lengthened to ``words`` words (0: as it is, 5 to 7): a served model's sentences
    run 15 to 30 words, each word one streamed event, while the claims to check stay six."""
    if not words:
        return ANSWER
    sentences, filler = [s.strip().rstrip(".").split() for s in ANSWER.split(". ")], FILLER.split()
    filler *= words // len(filler) + 1  # said again past its end
    return " ".join(" ".join(head + filler[:max(0, words - len(head))]) + "." for head in sentences)


_SENTENCE = re.compile(r"[^.!?]*[A-Za-z][^.!?]*[.!?]")
# HTTP/1.1: connections kept alive, as a model server keeps them (the fake's default HTTP/1.0 closed each one, and
# a profile of the guard found a TCP connect per checker call).
CHECKER = ("import sys, time; sys.path.insert(0, {root!r}); from benchmarks.guard_vs_litellm import {reply}; "
           "from tests.fake_openai import FakeOpenAI; "
           "s = FakeOpenAI(reply={reply}, delay={delay}, owner={owner!r}); "
           "s.server.RequestHandlerClass.protocol_version = 'HTTP/1.1'; s.__enter__(); "
           "print(s.base_url, flush=True); time.sleep(86400)")
SPANS_SENT_S = 6.0  # past the span batch's 5 s schedule (OTEL_BSP_SCHEDULE_DELAY's default)
# An OTLP/HTTP receiver that reads each export and answers 200: a collector's cost is the collector's, not the
# guard's; the guard's own is making, batching, encoding and sending its spans.
RECEIVER = ("import http.server as h\n"
            "class R(h.BaseHTTPRequestHandler):\n"
            "    protocol_version = 'HTTP/1.1'\n"
            "    def do_POST(self):\n"
            "        size = len(self.rfile.read(int(self.headers['Content-Length'] or 0)))\n"
            "        print(size, flush=True)\n"
            "        self.send_response(200); self.send_header('Content-Length', '0'); self.end_headers()\n"
            "    def log_message(self, *a): pass\n"
            "s = h.ThreadingHTTPServer(('127.0.0.1', 0), R)\n"
            "print(f'http://127.0.0.1:{s.server_address[1]}', flush=True)\n"
            "s.serve_forever()\n")


def checker_reply(body: dict[str, Any]) -> str:
    """The checker's answer to a request, told apart by its JSON schema (the guard asks with json_schema)."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema") or {}
    text = str(body["messages"][0]["content"])
    if "claims" in schema.get("properties", {}):
        given = text.split("\nText:\n", 1)[-1].rsplit("\n\nReply with", 1)[0]
        return json.dumps({"claims": [s.strip() for s in _SENTENCE.findall(given)]})
    claim = re.search(r"^(?:Statement|Claim): (.*)$", text, re.M)
    first = re.search(r"^\[1\] [^:]*: (.*)$", text, re.M)
    quote = first.group(1).split(". ")[0] if first else ""
    return json.dumps({"label": "REFUTES" if claim and "Rome" in claim.group(1) else "SUPPORTS", "passage": 1,
                       "quote": quote if not quote or quote.endswith(".") else quote + "."})


def window_checker_reply(body: dict[str, Any]) -> str:
    """:func:`checker_reply`, and the fast tier's window call answered as a capable model answers it: each
    numbered sentence of the window a claim with its verdict, passage and quote (Rome refuted, with no
    correction written, so the corrector is asked as before)."""
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema") or {}
    item = ((schema.get("properties") or {}).get("claims") or {}).get("items") or {}
    if "label" not in (item.get("properties") or {}):
        return checker_reply(body)
    text = str(body["messages"][0]["content"])
    answer = text.rsplit("\nAnswer:\n", 1)[-1].rsplit("\n\nReply with", 1)[0]
    first = re.search(r"^\[1\] [^:]*: (.*)$", text, re.M)
    quote = first.group(1).split(". ")[0] if first else ""
    quote = quote if not quote or quote.endswith(".") else quote + "."
    return json.dumps({"claims": [
        {"claim": sentence.strip(), "sentences": [int(number)],
         "label": "REFUTES" if "Rome" in sentence else "SUPPORTS", "passage": 1 if quote else 0, "quote": quote,
         "correction": ""}
        for number, sentence in re.findall(r"\[S(\d+)\] ([^\[]+)", answer)]})


def serve(args: argparse.Namespace) -> None:
    """The guard alone in this process, its checker over HTTP."""
    from benchmarks.guard import guard_app
    from factdebate.llm.openai_compat import OpenAIBackend
    from factdebate.server.ops.workers import serve_app

    backend = OpenAIBackend("checker", base_url=args.checker, api_key="sk-checker", constrain="json_schema",
                            stream=False)
    app = guard_app(Path(tempfile.mkdtemp()), args.upstream, backend, KEY)

    def run() -> None:
        serve_app(app, "127.0.0.1", args.port, "warning", 5)  # as `factdebate serve` serves it

    samples = os.environ.get("FACTDEBATE_BENCH_CPU_SAMPLES")  # benchmarks/cpu_samples.py: where the CPU goes
    if not samples and not args.profile:
        run()
        return
    # uvicorn raises the SIGTERM it caught again once it has stopped: an exit, so the samples or profile are written.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if samples:
        from benchmarks.cpu_samples import Sampler

        sampler = Sampler()
        sampler.start()
        try:
            run()
        finally:
            sampler.stop(Path(samples))
        return
    import cProfile

    # the whole run, in CPU time: wall time would count the waits of a loaded machine as work
    profile = cProfile.Profile(time.process_time)
    try:
        profile.runcall(run)
    finally:
        profile.dump_stats(args.profile)


def compile_environments() -> float:
    """Both proxies' environments compiled before either starts; the seconds it took. A machine that sets
    ``PYTHONDONTWRITEBYTECODE`` (this one does) never writes what a process compiles, so an environment installed
    without compiling (LiteLLM's, scripts/setup-gateways.sh) compiled every module each process imported, lazily
    imported ones inside the measured waves: about 2 ms a reply of LiteLLM's (docs/performance.md). Quick once
    done: only what changed is compiled again."""
    began = time.monotonic()
    for python, folders in ((LITELLM.with_name("python"), [LITELLM.parents[1] / "lib"]),
                            (Path(sys.executable), [Path(sys.prefix) / "lib", ROOT / "src", ROOT / "benchmarks"])):
        subprocess.run([str(python), "-m", "compileall", "-q", "-j", "0", *map(str, folders)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # a py2 file fails: no matter
    return time.monotonic() - began


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_seconds(pid: int) -> dict[str, float]:
    """CPU seconds of each of ``pid``'s living threads, summed by thread name (the main thread under ``main``):
    where a process's CPU goes when the main thread's stack samples do not account for it."""
    found: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            name = "main" if task.name == str(pid) else (task / "comm").read_text().strip()
        except OSError:  # the thread ended meanwhile
            continue
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def sampled_child(pid: int) -> int:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return int(children[0]) if children else pid


def started(command: list[str], url: str, env: dict[str, str] | None = None, **kw: Any) -> subprocess.Popen[Any]:
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"{command[0]} did not start ({url})")


async def one(client: httpx.AsyncClient, url: str, headers: dict[str, str], body: dict[str, Any]) -> float | None:
    """One reply; its time to first token if streamed."""
    began = time.perf_counter()
    if not body.get("stream"):
        reply = await client.post(f"{url}/v1/chat/completions", json=body, headers=headers)
        reply.raise_for_status()
        assert reply.json()["choices"][0]["message"]["content"]
        return None
    first = None
    async with client.stream("POST", f"{url}/v1/chat/completions", json=body, headers=headers) as reply:
        reply.raise_for_status()
        async for line in reply.aiter_lines():
            if first is None and line.startswith("data: {") and any(
                    (c.get("delta") or {}).get("content") for c in json.loads(line[6:]).get("choices") or []):
                first = time.perf_counter() - began
    return first


async def wave(url: str, headers: dict[str, str], extra: dict[str, Any], replies: int,
               concurrency: int, streamed: str = "half") -> list[float]:
    left, ttfts = list(range(replies)), []
    limits = httpx.Limits(max_connections=concurrency + 2, max_keepalive_connections=concurrency + 2)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        async def worker() -> None:
            while left:
                number = left.pop()
                stream = number % 2 == 0 if streamed == "half" else streamed == "all"
                body = {"model": "m", "stream": stream, **extra,
                        "messages": [{"role": "user", "content": "Tell me about Paris."}]}
                ttft = await one(client, url, headers, body)
                if ttft is not None:
                    ttfts.append(ttft)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return ttfts


def litellm_config(folder: Path, upstream: str) -> Path:
    path = folder / "litellm-config.yaml"
    path.write_text(json.dumps({  # JSON is YAML
        "model_list": [{"model_name": "m", "litellm_params": {"model": "openai/m", "api_base": upstream,
                                                              "api_key": "sk-upstream"}}],
        "general_settings": {"master_key": MASTER}}))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replies", type=int, default=40, help="replies per target, concurrency and round")
    parser.add_argument("--concurrency", default="1,8")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per checker call")
    parser.add_argument("--first", type=float, default=0.3, help="upstream seconds before the first token")
    parser.add_argument("--token-delay", type=float, default=0.01)
    parser.add_argument("--sentence-words", type=int, default=0, help="each of the reply's 6 sentences "
                        "lengthened to this many words, one streamed event each (0: 5 to 7 words, 38 events)")
    parser.add_argument("--streamed", choices=("half", "all", "none"), default="half",
                        help="which replies are streamed (the CPU of each kind apart; first tokens need some)")
    parser.add_argument("--floor", action="store_true", help="also time benchmarks/relay_floor.py (a bare relay "
                        "making the same checker calls: the floor under the guard's CPU per reply)")
    parser.add_argument("--checker-in-flight", type=int, default=64, help="the guard's llm.max_in_flight for its "
                        "checker (0: its default, 1 for a server on loopback, as a local llama.cpp wants; the "
                        "scripted checker answers any number at once, as a served model does: 64 is a remote "
                        "server's default)")
    parser.add_argument("--checker-window", action="store_true", help="the checker also answers the fast "
                        "tier's window call (each sentence a claim with its verdict), as a capable model does: "
                        "the default path's calls (off: that call's claims carry no verdict, and each claim is "
                        "asked alone)")
    parser.add_argument("--checker-owner", default="", help="what the checker's GET /v1/models says owns its "
                        "model (vllm: a batching server, which a guard with llm.max_in_flight unset then sends its "
                        "calls at once, llm/server_slots.py; empty: no model list, as before)")
    parser.add_argument("--traces", action="store_true", help="also time a second guard sending every span over "
                        "OTLP/HTTP to a loopback receiver (the cost of traces per reply)")
    parser.add_argument("--guard-src", default="", help="the guard's factdebate from this src folder")
    parser.add_argument("--guard-checkout", default="", help="run the guard as this other checkout serves it (its "
                        "src, tests and this script): a before-and-after in one run across a rename")
    parser.add_argument("--before", default="", help="also run the guard as this other checkout serves it, as "
                        "one more target in the same rounds (guard_before): a before-and-after in one run")
    parser.add_argument("--profile", default="", help="write the guard process's cProfile statistics here")
    parser.add_argument("--py-spy", default="", help="sample the guard with py-spy ($PY_SPY or on PATH; on-CPU "
                        "stacks, 200 a second), its raw stacks written to this file")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--upstream", default="", help=argparse.SUPPRESS)
    parser.add_argument("--checker", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
        return
    if not LITELLM.exists():
        raise SystemExit(".venv-litellm is missing: make setup (scripts/setup.sh --dev) builds it")
    from tests.server.conftest import free_port

    print(f"both environments compiled ({compile_environments():.1f} s)", flush=True)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    folder = Path(tempfile.mkdtemp())
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update({"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
                "NO_PROXY": "127.0.0.1,localhost", "HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    model_port, guard_port, litellm_port, floor_port = free_port(), free_port(), free_port(), free_port()
    processes: list[subprocess.Popen[Any]] = []
    sampler: list[str] = []
    guard_pid = 0
    receiver: subprocess.Popen[Any] | None = None
    try:
        script = CHECKER.format(root=str(ROOT), delay=args.latency, owner=args.checker_owner or None,
                                reply="window_checker_reply" if args.checker_window else "checker_reply")
        checker = subprocess.Popen([sys.executable, "-c", script],
                                   stdout=subprocess.PIPE, text=True, env=env)
        processes.append(checker)
        assert checker.stdout is not None
        checker_url = checker.stdout.readline().strip()
        model_url = f"http://127.0.0.1:{model_port}"
        processes.append(started([sys.executable, "-m", "tests.server.guard_support", "--port", str(model_port),
                                  "--answer", answer_of(args.sentence_words), "--latency", str(args.first),
                                  "--token-delay", str(args.token_delay)], model_url + "/docs",
                                 cwd=ROOT))
        guard_script, guard_path, guard_cwd = __file__, args.guard_src, None
        if args.guard_checkout:  # its own --serve, so the app and test helpers it imports are its own
            other = Path(args.guard_checkout).resolve()
            guard_script, guard_path, guard_cwd = str(other / "benchmarks" / Path(__file__).name), \
                f"{other / 'src'}:{other}", other
        # Shedding off (guard.max_cpu_share 0): the CPU per reply is measured at every concurrency, past the
        # share a shedding guard would admit too.
        guard_env = {**env, "FACTDEBATE_GUARD__MAX_CPU_SHARE": "0",
                     **({"PYTHONPATH": guard_path} if guard_path else {}),
                     **({"FACTDEBATE_LLM__MAX_IN_FLIGHT": str(args.checker_in_flight)} if args.checker_in_flight
                        else {})}
        guard_url = f"http://127.0.0.1:{guard_port}"
        sampler = [os.environ.get("PY_SPY", "py-spy"), "record", "-f", "raw", "-r", "200", "-o", args.py_spy,
                   "--"] if args.py_spy else []
        guard = started([*sampler, sys.executable, guard_script, "--serve", "--port", str(guard_port), "--upstream",
                         f"{model_url}/v1", "--checker", checker_url, *(["--profile", args.profile] if args.profile
                                                                        else [])],
                        guard_url + "/v1/health", guard_env, cwd=guard_cwd)
        processes.append(guard)
        guard_pid = sampled_child(guard.pid) if sampler else guard.pid  # py-spy runs the guard as its child
        traced: tuple[str, int] | None = None
        if args.traces:  # the receiver prints its address, then each export's size
            receiver = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True, env=env)
            processes.append(receiver)
            assert receiver.stdout is not None
            traced_env = {**guard_env, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.stdout.readline().strip(),
                          "OTEL_SERVICE_NAME": "guard-bench"}
            traced_port = free_port()
            traced_guard = started([sys.executable, __file__, "--serve", "--port", str(traced_port), "--upstream",
                                    f"{model_url}/v1", "--checker", checker_url],
                                   f"http://127.0.0.1:{traced_port}/v1/health", traced_env)
            processes.append(traced_guard)
            traced = (f"http://127.0.0.1:{traced_port}", traced_guard.pid)
        litellm_url = f"http://127.0.0.1:{litellm_port}"
        litellm = started([str(LITELLM), "--config", str(litellm_config(folder, f"{model_url}/v1")), "--host",
                           "127.0.0.1", "--port", str(litellm_port), "--num_workers", "1"],
                          litellm_url + "/health/liveliness", env, cwd=folder)
        processes.append(litellm)
        targets: dict[str, tuple[str, dict[str, str], dict[str, Any], int | None]] = {
            "direct": (model_url, {}, {}, None),
            "litellm": (litellm_url, {"Authorization": f"Bearer {MASTER}"}, {}, litellm.pid),
            "guard": (guard_url, {"Authorization": f"Bearer {KEY}"},
                      {"factdebate": {"tier": "fast", "method": "single", "deadline_s": 20}}, guard_pid)}
        if traced is not None:
            targets["guard_traced"] = (traced[0], *targets["guard"][1:3], traced[1])
        if args.before:  # the other checkout's own --serve, so the app and test helpers it imports are its own
            other, before_port = Path(args.before).resolve(), free_port()
            before_env = {**guard_env, "PYTHONPATH": f"{other / 'src'}:{other}"}
            before_guard = started([sys.executable, str(other / "benchmarks" / Path(__file__).name), "--serve",
                                    "--port", str(before_port), "--upstream", f"{model_url}/v1", "--checker",
                                    checker_url], f"http://127.0.0.1:{before_port}/v1/health", before_env, cwd=other)
            processes.append(before_guard)
            targets["guard_before"] = (f"http://127.0.0.1:{before_port}", *targets["guard"][1:3], before_guard.pid)
        if args.floor:
            floor_url = f"http://127.0.0.1:{floor_port}"
            floor = started([sys.executable, str(ROOT / "benchmarks" / "relay_floor.py"), "--port", str(floor_port),
                             "--upstream", f"{model_url}/v1", "--checker", checker_url,
                             "--in-flight", str(args.checker_in_flight)], floor_url + "/v1/health",
                            env)
            processes.append(floor)
            targets["floor"] = (floor_url, {}, {}, floor.pid)
        for url, headers, extra, _ in targets.values():  # warm-up: connections, first-call paths
            asyncio.run(wave(url, headers, extra, 6, 2))
        checked = httpx.post(f"{guard_url}/v1/chat/completions", headers=targets["guard"][1], timeout=60, json={
            "model": "m", "messages": [{"role": "user", "content": "Tell me about Paris."}],
            **targets["guard"][2]}).json()["factdebate"]
        print(json.dumps({"guard_reply": {"claims": [c["status"] for c in checked["claims"]],
                                          "model_calls": checked["usage"]["model_calls"]}}), flush=True)
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            ttft: dict[str, list[float]] = {name: [] for name in targets}
            cpu: dict[str, list[float]] = {name: [] for name in targets}
            by_thread: dict[str, dict[str, float]] = {name: {} for name in targets}
            for number in range(args.rounds):
                for name in (list(targets) if number % 2 == 0 else list(reversed(targets))):
                    url, headers, extra, pid = targets[name]
                    before = cpu_seconds(pid) if pid else 0.0
                    threads_before = thread_seconds(pid) if pid and name.startswith("guard") else {}
                    ttft[name] += asyncio.run(wave(url, headers, extra, args.replies, concurrency, args.streamed))
                    if pid and name.startswith("guard"):
                        for thread, seconds in thread_seconds(pid).items():
                            used = seconds - threads_before.get(thread, 0.0)
                            by_thread[name][thread] = by_thread[name].get(thread, 0.0) + \
                                1000 * used / (args.replies * args.rounds)
                    if args.traces and name in ("guard", "guard_traced"):
                        time.sleep(SPANS_SENT_S)  # the last batch of spans sent (both guards wait alike)
                    if pid:
                        cpu[name].append(1000 * (cpu_seconds(pid) - before) / args.replies)
            # (none streamed: no first token to time)
            median = {name: statistics.median(values) if values else float("nan") for name, values in ttft.items()}
            guard_cpu, litellm_cpu = statistics.median(cpu["guard"]), statistics.median(cpu["litellm"])
            floor_cpu = statistics.median(cpu["floor"]) if cpu.get("floor") else None
            traced_cpu = statistics.median(cpu["guard_traced"]) if cpu.get("guard_traced") else None
            before_cpu = statistics.median(cpu["guard_before"]) if cpu.get("guard_before") else None
            print(json.dumps({
                "concurrency": concurrency, "replies": args.replies * args.rounds, "streamed": args.streamed,
                "sentence_words": args.sentence_words,
                "ttft_s": {name: round(value, 4) for name, value in median.items()},
                "ttft_guard_over_direct": round(median["guard"] / median["direct"], 3),
                "ttft_litellm_over_direct": round(median["litellm"] / median["direct"], 3),
                "cpu_ms_per_reply": {"guard": round(guard_cpu, 1), "litellm": round(litellm_cpu, 1),
                                     **({"floor": round(floor_cpu, 1)} if floor_cpu is not None else {}),
                                     **({"guard_traced": round(traced_cpu, 1)} if traced_cpu is not None else {}),
                                     **({"guard_before": round(before_cpu, 1)} if before_cpu is not None else {})},
                "guard_cpu_over_litellm": round(guard_cpu / litellm_cpu, 3),
                **({"traces_cpu_ms_per_reply": round(traced_cpu - guard_cpu, 1),
                    "traces_cpu_ms_per_reply_by_round": [round(t - g, 1) for t, g in
                                                         zip(cpu["guard_traced"], cpu["guard"], strict=True)]}
                   if traced_cpu is not None else {}),
                **({"floor_cpu_over_litellm": round(floor_cpu / litellm_cpu, 3)} if floor_cpu is not None else {}),
                **({"guard_before_cpu_over_litellm": round(before_cpu / litellm_cpu, 3),
                    "ttft_guard_before_over_direct": round(median["guard_before"] / median["direct"], 3),
                    "guard_cpu_after_over_before": round(guard_cpu / before_cpu, 3)} if before_cpu is not None
                   else {}),
                "cpu_ms_per_reply_by_thread": {
                    name: {thread: round(ms, 1) for thread, ms in sorted(threads.items(), key=lambda t: -t[1])
                           if round(ms, 1)}
                    for name, threads in by_thread.items() if threads},
                "load_average": round(os.getloadavg()[0], 1)}), flush=True)
    finally:
        if sampler and guard_pid:  # the guard first, so py-spy sees it end and writes its stacks
            os.kill(guard_pid, signal.SIGTERM)
            guard.wait(30)
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        if receiver is not None and receiver.stdout is not None:  # the traced guard's spans did arrive
            sizes = [int(line) for line in receiver.stdout.read().split()]
            print(json.dumps({"otlp_exports": len(sizes), "otlp_bytes": sum(sizes)}), flush=True)


if __name__ == "__main__":
    main()
