"""The gateways' quick starts (docs/ways/litellm.md, docs/ways/nemo.md) start what test_gateways.py runs: the same
program from the gateway's own environment, on the same config, with the variables the page sets among those
the tests give it (LiteLLM's price list read from its own package, the guard's address and key). So the lines a
reader copies are the ones the conformance suite checks, though the suite starts them on its own ports."""

from __future__ import annotations

import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from tests.guard.conformance import test_gateways as gateways
from tests.paths import ROOT


def documented(page: str, needle: str) -> list[str]:
    """The words of the page's one shell line that holds ``needle``."""
    lines = [line.strip() for line in (ROOT / "docs" / "ways" / page).read_text(encoding="utf-8").splitlines()
             if needle in line and not line.lstrip().startswith("#")]
    assert len(lines) == 1, (page, needle, lines)
    return shlex.split(lines[0])


def split_assignments(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """``NAME=value`` words before the program (as the shell reads them), and the rest."""
    names: dict[str, str] = {}
    while words and "=" in words[0] and words[0].split("=", 1)[0].isupper():
        name, value = words.pop(0).split("=", 1)
        names[name] = value
    return names, words


def the_tests_environment() -> dict[str, str]:
    world = SimpleNamespace(guard_url="http://127.0.0.1:1", upstream_url="http://127.0.0.1:2")
    return gateways.gateway_env(cast(Any, world))


def test_litellms_quick_start_starts_the_proxy_the_conformance_suite_starts() -> None:
    assignments, words = split_assignments(documented("litellm.md", "bin/litellm --config"))
    program, config = ROOT / words[0], ROOT / words[words.index("--config") + 1]
    assert program == gateways.LITELLM and config == gateways.LITELLM_CONFIG
    env = the_tests_environment()
    assert assignments == {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    assert all(env.get(name) == value for name, value in assignments.items()), assignments
    exported = documented("litellm.md", "export FACTDEBATE_URL=")[1:]
    assert {word.split("=", 1)[0] for word in exported} <= set(env)  # the addresses and keys the config reads
    config_reads = {line.split("os.environ/", 1)[1].split()[0]
                    for line in config.read_text(encoding="utf-8").splitlines() if "os.environ/" in line}
    given = {word.split("=", 1)[0] for word in exported} | {"FACTDEBATE_API_KEYS", "OPENAI_API_KEY"}
    assert config_reads <= given, config_reads - given  # step 1 exports the key, the note names OpenAI's


def test_nemos_quick_start_chats_on_the_folder_the_conformance_suite_runs() -> None:
    words = documented("nemo.md", "bin/nemoguardrails chat")
    assert Path(ROOT / words[0]).parent == gateways.NEMO_PYTHON.parent
    assert ROOT / words[words.index("--config") + 1] == gateways.NEMO_CONFIG
