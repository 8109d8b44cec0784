"""Splits a lock's entries (``check_env.py --entries`` output, on stdin) into N files of about equal install time.

    python scripts/check_env.py requirements/dev.txt --entries | python scripts/lock_parts.py 2 .venv/setup-lock
    # writes .venv/setup-lock-1.txt and .venv/setup-lock-2.txt

scripts/setup.sh installs the parts with one pip each, at the same time: pip unpacks and byte-compiles on one
core, and with ``--no-deps`` and disjoint parts the installs cannot touch each other's files. Any split is
correct; the weights below only balance the parts (CPU-seconds to install, measured on a 2-core machine: most of
it is byte-compiling, so a package with many modules weighs more than a large binary one).
It uses only the standard library (it runs before the environment is installed)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

HEAVY = {"torch": 12.0, "transformers": 9.3, "ray": 9.3, "openai": 6.4, "litellm": 5.6, "sympy": 5.1,
         "pandas": 4.9, "scipy": 3.9, "scikit-learn": 2.3, "numpy": 1.9, "networkx": 1.8, "onnx": 1.7}
OTHER = 0.3


def blocks(text: str) -> list[tuple[str, str]]:
    """``(name, entry)`` for each pin: an entry is its line and its ``--hash`` continuation lines."""
    found = []
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)", block)
        if match and block.strip():
            found.append((re.sub(r"[-_.]+", "-", match[1]).lower(), block.rstrip() + "\n"))
    return found


def split(entries: list[tuple[str, str]], parts: int) -> list[list[str]]:
    """Heaviest first, each to the lightest part so far."""
    loads: list[float] = [0.0] * parts
    out: list[list[str]] = [[] for _ in range(parts)]
    for name, entry in sorted(entries, key=lambda e: -HEAVY.get(e[0], OTHER)):
        lightest = loads.index(min(loads))
        loads[lightest] += HEAVY.get(name, OTHER)
        out[lightest].append(entry)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[0].isdigit() or int(argv[0]) < 1:
        print("usage: check_env.py LOCK --entries | lock_parts.py N PREFIX", file=sys.stderr)
        return 2
    for number, part in enumerate(split(blocks(sys.stdin.read()), int(argv[0])), start=1):
        Path(f"{argv[1]}-{number}.txt").write_text("".join(part), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
