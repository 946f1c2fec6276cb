"""A training that runs when the student presses "Train", never inside a slider step.

A page whose view shows the result of a training run (SimCLR's few steps, the backprop
page's tiny run) keeps its controls fast: moving a control only changes the settings. The
view then shows the run cached for those settings if there is one, and otherwise
:func:`train_on_press`: a notice saying what is not trained yet and a "Train (≈ x s)"
button. The press trains in that same run, the notice still up, with a progress bar in the
button's place (and, if the page gives one, a chart of the loss so far), and hands the result
back, so the view draws it right away;
the cache keeps it for every later rerun and every student with the same settings.

The pattern is ``ui.cache_reverse.offer_training``'s (a training cannot run inside
``st.cache_data``: a hit would replay its progress messages); these trainings are short
(about a second) and run in the server's script thread, one button press at a time per
student.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

T = TypeVar("T")
Progress = Callable[[float, Any], None]  # (fraction done, a figure of the loss so far or None)


def train_on_press(
    key: str,
    *,
    notice: str,
    label: str,
    working: str,
    train: Callable[[Progress], T],
) -> T | None:
    """Offer a training: ``None`` until the button ``key`` is pressed, then its result.

    Args:
        key: the button's widget key (``<concept>_train``).
        notice: what is not trained yet and what the button will do.
        label: the button's text, with the expected time ("Train (≈ 1 s)").
        working: the progress bar's text while it trains.
        train: runs the training, calling ``progress(fraction, figure)`` as it goes
            (``figure``: a Plotly figure of the loss so far, or ``None``); returns the
            result, which it has also cached.

    A ``ValueError`` from the training (a run that diverges) reaches the page's error
    guard, which says what went wrong; the button is offered again on the next rerun.
    """
    # one element a slot: an emptied slot keeps showing its old element while the script
    # runs, so the button's slot gets the progress bar, and the notice stays up meanwhile
    notice_slot, button_slot = st.empty(), st.empty()
    notice_slot.info(notice, icon=":material/model_training:")
    if not button_slot.button(label, key=key, icon=":material/play_arrow:", type="primary"):
        return None
    bar, chart = button_slot.progress(0.0, text=working), st.empty()

    def progress(fraction: float, figure: Any = None) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=working)
        if figure is not None:
            chart.plotly_chart(figure, width="stretch", theme=None)

    result = train(progress)
    for slot in (notice_slot, button_slot, chart):
        slot.empty()
    return result
