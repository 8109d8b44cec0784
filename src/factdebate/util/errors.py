"""The base of every error a user can act on, and the generic ones (bad settings, bad input, a missing package),
in the lowest layer so that ``util`` raises them too and a service reads them beside util's other helpers. This
module is their one address (``factdebate.FactDebateError`` is the same class); :mod:`factdebate.core.errors`
holds the library's own."""

from __future__ import annotations

from factdebate.util.scrub import redact_text


class FactDebateError(Exception):
    """Base class: the message is meant for the user as-is. URLs in it lose their credentials here, so no
    error can carry a password from an endpoint URL to a log, a record or an API caller."""

    # The HTTP status a service answers a request that this error ended: the service's own failure (500) unless
    # a subclass says otherwise (a server the run needed did not answer: 502).
    http_status = 500
    # What a service's caller reads in place of the message where the message is the operator's alone (a path on
    # the operator's machine); None: the message, without the operator's addresses and secrets.
    caller_message: str | None = None

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_text(a) if isinstance(a, str) else a for a in args))


class ConfigError(FactDebateError):
    """Bad settings, unknown method/tool, missing key."""


class InputError(FactDebateError):
    """A claim or input file the tool cannot work on."""


# PyPI serves torch's CUDA build (several GB); PyTorch's own index has the CPU build the float encoder needs.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


class MissingDependencyError(FactDebateError):
    def __init__(self, package: str, extra: str) -> None:
        first = (f"`pip install torch --index-url {TORCH_CPU_INDEX}` (the CPU build; PyPI's is CUDA's), then "
                 if extra == "torch" else "")
        super().__init__(
            f"this feature needs the Python package '{package}'; install it with {first}"
            f"`pip install 'factdebate[{extra}]'` (in a checkout of the repository, `make setup` installs them all)"
        )
