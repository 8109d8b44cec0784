"""tests/tiers.py names tests that exist: a renamed or deleted test would otherwise leave its entry behind,
and a new test with the old name would be left out of ``make test`` unseen."""

from __future__ import annotations

import ast

from tests.paths import ROOT
from tests.tiers import FULL_ONLY, is_full_only


def _test_names(module: str) -> set[str]:
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")}


def test_every_listed_test_exists_and_says_what_make_test_keeps() -> None:
    missing = []
    for module, (why, names) in FULL_ONLY.items():
        assert why and names, module  # each entry says what make test keeps and lists its tests
        found = _test_names(module)
        missing += [f"{module}::{name}" for name in names if name.split("[")[0] not in found]
    assert not missing, missing


def test_a_listed_name_covers_its_parameters_but_not_a_longer_name() -> None:
    assert is_full_only("tests/run/test_build.py::test_eval")
    assert not is_full_only(
        "tests/run/test_build.py::test_eval_of_a_method_without_rag_opens_no_milvus[method1-False]")
    assert is_full_only("tests/scale/test_pool.py::test_cli_eval_on_ray")
    assert is_full_only(
        "tests/server/page/test_page_fold.py::test_a_finished_claim_folds_the_form_and_one_click_opens_it[390]")
    assert not is_full_only(
        "tests/server/page/test_page_fold.py::test_a_finished_claim_folds_the_form_and_one_click_opens_it[1280]")
    assert not is_full_only("tests/golden/test_golden.py::test_every_method_answers_as_recorded[verify-cot]")
