"""Datasets for evaluation: samples with a gold label, the dataset's own label set, and how a method's
verdict maps onto it.

A spec is a built-in name (``countries``), a Hub dataset's name (``fever``: :mod:`.hub_datasets`), or
``FORMAT:PATH`` (``fever:dev.jsonl``); ``factdebate datasets`` lists them. :mod:`.registry` holds the types and
tables; :mod:`.loader` reads a spec."""

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
