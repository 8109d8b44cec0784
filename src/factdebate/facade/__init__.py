"""The library as the service sees it: a small published facade. ``factdebate.server`` imports the library
only through these modules (an import-linter contract in pyproject.toml holds it to that), so what the
service depends on is listed in one place, and the library's other modules can change without it.

Each module re-exports, under the library's own names, one concept's public names:

- :mod:`~factdebate.facade.core`: errors, claim and verdict types, the version, run events.
- :mod:`~factdebate.facade.settings`: the settings, their options and where they are read from.
- :mod:`~factdebate.facade.scrub`: secrets and endpoints kept out of what the service writes; text checks.
- :mod:`~factdebate.facade.checking`: the check engine: one call for a reply, its result types, streams.
- :mod:`~factdebate.facade.running`: running a claim or an answer with a method; the catalogue of methods.
- :mod:`~factdebate.facade.batches`: a batch's items and uploaded lines.
- :mod:`~factdebate.facade.models`: model backends, their breaker and cautions, transcripts, prompts.
- :mod:`~factdebate.facade.evidence`: corpus names, search engines and tools, given evidence.
- :mod:`~factdebate.facade.indexes`: building and copying search indexes (imported where one is built).
- :mod:`~factdebate.facade.storage`: the data folder, stored records' schema, a full disk, live processes.
- :mod:`~factdebate.facade.transport`: the bounded HTTP client and bodies the guard's upstream uses.

This package imports nothing itself, so a module of the service loads only the concepts it names."""
