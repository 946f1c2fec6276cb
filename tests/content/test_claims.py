"""Every number in ``assets/content`` is recomputed from ``core`` or said not to be a claim."""

from __future__ import annotations

import importlib

import pytest

from tests.content.claims import (
    LANGS,
    Claim,
    concepts,
    content_text,
    numbers_in,
)


def claims_module(concept: str):  # noqa: ANN201 (a module)
    return importlib.import_module(f"tests.content.claims_{concept}")


def all_claims() -> list[tuple[str, Claim]]:
    out = []
    for concept in concepts():
        try:
            module = claims_module(concept)
        except ModuleNotFoundError:
            continue  # test_every_number_is_accounted_for reports the missing module
        out += [(concept, claim) for claim in module.CLAIMS]
    return out


@pytest.mark.parametrize("concept", concepts())
def test_every_number_is_accounted_for(concept: str) -> None:
    module = claims_module(concept)  # a concept with an explanation needs its claims module
    known = {c.text for c in module.CLAIMS} | set(module.NOT_CLAIMS)
    for lang in LANGS:
        stray = numbers_in(content_text(concept, lang)) - known
        assert not stray, (
            f"assets/content/{lang}/{concept}.md states {sorted(stray)}: recompute each in "
            f"tests/content/claims_{concept}.py (CLAIMS) or say why it is not a claim (NOT_CLAIMS)"
        )


@pytest.mark.parametrize(
    ("concept", "claim"), all_claims(), ids=lambda x: x if isinstance(x, str) else x.text
)
def test_claim_is_recomputed_and_stated(concept: str, claim: Claim) -> None:
    assert claim.compute() == claim.text, f"{concept}: {claim.why or claim.text}"
    for lang in claim.langs:
        assert claim.text in numbers_in(content_text(concept, lang)), (
            f"assets/content/{lang}/{concept}.md no longer states {claim.text}"
        )


def test_the_number_finder() -> None:
    text = "About 1 in 7,900 draws; 0.1189 for N = 128, 1e-4 → 0.02, x0 and t-1, (2020, §2)."
    assert numbers_in(text) == {"7,900", "0.1189", "128", "1e-4", "0.02", "2020"}
