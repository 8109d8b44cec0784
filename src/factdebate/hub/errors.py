"""What can go wrong while fetching from the Hub, each a usage error (exit 2: nothing was run)."""

from __future__ import annotations

from factdebate.util.errors import InputError


class HubError(InputError):
    """A file could not be had from the Hub."""


class HubUnreachable(HubError):
    """No answer from the Hub (network down, wrong ``HF_ENDPOINT``, offline mode) and no verified copy here."""


class HubNotFound(HubError):
    """The Hub answered that the repository, revision or file does not exist (or is private)."""


class ChecksumMismatch(HubError):
    """The downloaded bytes are not the ones recorded: the copy was removed and nothing was used."""


class NotDownloaded(HubError):
    """No verified copy here, and downloads are held (``reproduce --dry-run`` downloads nothing)."""
