"""A once-made F16 copy of a small quantized GGUF model.

llama.cpp evaluates prompts about twice as fast from F16 weights as from the shipped Q4_1 ones, and prompts
dominate a debate's cost (docs/configuration.md). The copy holds the same weights, so answers barely change."""

from __future__ import annotations

import os
from pathlib import Path

from factdebate.util.errors import ConfigError, MissingDependencyError


def f16_copy(source: Path, folder: Path) -> Path:
    """The F16 copy of ``source`` in ``folder``, made on first use (atomically: concurrent callers are safe)."""
    target = folder / (source.name.rsplit(".", 2)[0] + ".F16.gguf")
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return target
    try:
        import llama_cpp
    except ImportError as exc:
        raise MissingDependencyError("llama-cpp-python", "local") from exc
    folder.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_F16
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    status = _quiet_quantize(llama_cpp, source, partial, params)
    if status != 0 or not partial.exists():
        partial.unlink(missing_ok=True)
        raise ConfigError(f"could not write the F16 copy of {source} in {folder} (llama.cpp status {status}); "
                          "check free disk space there, or use llama-cpp:builtin-q4 to run the shipped file")
    partial.replace(target)
    return target


def _quiet_quantize(llama_cpp: object, source: Path, target: Path, params: object) -> int:
    # llama.cpp prints one line per tensor to stderr; keep the user's terminal clean.
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            return int(llama_cpp.llama_model_quantize(  # type: ignore[attr-defined]
                str(source).encode(), str(target).encode(), params))
    finally:
        os.dup2(saved, 2)
        os.close(saved)
