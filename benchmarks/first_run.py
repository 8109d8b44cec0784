"""Time to the first verdict, as a newcomer meets it: ``git clone`` then ``make demo``.

Two passes, each from a fresh clone and an empty factdebate data folder:

* cold: an empty pip cache (so llama-cpp-python is built from source);
* warm: the pip cache the cold pass left behind (what a second checkout on the same machine sees).

Every output line of ``make demo`` is time-stamped, which splits the total into setup (which indexes the
builtin corpus while llama.cpp compiles) and the first claim; ``cold_index_s`` is indexing alone, into
another empty data folder, with nothing else running. Prints one line::

    clone_to_verdict_s=… cold_setup_s=… cold_index_s=… claim_s=… warm_setup_s=… warm_claim_s=…
    warm_clone_to_verdict_s=…

Run: ``python benchmarks/first_run.py`` (about 10 minutes on 2 cores; ``--skip-cold`` reuses a warm cache;
``--rev REV`` measures an earlier commit, e.g. to compare before and after a change to the setup).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed_lines(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, list[tuple[float, str]]]:
    """Run ``command``; every line of its merged stdout/stderr with the seconds since start."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[tuple[float, str]] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append((time.perf_counter() - started, line.rstrip("\n")))
        print(f"[{lines[-1][0]:7.1f}s] {lines[-1][1]}", file=sys.stderr)
    if proc.wait() != 0:
        raise SystemExit(f"{' '.join(command)} failed with exit code {proc.returncode}")
    return time.perf_counter() - started, lines


def first(lines: list[tuple[float, str]], needle: str) -> float | None:
    return next((t for t, line in lines if needle in line), None)


def one_pass(workdir: Path, pip_cache: Path, label: str, rev: str | None = None) -> dict[str, float]:
    clone = workdir / f"clone-{label}"
    data = workdir / f"data-{label}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FACTDEBATE_", "VIRTUAL_ENV"))}
    env.update(PIP_CACHE_DIR=str(pip_cache), FACTDEBATE_DATA_DIR=str(data))
    started = time.perf_counter()
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    if rev:
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", rev], check=True)
    clone_s = time.perf_counter() - started
    total, lines = timed_lines(["make", "demo"], clone, env)
    setup_done = first(lines, "setup done: .venv/bin/factdebate")  # setup.sh's last line (`factdebate setup`,
    # which it runs at step 2, ends with "setup done" too)
    verdict = first(lines, "decided by")  # the final verdict box; each turn's answer has its own "Verdict:" line
    if verdict is None or setup_done is None:
        raise SystemExit(f"{label}: make demo printed no verdict")
    return {"clone_to_verdict_s": round(clone_s + verdict, 1), "setup_s": round(setup_done, 1),
            "claim_s": round(verdict - setup_done, 1), "total_s": round(clone_s + total, 1)}


def index_alone(clone: Path, data: Path) -> float:
    """The builtin corpus indexed into an empty data folder, nothing else running."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FACTDEBATE_")}
    env["FACTDEBATE_DATA_DIR"] = str(data)
    started = time.perf_counter()
    timed_lines([str(clone / ".venv" / "bin" / "factdebate"), "index", "--builtin"], clone, env)
    return round(time.perf_counter() - started, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, help="where clones, caches and data go (default: a temp dir)")
    parser.add_argument("--skip-cold", action="store_true", help="only the warm pass, with the given --pip-cache")
    parser.add_argument("--pip-cache", type=Path, help="pip cache for --skip-cold (default: pip's own)")
    parser.add_argument("--rev", help="the commit to clone and measure (default: the checkout's HEAD)")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="factdebate-first-run-"))
    workdir.mkdir(parents=True, exist_ok=True)
    pip_cache = workdir / "pip-cache"
    parts: list[str] = []
    if not args.skip_cold:
        cold = one_pass(workdir, pip_cache, "cold", args.rev)
        cold_index = index_alone(workdir / "clone-cold", workdir / "data-index-alone")
        parts += [f"clone_to_verdict_s={cold['clone_to_verdict_s']}", f"cold_setup_s={cold['setup_s']}",
                  f"cold_index_s={cold_index}", f"claim_s={cold['claim_s']}"]
    elif args.pip_cache:
        pip_cache = args.pip_cache
    else:
        pip_cache = Path(subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True,
                                        text=True, check=True).stdout.strip())
    warm = one_pass(workdir, pip_cache, "warm", args.rev)
    parts += [f"warm_setup_s={warm['setup_s']}", f"warm_claim_s={warm['claim_s']}",
              f"warm_clone_to_verdict_s={warm['clone_to_verdict_s']}"]
    print(" ".join(parts))


if __name__ == "__main__":
    main()
