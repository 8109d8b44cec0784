"""Every command line and Python block in README.md and docs/ is checked as written, so a line that stops
working fails here, named by its file and line (tests/documented_lines.py says what counts as a line).

Each line is looked up in RULES (shell), PYTHON or YAML (blocks, by their first line) by its text; a line with
no rule fails, so a new documented line must be given one, and a rule whose line is gone fails too. The kinds:

- ``Run``: run in-process through ``factdebate.cli.main.run`` on the scripted model (``FACTDEBATE_LLM``),
  the built-in corpus cut to a few articles (``FACTDEBATE_RETRIEVAL__BUILTIN_DOCS``), network off
  (tests/conftest.py) and ``HF_HUB_OFFLINE=1``. Each page runs in its own folder, in page order, so a line can
  use what an earlier line of its page wrote. A line that needs the network expects its one-line message
  and exit 2; a large draw is cut (``edit``) with the reason.
- ``Parse``: servers, Ray clusters, remote Milvus, the embedded model and files only the reader has: the
  command's own parser reads the options (``make_context``), nothing runs.
- ``Settings``: a settings file loads, and the reference file's values are the defaults.
- ``Make``, ``Pip``, ``Route``, ``Export``, ``Script``, ``Copy``, ``Skip``: see tests/documented_lines.py.

``factdebate ...`` code spans in the prose are fragments: they are checked to name real commands and options.
"""

from __future__ import annotations

import ast
import functools
import glob
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer

from tests.conftest import BUILTIN_DOCS
from tests.documented_lines import (
    ROOT,
    Copy,
    Export,
    Make,
    Parse,
    Pip,
    PyImports,
    PyRun,
    PyTyped,
    Route,
    Rule,
    Run,
    Script,
    Settings,
    Skip,
    Snippet,
    YamlOnly,
    commands,
    inline_commands,
    snippets,
)

CLAIM = "The Eiffel Tower is located in Rome."
PLACEHOLDERS = ("...", "…")
FEW = (("--limit 50", "--limit 2"), ("--limit 20", "--limit 2"), ("--limit 5 ", "--limit 2 "))
FEW_WHY = "the same command on 2 samples: DPD takes about 2 s a claim even on the scripted model"
SERVER = "a server that runs until stopped; tests/server/test_commands.py starts it"
RAY = "starts or joins a Ray cluster; tests/scale/ run batches and indexing on Ray"
REMOTE = "a Milvus server at a made-up host; tests/scale/ index and search on a real server"
USER_FILE = "reads a file the reader downloads; tests/eval/ load that format from a fixture"
EMBEDDED = "the embedded model: minutes per claim; tests/llm/test_llama_cpp.py runs it"
NEEDS_KEY = "needs OpenAI: exits 2 naming the variable"
SYNOPSIS = "a synopsis (placeholders, [optional] parts)"
GATEWAYS = "builds the gateway's environment from its lock: scripts/setup.sh --dev (make test) runs it"
OPENCLAW = "OpenClaw (Node): tests/server/guard/test_openclaw.py runs its gateway and `openclaw agent` on the guard"
MERMAID_RUN = "factdebate eval --method mermaid --dataset countries -o runs/mermaid"

OFFLINE_PROXY = ("a line of the offline proxy quick start: tests/server/guard/test_stand_in.py runs the block as the "
                 "page prints it, on a scripted checker (make test) and on the offline model (make test-all)")
LOOP = ("a line of the re-run loop around the reader's own agent: tests/response_level/test_loop.py runs the whole "
        "script as the page prints it, with scripted agents")
RULES: dict[str, Rule] = {
    # README.md
    "make demo": Make("sets up .venv and runs the embedded model on a claim (minutes)"),
    "make test": Make("the whole check this test is part of"),
    f'factdebate verify "{CLAIM}"': Run(),
    'factdebate verify "The Eiffel Tower is in Paris." --json > verdict.json': Run(),
    'factdebate verify "The Eiffel Tower is in Paris." --method mermaid': Run(),
    'factdebate verify "The Eiffel Tower is in Paris." --brief': Run(),
    'factdebate check-response --question "Tell me about the Eiffel Tower." "The Eiffel Tower stands in Paris. It '
    'was finished in 1899 and is made of wrought iron." --method madke --madke-rounds 1': Run(),
    "factdebate check-response --file answer.md": Parse(USER_FILE),
    "factdebate serve --no-auth": Parse(SERVER),
    "factdebate serve --guard-upstream https://api.openai.com/v1": Parse(SERVER),
    'factdebate verify "The Eiffel Tower is in Paris." --trace trace.jsonl': Run(),
    'factdebate verify "The Eiffel Tower is in Paris." --trace trace.jsonl --trace-text': Run(),
    "factdebate verify --input claims.jsonl --output results.jsonl": Run(),
    "factdebate verify --input claims.jsonl --output results.jsonl --executor ray --workers 2": Parse(RAY),
    "factdebate eval --dataset halueval-qa --method dpd --evidence given --limit 20 -o runs/halueval-dpd":
        Run(edit=FEW, why=FEW_WHY),
    "factdebate eval --dataset fever --limit 50 -o runs/fever": Run(2, "offline mode is on (HF_HUB_OFFLINE)"),
    "factdebate eval --method tool-mad,dpd,cot --dataset halueval-qa --evidence given --limit 50 -o runs/which":
        Parse("docs/compare.md's line 9 runs the same command with mermaid added to the methods (2 samples)"),
    "factdebate reproduce dpd --llm openai:gpt-4o-mini -o runs/dpd": Run(2, "OPENAI_API_KEY", why=NEEDS_KEY),
    "factdebate index my_docs.jsonl --corpus mydocs": Run(),
    "factdebate corpus fetch wikipedia --lang en --limit-files 1 && factdebate index wikipedia-en":
        Run(2, "offline mode is on (HF_HUB_OFFLINE)", why="fetches from the Hugging Face Hub"),
    "factdebate index big/ --corpus big --executor ray --milvus-uri http://host:19530": Parse(RAY),
    'factdebate verify "The Eiffel Tower is in Paris." --corpus mydocs':
        Run(after=("factdebate index my_docs.jsonl --corpus mydocs",)),
    "factdebate doctor": Run(),
    "factdebate setup": Parse("pip-installs the pinned packages and builds the full index: tests/cli/test_setup.py"),
    "factdebate methods": Run(),
    "factdebate schema": Run(),
    "factdebate schema --events": Run(),
    "export OPENAI_API_KEY=... TAVILY_API_KEY=...": Export(),
    'factdebate verify "The Eiffel Tower is in Paris." --llm openai:gpt-4o-mini':
        Run(2, "does not answer", why="with a key set it asks OpenAI's model list first: no network here",
            after=("export OPENAI_API_KEY=... TAVILY_API_KEY=...",)),
    # docs/compare.md
    "factdebate eval --method tool-mad,mermaid,dpd,cot --dataset halueval-qa --evidence given --limit 50 "
    "-o runs/which": Run(edit=FEW, why=FEW_WHY),
    "factdebate compare runs/which/tool-mad runs/which/dpd runs/which/cot -o runs/which-cmp": Run(after=(
        "factdebate eval --method tool-mad,mermaid,dpd,cot --dataset halueval-qa --evidence given --limit 50 "
        "-o runs/which",)),
    "factdebate compare A B -o OUT --price openai:gpt-4o-mini=0.15,0.60 --cost-axis dollars": Parse(SYNOPSIS),
    "factdebate compare A B -o OUT --intersection": Parse(SYNOPSIS),
    "factdebate compare out/cot three -o c3": Parse("an example session's transcript; tests/cli/test_compare.py"),
    "factdebate compare out/mad out/cot -o c --price agree=1,2 --price disagree=3,4":
        Parse("an example of tests/cli/test_compare.py, which runs it"),
    "factdebate eval --method tool-mad,mermaid,dpd,cot --dataset halueval-qa --evidence given --limit 5 "
    "--no-cache -o emb": Parse("line 9 runs the same four methods (20 s); the page's record of one run"),
    "factdebate eval --method cot --dataset halueval-qa --evidence given --limit 5 --no-cache -o emb/cot":
        Run(edit=FEW, why=FEW_WHY),
    "factdebate compare emb/tool-mad emb/mermaid emb/dpd emb/cot -o emb": Parse("compares line 143's runs"),
    "OPENAI_BASE_URL=http://127.0.0.1:18440/v1 factdebate eval --method tool-mad,mermaid,dpd,cot --dataset "
    "halueval-qa --evidence given --limit 5 --no-cache -o b-fake --llm openai:fake":
        Parse("needs the page's fake model server on port 18440"),
    # docs/configuration.md
    "python -m venv env": Skip("a new environment: tests/install/test_wheel_install.py (make test-install)"),
    "env/bin/pip install 'factdebate-0.1.0-py3-none-any.whl[all]'": Pip("the wheel's version and extra"),
    f'HF_HUB_OFFLINE=1 factdebate verify "{CLAIM}"': Run(),
    "OPENAI_BASE_URL=http://127.0.0.1:8080/v1 .venv/bin/python benchmarks/server_speed.py --llm openai:your-model":
        Script("a benchmark against a model server"),
    ".venv/bin/python benchmarks/claim_extraction.py --llm llama-cpp:builtin --limit 10 --out rows.json":
        Script("a benchmark on the embedded model (minutes)"),
    "OPENAI_BASE_URL=http://127.0.0.1:18431/v1 .venv/bin/python benchmarks/claim_extraction.py --llm openai:smollm2 "
    "--limit 10": Script("a benchmark against a model server"),
    # docs/guard.md and docs/service.md
    "export FACTDEBATE_API_KEYS=\"$(python -c 'import secrets; print(secrets.token_urlsafe(24))')\"": Export(),
    "export FACTDEBATE_GUARD_UPSTREAM_KEY=sk-...": Export(),
    "factdebate serve --guard-upstream https://api.openai.com/v1 --llm openai:gpt-4o-mini --search wikipedia":
        Parse(SERVER),
    "factdebate serve": Parse(SERVER),
    "factdebate serve --config factdebate.yaml --service-config service.yaml --port 8080": Parse(SERVER),
    "factdebate serve --workers 4": Parse(SERVER),
    "curl -s localhost:8000/v1/verify -H \"Authorization: Bearer $KEY\" -H 'Content-Type: application/json' "
    "-d '{\"claim\": \"The Eiffel Tower was completed in 1889.\", \"rounds\": 2}'": Route(SERVER),
    "curl -si localhost:8000/v1/verify -H \"Authorization: Bearer $KEY\" -H 'Content-Type: application/json' "
    "-d '{\"claim\": \"The Eiffel Tower was completed in 1889.\"}' | grep -i x-check-id": Route(SERVER),
    'curl -s localhost:8000/v1/checks/<id> -H "Authorization: Bearer $KEY"': Route(SERVER),
    "curl -s localhost:8000/v1/chat/completions -H \"Authorization: Bearer $FACTDEBATE_API_KEYS\" -H 'Content-Type: "
    "application/json' -d '{\"model\": \"gpt-4o-mini\", \"messages\": [{\"role\": \"user\", \"content\": \"Tell me "
    "about the Eiffel Tower.\"}]}'": Route(SERVER),
    "curl -s \"localhost:8000/v1/batches?rounds=2&agents=rag,search\" -H \"Authorization: Bearer $KEY\" "
    "-H 'Content-Type: application/x-ndjson' --data-binary @claims.jsonl": Route(SERVER),
    'curl -s localhost:8000/v1/batches/<id>?results=false -H "Authorization: Bearer $KEY"': Route(SERVER),
    # docs/ways/ and docs/start/: the quick starts (the shared lines are README's and guard's above)
    "factdebate check-response --file answer.md --fail-on refuted --feedback fixes.txt --deadline 1800": Run(),
    # docs/ways/proxy.md's offline quick start, run whole as the page prints it (its ports moved to free ones)
    'factdebate stand-in-upstream --port 9000 --says "The Eiffel Tower was finished in 1899. It stands in Paris." &':
        Skip(OFFLINE_PROXY),
    "factdebate serve --no-auth --log-level warning --guard-upstream http://127.0.0.1:9000/v1 &": Skip(OFFLINE_PROXY),
    "until curl -sf localhost:8000/v1/health > /dev/null; do sleep 2; done; curl -s localhost:8000/v1/chat/completions "
    "-H 'Content-Type: application/json' -d '{\"model\": \"stand-in\", \"messages\": [{\"role\": \"user\", "
    "\"content\": \"Tell me about the Eiffel Tower.\"}]}'": Skip(OFFLINE_PROXY),
    "scripts/setup-gateways.sh litellm": Skip(GATEWAYS),
    "scripts/setup-gateways.sh nemo": Skip(GATEWAYS),
    "sudo apt-get install libsndfile1": Skip("a Debian package: scripts/ci-system-deps.sh installs it for make test"),
    "export FACTDEBATE_URL=http://127.0.0.1:8000 FACTDEBATE_API_BASE=http://127.0.0.1:8000/v1 "
    "LITELLM_MASTER_KEY=sk-litellm-0123456789": Export(),
    "LITELLM_LOCAL_MODEL_COST_MAP=True .venv-litellm/bin/litellm --config docs/guard/litellm-config.yaml --port 4000":
        Skip("LiteLLM's proxy: tests/guard/conformance/test_gateways.py starts it so, with these variables"),
    "curl -s localhost:4000/v1/chat/completions -H \"Authorization: Bearer $LITELLM_MASTER_KEY\" -H 'Content-Type: "
    "application/json' -d '{\"model\": \"gpt-4o-mini-checked\", \"messages\": [{\"role\": \"user\", \"content\": "
    "\"Tell me about the Eiffel Tower.\"}]}'": Skip(
        "a request to LiteLLM's proxy: tests/guard/conformance/test_gateways.py asks it for both models"),
    "export OPENAI_BASE_URL=http://127.0.0.1:8080/v1": Export(),
    ".venv-nemo/bin/nemoguardrails chat --config docs/guard/nemo": Skip(
        "NeMo's interactive chat: tests/guard/conformance/test_gateways.py runs LLMRails on that folder"),
    "openclaw gateway run": Skip(OPENCLAW),
    'openclaw agent --agent main -m "Tell me about the Eiffel Tower."': Skip(OPENCLAW),
    # docs/methods/
    'factdebate verify --method cot "The Eiffel Tower is in Rome."': Run(),
    'factdebate verify --method dpd "The Eiffel Tower is in Rome."': Run(),
    'factdebate verify --method dpd --dpd-transition always-trust --dpd-min-rounds 1 "..."': Run(),
    "factdebate eval --dataset factool-qa-responses:knowledge_qa.jsonl --method factool --search wikipedia "
    "-o runs/factool": Parse(USER_FILE),
    'factdebate verify "…" --method factool --factool-queries 3 --factool-tool rag': Run(),
    "factdebate eval --dataset halueval-qa --method tool-mad --evidence given --limit 50 -o runs/halueval-given":
        Run(edit=FEW, why=FEW_WHY),
    "factdebate eval --dataset pubmedqa:ori_pqal.json --method cot --evidence both -o runs/pubmedqa-both":
        Parse(USER_FILE),
    'factdebate verify "…" --evidence retrieved': Run(),
    "factdebate eval --dataset halueval-qa --method halueval-fewshot --limit 150 -o runs/halueval-fewshot":
        Run(edit=(("--limit 150", "--limit 2"),), why="the same command on 2 samples"),
    'factdebate verify --method mad "The Eiffel Tower is in Rome."': Run(),
    'factdebate verify --method madke "The Eiffel Tower is in Rome."': Run(),
    "FACTDEBATE_API_KEYS=$(python -c 'import secrets; print(secrets.token_urlsafe(24))') factdebate mcp --http "
    "--host 127.0.0.1 --port 8001 --config factdebate.yaml": Skip(
        "a server that runs until stopped; tests/server/mcp/test_mcp_agents.py starts `mcp --http` with keys"),
    "factdebate mcp-tools wikipedia": Parse("an MCP server on stdio; tests/toolservers/ start it"),
    "factdebate mcp-tools wikipedia --online": Parse("an MCP server on stdio; tests/toolservers/ start it"),
    "factdebate mcp-tools search": Parse("an MCP server on stdio; tests/toolservers/ start it"),
    "factdebate mcp-tools scholar": Parse("an MCP server on stdio; tests/toolservers/ start it"),
    "python -m factdebate.toolservers NAME ...": Skip("a synopsis of the four lines above (NAME is one of them)"),
    "factdebate memory ls [--json]": Parse(SYNOPSIS),
    'factdebate memory show "Eiffel Tower"': Run(),
    'factdebate memory search "iron tower" [-k 10] [--substring]': Parse(SYNOPSIS),
    "factdebate memory clear [--entity E] [--expired] [--yes]": Parse(SYNOPSIS),
    "factdebate memory export [-o records.jsonl]": Parse(SYNOPSIS),
    'factdebate verify --method mermaid "Angkor Wat is in Cambodia."': Parse(
        "README.md's `verify \"The Eiffel Tower is in Paris.\" --method mermaid` runs the same (MERMAID starts "
        "its tool servers: 10 s)"),
    MERMAID_RUN: Run(
        edit=(("countries", "countries --limit 1"),), why="the same run on one of the dataset's claims"),
    'factdebate verify --method mermaid --memory readonly --memory-path runs/mermaid/evidence_memory.sqlite "..."':
        Run(after=(MERMAID_RUN,)),
    "factdebate eval --method mermaid --dataset countries -o runs/again "
    "--memory-from runs/mermaid/evidence_memory.sqlite": Run(
        edit=(("countries", "countries --limit 1"),), why="the same run on one of the dataset's claims",
        after=(MERMAID_RUN,)),
    "factdebate memory ls": Run(),
    "factdebate memory ls --memory-path runs/mermaid/evidence_memory.sqlite": Run(after=(MERMAID_RUN,)),
    "FACTDEBATE_DATA_DIR=... python benchmarks/memory.py --factcheck-bench PATH/fire_data.jsonl [--semantic]":
        Script("a benchmark on a file the reader downloads"),
    'factdebate verify --method react "The Eiffel Tower is in Rome."': Run(),
    'factdebate check-response "The Eiffel Tower is in Paris. It was completed in 1889." --question "Tell me '
    'about the Eiffel Tower." --method tool-mad': Run(),
    "factdebate check-response --file answer.txt --method mad --mad-rounds 2 --json": Run(),
    "cat answer.txt | factdebate check-response - --drop-subjective": Run(),
    "factdebate eval -d factool-qa:fire_data.jsonl --method selfcheck -o runs/sc0": Parse(USER_FILE),
    "factdebate eval -d factool-qa:fire_data.jsonl --method selfcheck --selfcheck-samples 3 -o runs/sc3":
        Parse(USER_FILE),
    "factdebate eval -d factool-qa:fire_data.jsonl --method selfcheck --selfcheck-shots 3 -o runs/sc3s":
        Parse(USER_FILE),
    'factdebate verify --method single "The Eiffel Tower is in Rome."': Run(),
    'factdebate verify --method vote "The Eiffel Tower is in Rome."': Run(),
    "factdebate eval --dataset factool-qa:fire_data.jsonl --method wecheck -o runs/wecheck": Parse(USER_FILE),
    "factdebate eval --dataset halueval-qa --method wecheck --evidence given -o runs/wecheck-halueval": Parse(
        "loads the WeCheck classifier (a real model, about 15 s) on the whole dataset; tests/methods/ run it"),
    # docs/performance.md, docs/reproduce.md, docs/results/README.md, docs/scale.md
    'TASK="Write a short note about the Eiffel Tower."': Skip(LOOP),
    'PROMPT="$TASK"': Skip(LOOP),
    "for attempt in 1 2 3 4 5; do": Skip(LOOP),
    'my-agent --task "$PROMPT" > answer.md': Skip(LOOP),
    "factdebate check-response --file answer.md --fail-on refuted,unchecked --feedback fixes.txt --deadline 1800":
        Parse("a file the reader's agent wrote; tests/response_level/test_loop.py runs it inside the whole loop"),
    "factdebate check-response --file answer.md --fail-on refuted,unchecked --feedback fixes.txt":
        Parse("a file the reader's agent wrote; tests/response_level/test_loop.py runs it inside the whole loop"),
    "status=$?": Skip(LOOP),
    "case $status in": Skip(LOOP),
    '0) echo "every claim holds"; exit 0 ;;': Skip(LOOP),
    """1) PROMPT="$TASK"$'\\n\\n'"$(cat fixes.txt)" ;;""": Skip(LOOP),
    '4) echo "some claims could not be decided: nothing the agent can correct; stopping" >&2; exit 4 ;;': Skip(LOOP),
    '*) echo "the check could not be made (exit $status); stopping" >&2; exit "$status" ;;': Skip(LOOP),
    "esac": Skip(LOOP),
    "done": Skip(LOOP),
    'echo "claims were still refuted after $attempt tries; giving up" >&2': Skip(LOOP),
    "exit 1": Skip(LOOP),
    ".venv/bin/python benchmarks/test_suite.py [--top 60] [--workers 3]": Script("runs the whole suite"),
    ".venv/bin/python benchmarks/real_answers.py --answers 4 --record": Script(
        "the real-answer table with the offline model (12 answers, about 20 minutes of both cores)"),
    ".venv/bin/python benchmarks/real_answers.py --claims-level --claims 12 --record": Script(
        "the claim-level table with the offline model (24 claims, about 15 minutes of both cores)"),
    ".venv/bin/python benchmarks/real_answers.py --answers 20 --tiers fast,standard --methods madke --llm "
    "openai:gpt-4o-mini": Script("the real-answer table with a served "
                                                                     "model: hundreds of its calls"),
    ".venv/bin/python benchmarks/guard_load.py --first 0.3 --seconds 20 --alone-seconds 20 --max-cpu-share 0 "
    "0.5": Script("a load benchmark of three processes (minutes, both cores)"),
    "PYTHONPATH=. .venv/bin/python benchmarks/guard_sizing.py --replies 20": Script(
        "checks 100 replies at every tier (a minute)"),
    ".venv/bin/python benchmarks/test_suite.py --report junit.xml": Script("reads an earlier suite's report"),
    ".venv/bin/python benchmarks/test_suite.py --fresh-clone": Script("`make test` in a new clone"),
    "FACTDEBATE_GUARD__MAX_DEADLINE_S=900 .venv/bin/python benchmarks/stance_pairs.py --per-stance 8 "
    "--deadline-s 600": Script("the stance pairs with the offline model (an hour of both cores)"),
    ".venv/bin/python benchmarks/stance_step.py --per-stance 15 --seed 2": Script(
        "the stance step on 60 pairs with the offline model (about 20 minutes of both cores)"),
    ".venv/bin/python benchmarks/stance_step.py --per-stance 10 --seed 3 --output cal": Script(
        "the calibration draw of the stance thresholds with the offline model (40 pairs, about 15 minutes)"),
    ".venv/bin/python benchmarks/stance_step.py --per-stance 5 --seed 4 --output meas --thresholds-from cal": Script(
        "the measurement draw, with the thresholds chosen on the calibration draw's folder (20 pairs)"),
    ".venv/bin/python benchmarks/stance_flags.py --pairs-asked 120 --seed 5": Script(
        "the offline model's flags on 120 pairs in the set's own mix (about 15 minutes of both cores)"),
    ".venv/bin/python benchmarks/offline_accuracy.py": Script("the offline model's accuracy table (an hour of both "
                                                               "cores and the offline model)"),
    "FACTDEBATE_CPU_PROFILE=/tmp/prof .venv/bin/python -m pytest -p benchmarks.pytest_cpu -n 2 tests/cli": Skip(
        "runs a test folder under the CPU plugin (minutes); the next line's script reads what it wrote"),
    ".venv/bin/python benchmarks/pytest_cpu.py /tmp/prof --top 40": Script("reads a CPU profile's folder"),
    ".venv/bin/pytest tests/guard/conformance/test_generated.py --hypothesis-profile=long": Skip(
        "the generated conformance world at 300 examples a family: the ci profile runs it in make test"),
    ".venv/bin/python benchmarks/client_snippets.py": Script("installs LangChain and the Vercel AI SDK from "
                                                             "their registries (network) and runs docs' snippets"),
    "factdebate reproduce toolmad --llm openai:gpt-4o-mini -o runs/toolmad": Run(
        2, why="the authors' files from GitHub (offline here) and OpenAI: it says which is missing"),
    "factdebate reproduce mermaid --llm openai:gpt-5-mini -o runs/mermaid --data factool-qa=factool-qa:../shared/"
    "datasets/factool_qa/fire_data.jsonl --data bingcheck=bingcheck:../shared/datasets/bingcheck/fire_data.jsonl "
    "--data factcheck-bench=factcheck-bench:../shared/datasets/factcheck_bench/fire_data.jsonl --data "
    "scifact=scifact-sr:../shared/datasets/scifact/claims_dev.jsonl --data hover=hover:data/"
    "hover_dev_release_v1.1.json": Run(2, why="the reader's dataset files and OpenAI: it says which is missing"),
    "factdebate reproduce dpd -o runs/dpd --dry-run": Run(),
    "factdebate reproduce dpd -o runs/dpd --limit 3": Parse(
        "nine runs of DPD and its baselines (about a minute on the scripted model); tests/eval/reproduce/"),
    "factdebate reproduce --from runs/dpd -o runs/dpd-again": Parse("reruns the line above's runs"),
    "FACTDEBATE_DATA_DIR=... factdebate reproduce toolmad --llm llama-cpp:builtin --limit 3 --data feverous="
    "feverous:../shared/datasets/feverous/programfc_feverous_s_dev.json -o runs/r-tm": Parse(EMBEDDED),
    "FACTDEBATE_DATA_DIR=... factdebate reproduce toolmad --llm llama-cpp:builtin --limit 2 --data feverous="
    "feverous:../shared/datasets/feverous/programfc_feverous_s_dev.json -o runs/toolmad-embedded": Parse(EMBEDDED),
    "FACTDEBATE_DATA_DIR=runs/results-page/data-countries FACTDEBATE_LLAMA_THREADS=1 factdebate eval --method "
    "tool-mad --dataset countries --limit 25 --seed 0 --concurrency 1 --llm llama-cpp:builtin --output "
    "runs/results-page/countries/tool-mad": Parse(EMBEDDED),
    "factdebate eval --grid docs/results/grids/ablation-rounds.yaml --dataset fever:dev.jsonl --llm "
    "openai:gpt-4o-mini --limit 200 --concurrency 16 --output runs/rounds": Parse(USER_FILE),
    "factdebate report runs/rounds/* --output runs/rounds-report": Parse("reports the line above's runs"),
    "factdebate verify -i claims.jsonl -o results.jsonl --executor ray --workers 4": Parse(RAY),
    "factdebate eval -d fever:dev.jsonl -o runs/fever --executor ray --ray-address auto": Parse(RAY),
    "factdebate eval -d fever:dev.jsonl -o runs/fever --ray-address ray://head:10001 --workers 16": Parse(RAY),
    "factdebate corpus fetch wikipedia --lang en": Run(2, "offline mode is on (HF_HUB_OFFLINE)"),
    "factdebate corpus fetch wikipedia --lang de --date 20231101 --limit-files 2":
        Run(2, "offline mode is on (HF_HUB_OFFLINE)"),
    "factdebate corpus fetch pubmed": Run(2, "offline mode is on (HF_HUB_OFFLINE)"),
    "factdebate index wikipedia-en": Run(2, "no downloaded corpus of that name",
                                         why="indexes what the fetch above downloaded"),
    "pip install 'factdebate[serve,postgres]'": Pip("the extras exist"),
    "export PGPASSWORD=…": Export(),
    "factdebate serve --host 0.0.0.0 --state-db postgresql://factdebate@db.internal:5432/factdebate":
        Parse(SERVER),
    ".venv/bin/python benchmarks/scale.py": Script("a benchmark that starts Ray"),
    "factdebate index docs.jsonl --corpus mydocs --milvus-uri http://milvus.internal:19530": Run(
        2, "opening the Milvus server at http://milvus.internal:19530 failed", why=REMOTE),
    'factdebate verify "…" --corpus mydocs --milvus-uri http://milvus.internal:19530': Parse(REMOTE),
    "FACTDEBATE_MILVUS_URI=http://milvus.internal:19530 factdebate serve --workers 4 --corpus mydocs":
        Parse(SERVER),
    "FACTDEBATE_MILVUS_URI=http://milvus.internal:19530 factdebate doctor": Parse(REMOTE),
    "factdebate index wikipedia-en --executor ray --workers 16 --milvus-uri http://milvus.internal:19530":
        Parse(RAY),
    "factdebate index /data/pubmed/ --corpus pubmed --ray-address auto --milvus-uri http://milvus.internal:19530":
        Parse(RAY),
}

PYTHON: dict[str, Rule] = {
    "README.md: import factdebate as fd": PyRun(),
    "README.md: import factdebate as fd  # the guard, without a server": PyRun(),
    "docs/architecture.md: class EchoSettings(MethodSettings):                # methods.<name>.*, "
    "--<name>-<field> flags, API": PyImports("the outline of a method; tests/methods/test_plugin_example.py "
                                             "registers a whole one"),
    "docs/ways/python.md: import factdebate as fd": PyRun(),
    "docs/ways/python.md: import asyncio": PyRun(),
    "docs/ways/mcp.md: import asyncio": PyRun(),
    "docs/ways/proxy.md: from typing import Any": PyTyped(
        "an OpenAI client of the running service: tests/server/guard/test_guard_chat.py makes the same calls"),
    "docs/ways/proxy.md: # LangChain (langchain-openai) through the guard: ChatOpenAI with the guard's /v1 as its base "
    "URL. LangChain": Copy("docs/guard/clients/langchain_guard.py", "LangChain is not installed here: "
                            "benchmarks/client_snippets.py installs it and runs that file against factdebate serve"),
    "docs/ways/nemo.md: import os": Copy("docs/guard/nemo/actions.py", "NeMo Guardrails' action: nemoguardrails is "
                                     "not installable here; tests/server/guard/test_guard_nemo.py runs that file"),
    'docs/ways/nemo.md: """NeMo runs init() before it builds its models, and reads no OPENAI_BASE_URL itself: here '
    'it does."""': Copy("docs/guard/nemo/config.py", "NeMo Guardrails' config hook: tests/guard/conformance/"
                        "test_gateways.py runs that folder in NeMo's LLMRails with OPENAI_BASE_URL set"),
    "docs/methods/mermaid-tools.md: from factdebate.memory import EvidenceMemory, Evidence, MemorySettings, "
    "open_memory": PyImports("a method's use of the memory, between its steps"),
    "docs/methods/response-level.md: import factdebate as fd": PyRun(),
    "docs/usage.md: import factdebate as fd": PyRun(),
    "docs/methods/response-level.md: from factdebate.response_level import aextract_claims": PyImports(
        "the lines a method runs, with its own resources"),
}

YAML: dict[str, Rule] = {
    "docs/ways/check-loop.md: - name: Fact-check the README": Skip(
        "a CI step (GitHub Actions) with the reader's key; the command's exit codes: tests/response_level/"
        "test_fail_on.py"),
    "docs/configuration.md: method: tool-mad": Settings(defaults=True, resolved=("retrieval.search",)),
    "docs/configuration.md: mcp_servers:": Settings(),
    "docs/guard/openclaw.md: guard:": Settings(),
    "docs/ways/litellm.md: # LiteLLM proxy config (`litellm --config litellm-config.yaml`; tested with LiteLLM "
    "1.108.7): every answer of": Copy("docs/guard/litellm-config.yaml", "tests/guard/conformance/test_gateways.py "
                                      "starts LiteLLM's proxy server (.venv-litellm) with that file"),
    "docs/ways/nemo.md: models:": Copy("docs/guard/nemo/config.yml", "tests/guard/conformance/test_gateways.py runs "
                                   "that folder in NeMo's LLMRails (.venv-nemo)"),
}

SNIPPETS = snippets()


def rule_for(snippet: Snippet) -> Rule:
    name = {"python": "PYTHON", "yaml": "YAML"}.get(snippet.kind, "RULES")
    rule = {"PYTHON": PYTHON, "YAML": YAML, "RULES": RULES}[name].get(snippet.key)
    if rule is None:
        pytest.fail(f"{snippet.where}: no rule for this documented {snippet.kind} "
                    f"{'line' if snippet.kind == 'shell' else 'block'}:\n    {snippet.key}\nAdd it to "
                    f"{name} in tests/test_documented_lines.py (run it, or say why it is only parsed or skipped)",
                    pytrace=False)
    return rule


def test_every_rule_has_its_line() -> None:
    """A rule whose line left the docs is removed, so the table stays the docs' list."""
    keys = {s.key for s in SNIPPETS}
    assert not [k for k in (*RULES, *PYTHON, *YAML) if k not in keys], "rules for lines no longer in the docs"


def test_commands_named_in_the_prose_exist_with_those_options() -> None:
    """A ``factdebate ...`` code span in a page's prose names a real command, and real options of it. They are
    fragments (placeholders, ``a|b`` for either), so only the names are checked, each ``a|b`` both ways."""
    wrong = []
    for span in inline_commands():
        for words in _alternatives(span.text.split()[1:]):
            if problem := _unknown_name(words):
                wrong.append(f"{span.where}: `{span.text}`: {problem}")
    assert not wrong, "\n".join(wrong)


def _alternatives(words: list[str]) -> list[list[str]]:
    for i, word in enumerate(words):
        if "|" in word and not word.startswith("-"):
            return [variant for choice in word.split("|")
                    for variant in _alternatives([*words[:i], choice, *words[i + 1:]])]
    return [words]


def _unknown_name(words: list[str]) -> str:
    cmd, path = cli_command(), ["factdebate"]
    while hasattr(cmd, "commands") and words and not words[0].startswith("-"):
        sub = cmd.get_command(typer.Context(cmd), words[0])
        if sub is None:
            return f"`{' '.join(path)}` has no command {words[0]!r}"
        cmd, path, words = sub, [*path, words[0]], words[1:]
    known = {name for param in cmd.get_params(typer.Context(cmd)) for name in (*param.opts, *param.secondary_opts)}
    for word in words:
        if word.startswith("-") and word != "-" and word.split("=")[0] not in known:
            return f"`{' '.join(path)}` has no option {word.split('=')[0]}"
    return ""


# ---- the workspace


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, builtin_index_folder: Path) -> Path:
    """The data folder all lines of a worker share (the built-in corpus cut to 40 articles, indexed once for
    the run and copied here: tests/conftest.py) and the files the lines name."""
    base = tmp_path_factory.mktemp("documented")
    shutil.copytree(builtin_index_folder, base / "data")
    return base


FILES = {
    "claims.jsonl": "".join(json.dumps({"id": str(i), "claim": c}) + "\n" for i, c in enumerate(
        ["The Eiffel Tower is in Paris.", "Honey never spoils."])),
    "my_docs.jsonl": json.dumps({"id": "d1", "title": "Eiffel Tower",
                                 "text": "The Eiffel Tower is a wrought-iron tower in Paris, built by 1889."}) + "\n",
    "answer.txt": "The Eiffel Tower is in Paris. It was completed in 1889.\n",
    "answer.md": "The Eiffel Tower is in Paris. It was finished in 1899.\n",  # docs/ways/check-loop.md's
}
FILES["docs.jsonl"] = FILES["my_docs.jsonl"]
FILES["big/part-1.jsonl"] = FILES["my_docs.jsonl"]

EXPORTED: dict[tuple[str, int], dict[str, str]] = {}  # by code block: an export holds to the block's end
RAN: dict[str, str] = {}  # a Run line's text -> where it ran first: the same line elsewhere is not run again
DONE: set[str] = set()  # the lines this process has checked (file:line)


@functools.cache
def cli_command() -> Any:
    from factdebate.cli.main import app

    return typer.main.get_command(app)


@pytest.fixture
def page(workspace: Path, snippet: Snippet, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The page's own folder as the current one, with the environment every line runs in."""
    from factdebate.cli import main

    # The whole command group, built once: ``run`` has Typer build the named command's group on each call
    # (cli/main.py _command_for), which would be much of this module's time; the group runs any command.
    monkeypatch.setattr(main, "_command_for", lambda argv: cli_command())
    folder = workspace / "pages" / snippet.file.replace("/", "_")
    if not folder.exists():
        for name, text in FILES.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(folder)
    env = {"FACTDEBATE_DATA_DIR": str(workspace / "data"), "FACTDEBATE_LLM": "scripted:agree",
           "FACTDEBATE_RETRIEVAL__BUILTIN_DOCS": BUILTIN_DOCS, "HF_HUB_OFFLINE": "1", "COLUMNS": "120",
           **EXPORTED.get((snippet.file, snippet.block), {})}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return folder


@pytest.fixture
def snippet(request: pytest.FixtureRequest) -> Snippet:
    return request.param


def by_page(snippet: Snippet) -> Any:
    """A line as a test of its page's own xdist group: the pages run on different workers (141 lines in one
    group took 212 s on one worker while the others idled) and a page's lines stay in page order on one."""
    return pytest.param(snippet, id=snippet.where, marks=pytest.mark.xdist_group(f"documented:{snippet.file}"))


# In page order, each page in its own group (by_page). A line that builds on earlier ones still names them
# (after), so that it also runs alone (`pytest tests/test_documented_lines.py::...`) or where a page's lines
# were spread over workers.
@pytest.mark.parametrize("snippet", [by_page(s) for s in SNIPPETS], indirect=True)
def test_documented(snippet: Snippet, page: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:
    rule = rule_for(snippet)
    if snippet.where in DONE:
        return  # checked already, before a later line that builds on it
    CHECKS[type(rule)](snippet, rule, page, monkeypatch, capsys)
    DONE.add(snippet.where)


def _run_first(snippet: Snippet, keys: tuple[str, ...], folder: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> None:
    """The earlier lines of the page that ``snippet`` builds on, where this process has not checked them (a
    line run alone, or a page whose lines were not all handed to this worker)."""
    for key in keys:
        before = next(s for s in SNIPPETS if s.file == snippet.file and s.key == key and s.line < snippet.line)
        if before.where not in DONE:
            CHECKS[type(RULES[key])](before, RULES[key], folder, monkeypatch, capsys)
            DONE.add(before.where)
    for name, value in EXPORTED.get((snippet.file, snippet.block), {}).items():
        monkeypatch.setenv(name, value)


# ---- the checks


def _apply_edits(line: str, rule: Run) -> str:
    for old, new in rule.edit:
        line = line.replace(old, new)
    return line


def check_run(snippet: Snippet, rule: Run, folder: Path, monkeypatch: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str]) -> None:
    from factdebate.cli.main import run

    if RAN.setdefault(snippet.key, snippet.where) != snippet.where:
        return  # the same command, run where it first appears
    _run_first(snippet, rule.after, folder, monkeypatch, capsys)
    code, said = 0, ""
    for command in commands(_apply_edits(snippet.text, rule)):
        argv = factdebate_argv(snippet, command.argv)
        with monkeypatch.context() as scoped:
            for name, value in command.env.items():
                if value not in PLACEHOLDERS:
                    scoped.setenv(name, value)
            if command.stdin is not None:
                scoped.setattr(sys, "stdin", io.StringIO((folder / command.stdin).read_text(encoding="utf-8")))
            code = run(argv)
        out = capsys.readouterr()
        if command.stdout is not None:
            (folder / command.stdout).write_text(out.out, encoding="utf-8")
            if command.stdout.endswith(".json") and not code:
                json.loads(out.out)  # what the line promises: one JSON object on stdout
        said += out.out + out.err
        if code:
            break
    assert "Traceback" not in said and "internal error" not in said, f"{snippet.where}: {said[-3000:]}"
    assert code == rule.code, f"{snippet.where}: `{snippet.text}` exited {code}, not {rule.code}:\n{said[-3000:]}"
    assert rule.says in said, f"{snippet.where}: the output does not say {rule.says!r}:\n{said[-3000:]}"


def factdebate_argv(snippet: Snippet, argv: list[str]) -> list[str]:
    """The arguments after ``factdebate`` (or ``python -m factdebate``), placeholders filled, globs expanded."""
    program = argv[0].rsplit("/", 1)[-1]
    if program in ("python", "python3") and argv[1:3] == ["-m", "factdebate"]:
        argv = argv[2:]
    elif program != "factdebate":
        pytest.fail(f"{snippet.where}: `{argv[0]}` is not factdebate: give the line another rule", pytrace=False)
    out: list[str] = []
    for arg in argv[1:]:
        if arg in PLACEHOLDERS:
            out.append(CLAIM)
        elif "*" in arg:
            out.extend(sorted(glob.glob(arg)) or [arg])
        else:
            out.append(arg)
    return out


def check_parse(snippet: Snippet, rule: Parse, folder: Path, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str]) -> None:
    """Down the command groups to the command, then its own parser on the rest: an unknown option, a missing
    argument or a bad choice fails. (Typer ships its own copy of click: its classes are not ``click``'s.)"""
    for command in commands(snippet.text.replace("[", "").replace("]", "")):
        args = factdebate_argv(snippet, command.argv)
        cmd, path = cli_command(), ["factdebate"]
        while hasattr(cmd, "commands"):
            assert args, f"{snippet.where}: `{' '.join(path)}` needs a command"
            name = args.pop(0)
            sub = cmd.get_command(typer.Context(cmd), name)
            assert sub is not None, f"{snippet.where}: `{' '.join(path)}` has no command {name!r}"
            cmd, path = sub, [*path, name]
        try:
            cmd.make_context(" ".join(path), list(args))
        except typer.TyperException as exc:
            pytest.fail(f"{snippet.where}: `{snippet.text}`: {exc}", pytrace=False)


def check_make(snippet: Snippet, rule: Make, folder: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> None:
    target = snippet.key.split()[1]
    done = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip(), f"{snippet.where}: make -n {target}: {done.stderr}"


def check_pip(snippet: Snippet, rule: Pip, folder: Path, monkeypatch: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = set(project["optional-dependencies"])
    for arg in commands(snippet.text)[0].argv[2:]:
        if wheel := re.fullmatch(r"factdebate-([^-]+)-py3-none-any\.whl(?:\[(.*)\])?", arg):
            assert wheel.group(1) == project["version"], f"{snippet.where}: the wheel's version is {project['version']}"
            assert set(filter(None, (wheel.group(2) or "").split(","))) <= extras, f"{snippet.where}: extras {extras}"
        elif named := re.fullmatch(r"factdebate\[(.*)\]", arg):
            assert set(named.group(1).split(",")) <= extras, f"{snippet.where}: no such extra; extras: {extras}"
        elif pinned := re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", arg):
            name, version = pinned.groups()
            lock = (ROOT / "requirements" / "all.txt").read_text(encoding="utf-8")
            found = re.search(rf"^{re.escape(name)}==(\S+)", lock, re.M)
            assert found, f"{snippet.where}: {name} is not in requirements/all.txt"
            locked = found.group(1).split("+")[0]
            assert version == locked, f"{snippet.where}: {name}=={version}, but the lock has {found.group(1)}"


def check_route(snippet: Snippet, rule: Route, folder: Path, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str]) -> None:
    from starlette.routing import Match

    argv = snippet.text.split(" | ")[0]
    words = shlex.split(argv.replace("<id>", "0123abcd"))
    url = next(w for w in words[1:] if "localhost:8000" in w)
    method = "POST" if {"-d", "--data-binary", "--data"} & set(words) else "GET"
    path = url.split("localhost:8000", 1)[1].split("?", 1)[0]
    scope = {"type": "http", "path": path, "method": method, "root_path": ""}
    matched = [r for r in routes() if r.matches(scope)[0] == Match.FULL]
    assert matched, f"{snippet.where}: the service has no route for {method} {path}"


_ROUTES: list[Any] = []


def routes() -> list[Any]:
    if not _ROUTES:
        from factdebate.server.app import create_app

        app = create_app(api_keys=["k"], db_path=Path(os.environ["FACTDEBATE_DATA_DIR"]) / "documented.sqlite")
        _ROUTES.extend(app.routes)
    return _ROUTES


def check_export(snippet: Snippet, rule: Export, folder: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> None:
    """bash runs the line (``$(python ...)`` included, with .venv's python first on PATH) and prints what
    it exported."""
    names = re.findall(r"([A-Z_][A-Z0-9_]*)=", snippet.text)
    script = f"{snippet.text}\nfor n in {' '.join(names)}; do printf '%s\\0%s\\0' \"$n\" \"${{!n}}\"; done"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, f"{snippet.where}: {done.stderr}"
    parts = done.stdout.split("\0")[:-1]
    values = dict(zip(parts[::2], parts[1::2], strict=True))
    assert all(values.values()), f"{snippet.where}: set nothing: {values}"
    EXPORTED.setdefault((snippet.file, snippet.block), {}).update(values)


def check_script(snippet: Snippet, rule: Script, folder: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> None:
    argv = commands(snippet.text.replace("[", "").replace("]", ""))[0].argv
    script = ROOT / argv[1]
    assert script.is_file(), f"{snippet.where}: {argv[1]} does not exist"
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"{snippet.where}: {argv[1]} --help: {done.stderr[-2000:]}"
    for option in (a for a in argv[2:] if a.startswith("--")):
        assert option.split("=")[0] in done.stdout, f"{snippet.where}: {argv[1]} has no option {option}"


def check_copy(snippet: Snippet, rule: Copy, folder: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> None:
    assert snippet.text in (ROOT / rule.path).read_text(encoding="utf-8"), \
        f"{snippet.where}: the block is no longer a part of {rule.path}, which the tests run: make them one again"


def check_settings(snippet: Snippet, rule: Settings, folder: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    from factdebate.settings.load import load_settings

    path = folder / f"settings-{snippet.line}.yaml"
    path.write_text(snippet.text, encoding="utf-8")
    load_settings(config_file=path, environ={})
    if rule.defaults:
        real = load_settings(environ={}).model_dump(mode="json", by_alias=True)
        shown = yaml.safe_load(snippet.text)
        wrong = [f"{key}: the page says {value!r}, the default is {default!r}"
                 for key, value, default in _leaves(shown, real, "") if key not in rule.resolved and value != default]
        assert not wrong, f"{snippet.where}: " + "; ".join(wrong)


def _leaves(shown: Any, real: Any, prefix: str) -> list[tuple[str, Any, Any]]:
    if not isinstance(shown, dict):
        return [(prefix, shown, real)]
    real = real if isinstance(real, dict) else {}
    return [leaf for key, value in shown.items()
            for leaf in _leaves(value, real.get(key, real.get(str(key).replace("-", "_"), "<no such setting>")),
                                f"{prefix}.{key}" if prefix else str(key))]


def check_yaml(snippet: Snippet, rule: YamlOnly, folder: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> None:
    import yaml

    assert yaml.safe_load(snippet.text) is not None, snippet.where


def check_skip(snippet: Snippet, rule: Skip, folder: Path, monkeypatch: pytest.MonkeyPatch,
               capsys: pytest.CaptureFixture[str]) -> None:
    assert rule.why


def check_python(snippet: Snippet, rule: PyRun, folder: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> None:
    import tempfile

    code = compile(snippet.text, snippet.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    namespace: dict[str, Any] = {"__name__": "__documented__"}
    # stderr as a file: a block that starts a process hands it its stderr (the MCP client's server), which
    # needs a file descriptor that pytest's captured stream does not have
    with tempfile.TemporaryFile("w+", encoding="utf-8") as stderr, monkeypatch.context() as scoped:
        scoped.setattr(sys, "stderr", stderr)
        result = eval(code, namespace)  # the docs' own code
        if result is not None:  # a block with a top-level await
            import asyncio

            asyncio.run(result)
        stderr.seek(0)
        said = stderr.read() + capsys.readouterr().err
    assert "Traceback" not in said, f"{snippet.where}: {said[-3000:]}"


def check_imports(snippet: Snippet, rule: PyImports | PyTyped, folder: Path, monkeypatch: pytest.MonkeyPatch,
                  capsys: pytest.CaptureFixture[str]) -> None:
    tree = ast.parse(snippet.text.replace("await ", ""), snippet.where)
    imports = ast.Module([node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))], [])
    try:
        exec(compile(imports, snippet.where, "exec"), {})  # the docs' own imports
    except ImportError as exc:
        pytest.fail(f"{snippet.where}: {exc}", pytrace=False)


CHECKS: dict[type, Any] = {Run: check_run, Parse: check_parse, Make: check_make, Pip: check_pip, Route: check_route,
                           Export: check_export, Script: check_script, Skip: check_skip, PyRun: check_python,
                           PyImports: check_imports, PyTyped: check_imports, Copy: check_copy,
                           Settings: check_settings, YamlOnly: check_yaml}


FRAGMENT_WORDS = ("fragment", "outline", "sketch")


def test_a_block_that_cannot_run_alone_says_so_to_the_reader() -> None:
    """Blocks that cannot run alone were shown as runnable code. A block only compiled or parsed here
    (PyImports, YamlOnly) is called a fragment, an outline or a sketch in the paragraph just before it or in its
    first line, so a reader knows before copying it."""
    unmarked = []
    for snippet in SNIPPETS:
        rule = {"python": PYTHON, "yaml": YAML}.get(snippet.kind, {}).get(snippet.key)
        if not isinstance(rule, PyImports | YamlOnly):
            continue
        lines = (ROOT / snippet.file).read_text(encoding="utf-8").splitlines()
        at = snippet.line - 3  # the line before the block's opening fence (snippet.line is 1-based content)
        while at >= 0 and not lines[at].strip():
            at -= 1
        before = []
        while at >= 0 and lines[at].strip():
            before.append(lines[at])
            at -= 1
        said = " ".join([*before, lines[snippet.line - 1]]).lower()
        if not any(word in said for word in FRAGMENT_WORDS):
            unmarked.append(snippet.where)
    assert not unmarked, unmarked
