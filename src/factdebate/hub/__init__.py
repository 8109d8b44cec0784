"""Files from the Hugging Face Hub, fetched into the data folder and checked before use.

The papers' public datasets (``--dataset fever``) and corpora (``factdebate corpus fetch wikipedia``) come
through here, so that every download is verified the same way (:mod:`factdebate.hub.fetch`), works
offline once it is on disk, and fails with one line that says what to do instead. Nothing here knows a
dataset format or a corpus layout: ``eval`` and ``corpus`` build on it.
"""
