"""Hostile and broken input for every parser of user text in ``core`` (Hypothesis).

Every ``parse_*`` function defined in a ``core/*.py`` module is found by itself (a new parser
is fuzzed the day it lands) and fed arbitrary Unicode, text close to its own grammar, valid
input truncated or with a foreign character inserted, huge input and values of the wrong
type. Whatever comes in, it either returns or raises ``ValueError`` (which ``ui.kit.guard``
shows as ``st.error``) with a short, non-empty message, in bounded time; any other exception
would be a traceback on a student's screen.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import time
from collections.abc import Callable

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import core

TIME_LIMIT_S = 2.0  # generous: CI shares two cores; a healthy parser answers in milliseconds
MAX_MESSAGE = 400  # characters: a message never echoes a huge input back


def _parsers() -> dict[str, Callable]:
    found = {}
    for info in pkgutil.iter_modules(core.__path__):
        module = importlib.import_module(f"core.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("parse_") and fn.__module__ == module.__name__:
                found[f"{info.name}.{name}"] = fn
    return found


PARSERS = _parsers()
IDS = sorted(PARSERS)

KNOWN = {"cayley_hamilton.parse_matrix", "permutations.parse_permutation", "softmax.parse_logits"}

# Valid input for each parser (what a student would type), plus the examples in its
# docstring; a parser with none gets everyone's.
VALID = {
    "cayley_hamilton.parse_matrix": ["1 2; 3 4", "2 1 0\n1 3 1\n0 1 4", "1/2, -0.5; 3/4 .25"],
    "permutations.parse_permutation": ["2 4 3 1", "(1 2 4)(3)", "(1 3)(2 5 4)", "3, 1, 2"],
    "softmax.parse_logits": ["5, 6, 7", "-1.5 0 2.25", "1e3; -1e3"],
    "diffusion.parse_data": ["-1, 0, 0.5", "1 -1 0.25 0.75"],
}
for _name, _fn in PARSERS.items():
    _examples = re.findall(r">>> \w+\(((?:\"[^\"]*\")|(?:'[^']*'))", _fn.__doc__ or "")
    VALID.setdefault(_name, []).extend(ast.literal_eval(e) for e in _examples)
ANY_VALID = [text for texts in VALID.values() for text in texts]

# Characters of the parsers' own grammars (digits, signs, separators, brackets, exponents)
# plus look-alikes from elsewhere in Unicode: Arabic-Indic and full-width digits, a vulgar
# fraction, a minus sign, a non-breaking and a zero-width space, NUL and a lone surrogate.
GRAMMAR = "0123456789 .,;/()+-eE\n\t"
LOOKALIKES = "٣４½−\u00a0\u200b\x00\ud800∞πé"


def call(parser: Callable, value: object) -> object:
    """Call ``parser(value)``; fail on any exception but a short, prompt ``ValueError``."""
    start = time.perf_counter()
    try:
        result = parser(value)
    except ValueError as err:
        result = err
    except Exception as err:  # the point of this file: nothing else may escape
        pytest.fail(f"{parser.__name__}({value!r:.60}) raised {type(err).__name__}: {err}")
    elapsed = time.perf_counter() - start
    assert elapsed < TIME_LIMIT_S, f"{parser.__name__} took {elapsed:.2f} s on {value!r:.60}"
    if isinstance(result, ValueError):
        message = str(result)
        assert message.strip(), f"{parser.__name__}({value!r:.60}): ValueError without a message"
        assert len(message) <= MAX_MESSAGE, f"{len(message)}-character message: {message:.80}"
    return result


def test_the_known_parsers_are_found():
    assert set(PARSERS) >= KNOWN, f"parsers found: {IDS}"


@pytest.mark.parametrize("name", IDS)
def test_valid_input_parses(name):
    for text in VALID.get(name, []):
        assert not isinstance(call(PARSERS[name], text), ValueError), text


@pytest.mark.parametrize("name", IDS)
@given(text=st.text(max_size=300))
@example(text="")
@example(text="\x00")
@example(text="\ud800")
@example(text="nan inf")
def test_any_unicode_text(name, text):
    call(PARSERS[name], text)


@pytest.mark.parametrize("name", IDS)
@given(text=st.text(alphabet=GRAMMAR + LOOKALIKES, max_size=120))
@example(text="1/0 1; 1 1")
@example(text="1e999 2")
@example(text="((1 2)")
@example(text="(1 2))")
@example(text="(1 (2 3))")
@example(text="()")
@example(text="9" * 40 + " 1")
@example(text="-.; ./.")
def test_text_close_to_the_grammar(name, text):
    call(PARSERS[name], text)


@pytest.mark.parametrize("name", IDS)
@given(data=st.data())
def test_valid_input_truncated_or_with_a_foreign_character(name, data):
    text = data.draw(st.sampled_from(VALID.get(name) or ANY_VALID), label="valid")
    cut = data.draw(st.integers(0, len(text)), label="cut")
    call(PARSERS[name], text[:cut])
    foreign = data.draw(st.sampled_from(LOOKALIKES + "\U0001f600\u202e"), label="foreign")
    call(PARSERS[name], text[:cut] + foreign + text[cut:])


@pytest.mark.parametrize("name", IDS)
@given(
    unit=st.sampled_from(["1 ", "9", "1 2; ", "(1 2)", "(", "1/3,", "-", "\n", "é", "\U0001f600"]),
    repeat=st.integers(1_000, 1_000_000),
)
def test_huge_input_is_refused_promptly(name, unit, repeat):
    result = call(PARSERS[name], unit * repeat)
    assert isinstance(result, ValueError), f"{len(unit * repeat):,} characters were accepted"


WRONG_TYPES = [None, b"1 2; 3 4", bytearray(b"2 1"), 12, 1.5, ["1", "2"], ("1",), {"a": 1}]


@pytest.mark.parametrize("name", IDS)
@pytest.mark.parametrize("value", WRONG_TYPES, ids=lambda v: type(v).__name__)
def test_wrong_type_is_a_value_error(name, value):
    assert isinstance(call(PARSERS[name], value), ValueError)
