"""Compares the Python environment it runs in with a lock file (requirements/dev.txt or all.txt).

    python scripts/check_env.py requirements/dev.txt            # exit 1, naming each difference and the fix
    python scripts/check_env.py requirements/dev.txt --quiet    # the exit status only (setup's fast path)
    python scripts/check_env.py requirements/dev.txt --extraneous  # names installed in no lock, one a line
    python scripts/check_env.py requirements/dev.txt --entries --without llama-cpp-python  # the lock, less some
    .venv-litellm/bin/python scripts/check_env.py requirements/gateways/litellm.txt --alone  # a gateway's venv

In the environment it expects every pin of the lock at its version, the model and data packages at the versions
``src/factdebate/hub/data_packages.py`` pins, factdebate itself installed editable from this checkout, and
nothing else but pip (packages of the other lock files are let be: a `make test` environment serves the demo).
With ``--alone`` (a gateway's environment, requirements/gateways/) it expects the lock's pins and nothing else:
no data packages, no factdebate, no other lock's packages.
It uses only the standard library, so it runs in a new, empty environment too."""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIX = {"dev.txt": "make setup", "all.txt": "scripts/setup.sh"}
IGNORED = {"pip"}  # the installer itself: its version comes with the Python that made the venv
ALONE_IGNORED = {"pip", "setuptools"}  # what `python -m venv` puts in a new environment (setuptools: Python < 3.12)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def entries(lock: Path) -> list[tuple[str, str, str]]:
    """``(name, version, entry)`` per pin: ``entry`` is its text with the hashes and continuation lines."""
    found: list[tuple[str, str, str]] = []
    for block in re.split(r"\n(?=[A-Za-z0-9])", lock.read_text(encoding="utf-8")):
        match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", block)
        if match:
            entry = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("#"))
            found.append((canonical(match[1]), match[2], entry.rstrip() + "\n"))
    return found


def pins(lock: Path) -> dict[str, str]:
    return {name: version for name, version, _ in entries(lock)}


def data_pins() -> dict[str, str]:
    """The model and data packages' pins, read from the module without importing factdebate (not installed yet)."""
    spec = importlib.util.spec_from_file_location("data_packages", ROOT / "src/factdebate/hub/data_packages.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return {canonical(p.dist): p.version for p in module.PACKAGES}


def installed() -> dict[str, importlib.metadata.Distribution]:
    dists: dict[str, importlib.metadata.Distribution] = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            dists.setdefault(canonical(name), dist)  # the first on sys.path is the one imported
    return dists


def editable_here(dist: importlib.metadata.Distribution) -> bool:
    try:
        url = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    return bool(url.get("dir_info", {}).get("editable")) and url.get("url") == ROOT.as_uri()


def alone_differences(lock: Path) -> list[str]:
    """One line per difference between this environment and ``lock``, which is all it should hold."""
    expected, have = pins(lock), installed()
    found = [f"{name}: not installed, the lock has {version}" if name not in have else
             f"{name}: {have[name].version} installed, the lock has {version}"
             for name, version in sorted(expected.items()) if name not in have or have[name].version != version]
    found += [f"{name}: {have[name].version} installed, not in the lock"
              for name in sorted(have) if name not in expected and name not in ALONE_IGNORED]
    return found


def differences(lock: Path, skip: frozenset[str] = frozenset(), only: frozenset[str] = frozenset()) -> list[str]:
    """One line per difference between this environment and ``lock`` (with the data packages and factdebate),
    less the names in ``skip``; with ``only``, about those names alone."""
    expected = {**pins(lock), **data_pins()}
    others = {name for other in lock.parent.glob("*.txt") for name in pins(other)}
    have = installed()
    found: list[str] = []
    for name, version in sorted(expected.items()):
        if name in skip or (only and name not in only):
            continue
        dist = have.get(name)
        if dist is None:
            found.append(f"{name}: not installed, the lock has {version}")
        elif dist.version != version:
            found.append(f"{name}: {dist.version} installed, the lock has {version}")
    project = have.get("factdebate")
    if "factdebate" not in skip and (not only or "factdebate" in only) and not (project and editable_here(project)):
        found.append(f"factdebate: not installed editable from {ROOT}")
    for name in extraneous(lock, have, others):
        if name not in skip and (not only or name in only):
            found.append(f"{name}: {have[name].version} installed, in no lock")
    return found


def extraneous(lock: Path, have: dict[str, importlib.metadata.Distribution] | None = None,
               others: set[str] | None = None) -> list[str]:
    """Installed distributions that no lock file, data package pin or rule here accounts for."""
    have = installed() if have is None else have
    if others is None:
        others = {name for other in lock.parent.glob("*.txt") for name in pins(other)}
    known = {*pins(lock), *others, *data_pins(), "factdebate", *IGNORED}
    return sorted(name for name in have if name not in known)


def alone_extraneous(lock: Path) -> list[str]:
    expected = pins(lock)
    return sorted(name for name in installed() if name not in expected and name not in ALONE_IGNORED)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lock", type=Path)
    parser.add_argument("--quiet", action="store_true", help="print nothing, exit 1 on any difference")
    parser.add_argument("--extraneous", action="store_true", help="print the installed names in no lock")
    parser.add_argument("--entries", action="store_true", help="print the lock's entries (with their hashes)")
    parser.add_argument("--without", action="append", default=[], metavar="NAME",
                        help="leave this package out (of the check or of --entries)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="this package only (in the check or in --entries)")
    parser.add_argument("--alone", action="store_true",
                        help="the lock is the whole environment (a gateway's: no factdebate, no data packages)")
    args = parser.parse_args(argv)
    without = frozenset(canonical(n) for n in args.without)
    only = frozenset(canonical(n) for n in args.only)
    if args.entries:
        sys.stdout.write("".join(entry for name, _, entry in entries(args.lock)
                                 if name not in without and (not only or name in only)))
        return 0
    if args.extraneous:
        print("\n".join(alone_extraneous(args.lock) if args.alone else extraneous(args.lock)))
        return 0
    found = alone_differences(args.lock) if args.alone else differences(args.lock, without, only)
    if found and not args.quiet:
        fix = "make setup" if args.alone else FIX.get(args.lock.name, f"scripts/setup.sh (it installs {args.lock})")
        print(f"This environment ({sys.prefix}) is not the one {args.lock} locks:\n  " + "\n  ".join(found)
              + f"\nRun `{fix}`: it installs the locked versions and removes what no lock holds. After changing"
              " pyproject.toml's dependencies, `make lock` first.", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
