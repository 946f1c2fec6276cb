"""Every reverse sampler's formula kept on the page, one shown (``kit.show_only``), in a real
Chromium: once each sampler has been chosen, a sampler step shows another formula by a
style alone (no formula typeset again), and the one shown is what a fresh page of that
sampler shows."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.browser.conftest import screenshot, wait_for_app

SAMPLERS = ("ddpm", "ddim", "euler", "heun")  # the radio's order
RADIO = ".st-key-reverse_diffusion_sampler [role=radiogroup] label"
PLACE = ".st-key-reverse_diffusion_formula_{}"

# Each sampler's place: whether it is drawn, its display's TeX, whether that display is the
# node marked earlier; and how many mutations the formula places have seen since marking.
PLACES_JS = """(samplers) => {
  const out = {};
  out.shown = [...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
    .filter((d) => d.checkVisibility()).length;
  for (const s of samplers) {
    const box = document.querySelector(`.st-key-reverse_diffusion_formula_${s}`);
    const d = box && box.querySelector('.katex-display');
    out[s] = box && {
      visible: box.checkVisibility(),
      tex: d ? d.querySelector('annotation').textContent : null,
      marked: d ? d.__marked === true : false,
    };
  }
  out.mutations = window.__formulaMutations ?? null;
  return out;
}"""

MARK_JS = """(samplers) => {
  window.__formulaMutations = 0;
  const observer = new MutationObserver((records) => {
    window.__formulaMutations += records.length;
  });
  for (const s of samplers) {
    const box = document.querySelector(`.st-key-reverse_diffusion_formula_${s}`);
    box.querySelector('.katex-display').__marked = true;
    observer.observe(box, { childList: true, subtree: true, characterData: true });
  }
}"""


def _places(page: Page) -> dict:
    return page.evaluate(PLACES_JS, list(SAMPLERS))


def _choose(page: Page, sampler: str) -> dict:
    """Click ``sampler`` and wait until its place is the one drawn and the run is over."""
    page.locator(RADIO).nth(SAMPLERS.index(sampler)).click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel)?.checkVisibility()", arg=PLACE.format(sampler)
    )
    wait_for_app(page)
    return _places(page)


def test_a_sampler_step_shows_a_kept_formula_by_a_style_and_it_is_that_samplers_own(
    page: Page, server
):
    fresh = {}
    for sampler in SAMPLERS:  # what a page of each sampler shows when it is opened
        page.goto(f"{server.url}/reverse_diffusion?reverse_diffusion_sampler={sampler}")
        wait_for_app(page)
        page.wait_for_selector(f"{PLACE.format(sampler)} .katex-display")
        fresh[sampler] = _places(page)[sampler]["tex"]
    assert len(set(fresh.values())) == 4  # four different formulas
    page.goto(f"{server.url}/reverse_diffusion")  # DDIM; every sampler chosen once above
    wait_for_app(page)
    page.wait_for_selector(f"{PLACE.format('heun')} .katex-display", state="attached")
    page.evaluate(MARK_JS, list(SAMPLERS))
    for sampler in ("euler", "heun", "ddpm", "ddim", "heun"):
        places = _choose(page, sampler)
        assert places["shown"] == 1  # one formula drawn: the chosen sampler's
        for other in SAMPLERS:
            assert places[other]["visible"] == (other == sampler), (sampler, places)
            assert places[other]["marked"], (sampler, other)  # not typeset again
        assert places[sampler]["tex"] == fresh[sampler]
        assert places["mutations"] == 0, (sampler, places["mutations"])
    screenshot(page, "kept_formulas_heun")
