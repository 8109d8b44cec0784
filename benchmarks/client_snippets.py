"""docs/guard.md's LangChain and Vercel AI SDK snippets, run as written against a real ``factdebate serve``.

The snippets are files, docs/guard/clients/langchain_guard.py and ai-sdk-guard.mjs, which docs/guard.md shows
word for word (tests/test_documented_lines.py holds the Python one to it). This script installs the clients
from their registries into a folder of their own (``--work``, kept between runs: a second run installs
nothing), starts a scripted upstream model (tests/server/guard_support.py) and ``factdebate serve
--guard-upstream`` in front of it with a scripted checker (``scripted:disagree``: every claim with a passage is
refuted, so every answer is flagged), runs each snippet (a plain call and a stream, then the verdicts read back
by the check id and by the conversation) and checks what it printed against the service's kept checks. It
prints the versions tried, for the table in docs/guard.md. It needs the network to install, so it is not part
of ``make test``::

    .venv/bin/python benchmarks/client_snippets.py [--work /tmp/client-snippets]

Exit status 0 when both snippets ran and every check id they printed names a flagged check of the service.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CLIENTS = ROOT / "docs" / "guard" / "clients"
KEY = "snippet-trial-key-0123456789"
ANSWER = "The Eiffel Tower is in Paris. It opened in 1889. The Eiffel Tower is in Rome."
PYTHON_PACKAGES = ("langchain-openai", "langchain-core", "httpx")
NODE_PACKAGES = ("ai", "@ai-sdk/openai-compatible")
CHECK_ID = re.compile(r"\b[0-9a-f]{32}\b")


def install(work: Path) -> dict[str, str]:
    """The clients in ``work`` (a virtual environment and a node_modules folder); their versions."""
    venv = work / "venv"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *PYTHON_PACKAGES], check=True)
    if not (work / "package.json").exists():
        (work / "package.json").write_text(json.dumps({"name": "client-snippets", "private": True}))
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", *NODE_PACKAGES], cwd=work, check=True)
    versions = {}
    for name in PYTHON_PACKAGES[:2]:
        shown = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "show", name], capture_output=True,
                               text=True, check=True).stdout
        versions[name] = re.search(r"^Version: (.+)$", shown, re.M).group(1)  # type: ignore[union-attr]
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    for name in NODE_PACKAGES:
        package = json.loads((work / "node_modules" / name / "package.json").read_text())
        versions[name] = f"{package['version']} (Node {package.get('engines', {}).get('node', 'any')})"
    versions["node"] = node
    versions["python"] = sys.version.split()[0]
    return versions


def _up(url: str, process: subprocess.Popen[bytes], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.2)


def run_snippet(command: list[str], cwd: Path, env: dict[str, str], guard: str) -> tuple[bool, str]:
    """Run one snippet; (it worked, what went wrong or what it showed)."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return False, f"exit {done.returncode}: {done.stderr[-2000:]}"
    out = done.stdout
    ids = CHECK_ID.findall(out.strip().splitlines()[-1])
    problems = []
    if out.count("Fact check:") < 2:
        problems.append("the footnote did not arrive twice (plain and streamed)")
    if len(set(ids)) < 2:
        problems.append(f"two check ids expected on the last line, found {ids}")
    headers = {"Authorization": f"Bearer {KEY}"}
    for check_id in set(ids):
        kept = httpx.get(f"{guard}/v1/checks/{check_id}", headers=headers, timeout=30)
        if kept.status_code != 200 or kept.json()["verdict"]["action_taken"] != "flagged":
            problems.append(f"check {check_id}: {kept.status_code} {kept.text[:200]}")
        elif out.count(check_id) < 2:  # printed where it was read back, and again on the last line
            problems.append(f"check {check_id} was not listed with its conversation")
    return not problems, "; ".join(problems) or f"{len(out.splitlines())} lines, check ids {sorted(set(ids))}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "factdebate-client-snippets")
    args = parser.parse_args()
    from tests.server.conftest import free_port

    args.work.mkdir(parents=True, exist_ok=True)
    versions = install(args.work)
    model_port, guard_port = free_port(), free_port()
    data = Path(tempfile.mkdtemp(prefix="client-snippets-"))
    (data / "guard.yaml").write_text("guard:\n  tier: fast\n  max_tier: fast\n")
    env = {**os.environ, "FACTDEBATE_DATA_DIR": str(data), "FACTDEBATE_API_KEYS": KEY}
    model = subprocess.Popen([sys.executable, "-m", "tests.server.guard_support", "--port", str(model_port),
                              "--answer", ANSWER, "--latency", "0.1", "--token-delay", "0.01"], cwd=ROOT,
                             stderr=subprocess.DEVNULL)
    exe = str(Path(sys.executable).with_name("factdebate"))
    server = subprocess.Popen([exe, "serve", "--port", str(guard_port), "--llm", "scripted:disagree@0.05",
                               "--agents", "none,none", "--no-scoring", "--no-cache", "--config",
                               str(data / "guard.yaml"), "--guard-upstream", f"http://127.0.0.1:{model_port}/v1"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    guard = f"http://127.0.0.1:{guard_port}"
    results = {}
    try:
        _up(f"http://127.0.0.1:{model_port}/docs", model, "the scripted model")
        _up(f"{guard}/v1/health", server, "factdebate serve")
        client_env = {**os.environ, "FACTDEBATE_URL": guard, "FACTDEBATE_API_KEYS": KEY}
        results["LangChain"] = run_snippet([str(args.work / "venv" / "bin" / "python"),
                                            str(CLIENTS / "langchain_guard.py")], args.work, client_env, guard)
        script = args.work / "ai-sdk-guard.mjs"  # beside node_modules, where Node resolves its imports
        script.write_text((CLIENTS / "ai-sdk-guard.mjs").read_text())
        results["Vercel AI SDK"] = run_snippet(["node", str(script)], args.work, client_env, guard)
    finally:
        for process in (server, model):
            process.terminate()
            process.wait(timeout=30)
    print(f"tried {datetime.now(UTC):%Y-%m-%d} with " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    for name, (ok, said) in results.items():
        print(f"{name}: {'ok' if ok else 'FAILED'}: {said}")
    sys.exit(0 if all(ok for ok, _ in results.values()) else 1)


if __name__ == "__main__":
    main()
