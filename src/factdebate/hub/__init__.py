"""Files from the Hugging Face Hub, fetched into the data folder and checked before use.

Public datasets and corpora come through here, so every download is verified the same way
(:mod:`factdebate.hub.fetch`), works offline once on disk, and fails with one line saying what to do."""
