"""The classroom parts of the page kit: exercises, presenter mode, seeds in the URL."""

from __future__ import annotations

import re

import pytest

from tests.app.conftest import open_page, url
from ui import kit
from ui.i18n import _sections
from ui.registry import CONCEPTS

READY = list(CONCEPTS)


def test_a_numeric_answer_is_right_within_the_tolerance_only():
    ex = kit.Exercise("q", answer=0.75, tolerance=0.01)
    assert ex.is_right(0.75) and ex.is_right(0.7599) and ex.is_right(0.741)
    assert not ex.is_right(0.77) and not ex.is_right(None) and not ex.is_right(-0.75)
    exact = kit.Exercise("q", answer=12)
    assert exact.is_right(12) and exact.is_right(12.0) and not exact.is_right(13)


def test_a_multiple_choice_answer_must_be_the_right_option():
    ex = kit.Exercise("sign?", answer="−1", options=("+1", "−1"))
    assert ex.is_right("−1") and not ex.is_right("+1") and not ex.is_right(None)


@pytest.mark.parametrize("concept", READY, ids=lambda c: c.slug)
def test_every_try_this_is_a_list_of_steps_for_presenter_mode(concept):
    body = _sections("en", concept.slug)["try"]
    items = re.findall(r"^\s*(?:\d+[.)]|[-*])\s+\S", body, flags=re.MULTILINE)
    assert len(items) >= 2, f"{concept.slug}: write 'try' as a Markdown list"
    at = open_page(concept.page)  # a script run, so t()/content() see a session
    assert not at.exception
    from ui.i18n import content  # noqa: PLC0415 (needs the session AppTest made)

    steps = [
        s
        for s in re.split(
            r"^\s*(?:\d+[.)]|[-*])\s+", content(concept.slug, "try"), flags=re.MULTILINE
        )
        if s.strip()
    ]
    assert len(steps) == len(items)


def step_text(at) -> str:
    return next(m.value for m in at.markdown if "Step " in m.value)


def test_presenter_mode_shows_one_step_at_a_time_and_the_buttons_step():
    at = open_page("softmax.py", {"present": "1"})
    assert not at.exception
    assert step_text(at).startswith("**Step 1 of ")
    n = int(re.search(r"of (\d+)", step_text(at)).group(1))
    assert at.button(key="softmax_step_back").disabled
    at.button(key="softmax_step_next").click().run()
    assert step_text(at).startswith("**Step 2 of ")
    assert url(at)["softmax_step"] == "2"
    for _ in range(n + 3):  # past the end: stays on the last step
        if not at.button(key="softmax_step_next").disabled:
            at.button(key="softmax_step_next").click().run()
    assert step_text(at).startswith(f"**Step {n} of {n}")
    at.button(key="softmax_step_back").click().run()
    assert step_text(at).startswith(f"**Step {n - 1} of")


def test_presenter_mode_restores_its_step_from_the_link_and_clamps_a_stale_one():
    at = open_page("softmax.py", {"present": "1", "softmax_step": "3"})
    assert step_text(at).startswith("**Step 3 of ")
    at = open_page("softmax.py", {"present": "1", "softmax_step": "99"})
    n = int(re.search(r"of (\d+)", step_text(at)).group(1))
    assert step_text(at).startswith(f"**Step {n} of {n}")
    at = open_page("softmax.py", {"present": "1", "softmax_step": "x"})
    assert step_text(at).startswith("**Step 1 of ")
    assert any("softmax_step" in c.value for c in at.caption)


def test_outside_presenter_mode_every_step_is_shown_at_once():
    at = open_page("softmax.py")
    assert not [m for m in at.markdown if m.value.startswith("**Step ")]
    assert at.toggle(key="present").value is False
    at.toggle(key="present").set_value(True).run()
    assert step_text(at).startswith("**Step 1 of ")
    assert url(at)["present"] == "1"


def test_the_exercise_seed_is_drawn_once_kept_in_the_link_and_a_bad_one_replaced():
    at = open_page("softmax.py")
    seed = url(at)["softmax_ex"]
    assert 0 <= int(seed) <= kit.SEED_MAX
    at.run()
    assert url(at)["softmax_ex"] == seed  # stable within the session
    pinned = open_page("softmax.py", {"softmax_ex": "4242"})
    assert url(pinned)["softmax_ex"] == "4242"
    bad = open_page("softmax.py", {"softmax_ex": "-5"})
    assert 0 <= int(url(bad)["softmax_ex"]) <= kit.SEED_MAX
    assert any("softmax_ex" in c.value for c in bad.caption)


def test_the_language_selector_changes_every_string_and_the_link():
    at = open_page("softmax.py")
    english = at.title[0].value
    at.selectbox(key="lang").set_value("ja").run()
    assert not at.exception
    assert at.title[0].value != english
    assert url(at)["lang"] == "ja"
