"""The private members of llama-cpp-python (names starting with ``_``) that src/factdebate/llm/llama_states.py
uses, each checked on the installed llama_cpp: a release that renames or drops one fails here, naming the member
and the file, not as an AttributeError in the middle of a model call. Public names are llama-cpp-python's promise;
these are not, so each is listed with what llama_states.py does with it."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import textwrap
from typing import Any

import pytest

from factdebate.llm.llama_cpp import builtin_model_path

pytestmark = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                                reason="llama-cpp-python is not installed (the `local` extra)")

USER = "src/factdebate/llm/llama_states.py"

# Set on every Llama by its __init__: (name, the public attribute llama_states.py reads on it, what it does).
LLAMA_ATTRIBUTES = (
    ("_model", "vocab", "GreedyGrammar builds its grammar sampler on the model's vocabulary"),
    ("_ctx", "ctx", "sample, save_state and load_state read the logits and the KV state of the context"),
    ("_sampler", "", "sample falls back to Llama.sample when no sampler is set"),
    ("_seed", "", "save_state and load_state keep the seed with the KV state"),
    ("_requires_eval", "", "load_state sets it so that the next prompt decodes at least one token"),
)
# Set on every LlamaGrammar: GreedyGrammar passes both to llama_sampler_init_grammar.
GRAMMAR_ATTRIBUTES = ("_grammar", "_root")
# _init_sampler's keywords that PrefixCachedLlama._init_sampler reads to tell a greedy grammar call.
SAMPLER_KEYWORDS = ("temp", "grammar", "repeat_penalty", "frequency_penalty", "presence_penalty", "logits_processor")


def gone(owner: str, name: str, what: str) -> str:
    import llama_cpp

    return (f"llama-cpp-python {llama_cpp.__version__} has no {owner}.{name}, which {USER} uses ({what}): "
            f"change that file for this release, or keep the version pyproject.toml's `local` extra pins")


def _init_sampler_calls() -> list[ast.Call]:
    """Every ``self._init_sampler(...)`` in llama_cpp.Llama's source."""
    from llama_cpp import Llama

    tree = ast.parse(textwrap.dedent(inspect.getsource(Llama)))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr == "_init_sampler"]


def test_llama_s_init_sampler_is_overridable_and_called_with_the_keywords_it_reads() -> None:
    from llama_cpp import Llama

    what = "PrefixCachedLlama overrides it to decode greedy grammar calls with GreedyGrammar"
    assert callable(getattr(Llama, "_init_sampler", None)), gone("Llama", "_init_sampler", what)
    parameters = inspect.signature(Llama._init_sampler).parameters
    missing = [k for k in SAMPLER_KEYWORDS if k not in parameters]
    assert missing == [], gone("Llama._init_sampler", f"parameter(s) {missing}", what)
    calls = _init_sampler_calls()
    assert calls, gone("Llama", "_init_sampler's callers", what)
    # the override reads kwargs and leaves a positional call to llama-cpp-python's own sampler chain
    assert [ast.unparse(c) for c in calls if c.args] == [], gone("Llama", "_init_sampler called by keyword", what)
    assert all({k.arg for k in c.keywords} >= set(SAMPLER_KEYWORDS) for c in calls), \
        gone("Llama", f"_init_sampler called with {SAMPLER_KEYWORDS}", what)


def test_llama_sets_the_private_attributes_in_its_constructor_and_reads_requires_eval() -> None:
    """Without a model file: the attributes are assigned in ``Llama.__init__``, and ``_requires_eval`` is what
    ``Llama.generate`` reads to decide whether a cached prompt is decoded again."""
    from llama_cpp import Llama

    init = inspect.getsource(Llama.__init__)
    for name, _, what in LLAMA_ATTRIBUTES:
        assert f"self.{name} =" in init, gone("Llama", name, what)
    assert "self._requires_eval" in inspect.getsource(Llama.generate), \
        gone("Llama.generate", "a read of _requires_eval", LLAMA_ATTRIBUTES[-1][2])


def test_a_grammar_holds_its_text_and_root() -> None:
    from llama_cpp import LlamaGrammar

    grammar: Any = LlamaGrammar.from_string('root ::= "yes" | "no"', verbose=False)
    for name in GRAMMAR_ATTRIBUTES:
        assert isinstance(getattr(grammar, name, None), str), \
            gone("LlamaGrammar", name, "GreedyGrammar passes it to llama_sampler_init_grammar")
    assert grammar._root == "root" and "yes" in grammar._grammar


@pytest.mark.skipif(builtin_model_path() is None, reason="the built-in model is not installed: `factdebate setup`")
def test_a_loaded_llama_has_each_private_attribute() -> None:
    from llama_cpp import Llama

    model = Llama(model_path=str(builtin_model_path()), n_ctx=64, n_threads=1, verbose=False)
    try:
        for name, public, what in LLAMA_ATTRIBUTES:
            assert hasattr(model, name), gone("Llama", name, what)
            if public:
                assert getattr(getattr(model, name), public, None) is not None, gone(f"Llama.{name}", public, what)
    finally:
        model.close()
