"""Datasets for evaluation: samples with a gold label, the dataset's own label set, and how a method's
verdict maps onto it.

A dataset is named by a spec: a built-in name (``countries``, ``halueval-qa``...), the name of a public
dataset fetched from the Hugging Face Hub (``fever``, ``averitec``...: :mod:`factdebate.eval.datasets.hub_datasets`),
or ``FORMAT:PATH`` for a local file in one of the benchmark formats (``fever:dev.jsonl``...). Every one of
them is described by ``factdebate datasets``.

Two modules: :mod:`.registry` (the types and the tables loaders register into; what this package exports) and
:mod:`.loader` (``load_dataset`` and ``describe``, which import every loader).
"""

from factdebate.eval.datasets.registry import (
    BINARY_LABELS,
    BUILTINS,
    FACT_LABELS,
    FORMATS,
    FOUR_LABELS,
    IDENTITY,
    NEI,
    AnswerFormat,
    Builtin,
    Dataset,
    Format,
    Loader,
    Sample,
    builtin,
    check_ids,
    file_format,
    select,
)

__all__ = ["BINARY_LABELS", "BUILTINS", "FACT_LABELS", "FORMATS", "FOUR_LABELS", "IDENTITY", "NEI", "AnswerFormat",
           "Builtin", "Dataset", "Format", "Loader", "Sample", "builtin", "check_ids", "file_format", "select"]
