"""The conventions the page kit rests on: formula templates, number formatting, error
messages in the page's language, and the private Streamlit details we depend on."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re

import pytest

from core.errors import CoreError
from core.validation import finite_array, integer, positive
from tests.app.conftest import ROOT, hidden_keys, kept_charts, latex, open_page, url
from ui import formulas, streamlit_internals, tex
from ui.i18n import strings

TEMPLATES = sorted((ROOT / "assets" / "formulas").glob("*.tex"))


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_formula_templates_parse_and_their_words_exist_in_both_languages(path):
    concept = path.stem
    found = formulas.templates(concept)
    assert found, f"{path.name} has no '%% name' template"
    for name, body in found.items():
        assert body and "{{" not in body.replace("{{,}}", ""), (concept, name)
        for key in formulas.WORDS.findall(body):
            full = key if "." in key else f"{concept}.{key}"
            assert full in strings("en") and full in strings("ja"), (concept, name, full)


def test_fill_refuses_a_missing_or_an_unused_value():
    with pytest.raises(KeyError, match="needs values"):
        formulas.fill("a = <<a>>, b = <<b>>", {"a": 1}, str)
    with pytest.raises(KeyError, match="no placeholder"):
        formulas.fill("a = <<a>>", {"a": 1, "b": 2}, str)
    assert formulas.fill("[[w]] <<a>>", {"a": "−1"}, lambda k: k + "!") == "\\text{w!} −1"


@pytest.mark.parametrize(
    ("x", "digits", "moderate", "expected"),
    [
        (0.0, 4, (1e-3, 1e4), "0"),
        (0.5, 4, (1e-3, 1e4), "0.5"),
        (1.234567e-7, 4, (1e-3, 1e4), "1.235 \\times 10^{-7}"),
        (98765.0, 3, (1e-3, 1e4), "9.88 \\times 10^{4}"),
        (0.07389, 5, None, "7.3890 \\times 10^{-2}"),
    ],
)
def test_sci(x, digits, moderate, expected):
    assert tex.sci(x, digits, moderate=moderate) == expected


def test_prose_numbers_use_a_real_minus_and_never_minus_zero():
    assert tex.plain(-1.5) == "−1.5" and tex.signed(-0.0001) == "0.000"
    assert tex.signed(0.0126) == "+0.013" and tex.plain_vec([1, -2]) == "(1, −2)"
    assert tex.num(1234567) == "1{,}234{,}567" and tex.paren(3) == "3"


def test_no_page_keeps_a_private_number_formatter():
    """One ui/tex.py: a page of its own ``def sci`` / ``def num`` would drift again."""
    for path in (ROOT / "pages").glob("*.py"):
        text = path.read_text()
        if "kit.Page(" not in text:
            continue  # not yet moved to the declarative kit
        own = re.findall(r"^def (num|sci|vec|signed|paren)\(", text, re.MULTILINE)
        assert not own, f"{path.name}: use ui.tex.{own[0]}"


def error_codes_in_core() -> set[str]:
    codes = set()
    for path in (ROOT / "core").glob("*.py"):
        if path.name == "errors.py":
            continue  # its docstring's example code is not raised anywhere
        codes |= set(re.findall(r"""CoreError\(\s*["'](\w+)["']""", path.read_text()))
    return codes


def test_every_core_error_code_has_a_text_in_both_languages_with_the_same_placeholders():
    en, ja = strings("en"), strings("ja")
    codes = error_codes_in_core()
    assert {"not_finite", "out_of_range", "not_positive"} <= codes
    for code in sorted(codes):
        key = f"errors.{code}"
        assert key in en and key in ja, key
        fields = [set(re.findall(r"{(\w+)", table[key])) for table in (en, ja)]
        assert fields[0] == fields[1], key


def test_core_errors_carry_a_code_and_their_values():
    with pytest.raises(CoreError) as err:
        integer(7, "heads", 1, 4)
    assert err.value.code == "out_of_range" and err.value.params["value"] == 7
    assert "between 1 and 4" in str(err.value)
    with pytest.raises(ValueError, match="finite"):
        finite_array([1.0, float("nan")], "logits")
    with pytest.raises(CoreError, match="positive"):
        positive(0.0, "temperature")


def show_a_core_error_in_japanese() -> None:
    """An AppTest script: the page's language is Japanese, core refuses a nan."""
    import streamlit as st

    from core.validation import finite_array
    from ui import kit

    st.session_state["lang"] = "ja"
    with kit.guard():
        finite_array([1.0, float("nan")], "logits")


def test_a_core_error_is_shown_in_the_pages_language():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(show_a_core_error_in_japanese).run()
    assert not at.exception
    [message] = [e.value for e in at.error]
    expected = strings("ja")["errors.not_finite"].format(name="logits")
    assert expected in message and "finite" not in message


def test_the_streamlit_internals_we_rely_on_still_exist():
    """Fails when a Streamlit upgrade renames or changes them (then re-measure, re-check)."""
    from streamlit.runtime.pages_manager import PagesManager

    assert isinstance(PagesManager.uses_pages_directory, bool | type(None))
    assert 0 < streamlit_internals.MESSAGE_FLUSH_INTERVAL_SECS < 0.1
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    assert "main_script_path" in {f.name for f in dataclasses.fields(ScriptRunContext)}
    source = inspect.getsource(PagesManager)
    assert "uses_pages_directory" in source
    before = PagesManager.uses_pages_directory
    try:
        PagesManager.uses_pages_directory = True
        streamlit_internals.leave_legacy_pages_mode()
        assert PagesManager.uses_pages_directory is False
    finally:
        PagesManager.uses_pages_directory = before


def test_only_the_internals_module_imports_streamlit_internals():
    for folder in ("ui", "pages"):
        for path in (ROOT / folder).glob("*.py"):
            if path.name == "streamlit_internals.py":
                continue
            text = path.read_text()
            assert not re.search(r"from streamlit\.(runtime|web|proto)", text), path.name


def test_pinned_streamlit_is_the_one_the_internals_were_checked_on():
    import streamlit

    pinned = re.search(r"streamlit==([\d.]+)", (ROOT / "requirements.txt").read_text())
    assert pinned and streamlit.__version__ == pinned.group(1)
    assert pinned.group(1) in (ROOT / "ui" / "streamlit_internals.py").read_text()


def test_glossary_file_is_json():
    json.loads((ROOT / "assets" / "i18n" / "glossary.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("page", "query", "section"),
    [
        ("diffusion_loss.py", {"diffusion_loss_view": "elbo"}, "eps_form"),
        ("softmax.py", {"softmax_view": "calibration"}, "nll"),
        ("linear_attention.py", {}, "rows"),
        ("permutations.py", {}, "sign_proofs"),
    ],
)
def test_each_derivation_opens_with_its_steps(page, query, section):
    concept = page.removesuffix(".py")
    at = open_page(page, query)
    key = f"{concept}_{section}"
    assert key in {e.key for e in at.expander}, "the derivation's expander is on the page"
    md = (ROOT / "assets/content/en" / f"{concept}.md").read_text(encoding="utf-8")
    first_step = md.split(f"<!-- section: {section} -->")[1].strip().splitlines()[0][:40]
    assert not any(first_step in m.value for m in at.markdown), "lazy: not sent while closed"
    at.session_state[key] = True
    at.run()
    assert not at.exception and not at.error
    body = " ".join(m.value for m in at.markdown)
    assert first_step in body and "4. " in body, "the numbered steps are shown"


def test_a_badge_detail_with_brackets_stays_inside_its_badge():
    from ui.kit import Check, _badge_line

    line = _badge_line([Check("rows", True, "[9, 9] and a] lone bracket"), Check("next", False)])
    assert line == (
        ":green-badge[✓ rows — \\[9, 9\\] and a\\] lone bracket]&nbsp; :red-badge[✗ next]"
    )


def bar_under_one_key() -> None:
    """An AppTest script: kit.chart draws a bar of height ``v`` (session state) as "bar"."""
    import plotly.graph_objects as go
    import streamlit as st

    from ui import kit

    kit.chart(go.Figure(go.Bar(y=[st.session_state.get("v", 1)])), "bar")


def test_a_changed_figure_is_a_new_chart():
    """kit.chart's fixed datarevision is exact only because Streamlit never gives a mounted
    chart new data: a changed figure has a new element id (ui.streamlit_internals)."""
    from streamlit.testing.v1 import AppTest

    from ui import kit

    at = AppTest.from_function(bar_under_one_key).run()
    [chart] = at.get("plotly_chart")
    first, spec = chart.proto.id, json.loads(chart.proto.spec)
    assert spec["layout"]["datarevision"] == kit.DATA_REVISION
    assert at.run().get("plotly_chart")[0].proto.id == first  # the same figure: the same chart
    at.session_state["v"] = 2
    [chart] = at.run().get("plotly_chart")
    assert chart.proto.id != first
    assert json.loads(chart.proto.spec)["data"][0]["y"] == [2]


def heatmap_validated() -> None:
    """An AppTest script: kit.chart draws a validated figure (a template object)."""
    import numpy as np
    import plotly.graph_objects as go

    from ui import kit

    kit.chart(go.Figure(go.Heatmap(z=np.eye(2) / 3), layout={"template": "none"}), "map")


def test_a_chart_names_its_template():
    """A template object in a Streamlit chart made Plotly compute the chart on both of
    Streamlit's passes (figures.style.ours): kit.chart sends the "none" template by name,
    the data as Plotly sends it, and keeps the figure as built for the exports."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(heatmap_validated).run()
    [chart] = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    assert spec["layout"]["template"] == "none"
    assert spec["data"][0]["z"]["dtype"] == "f8"  # a typed array, as Plotly sends it
    assert spec["layout"]["datarevision"] == "fixed"
    assert at.session_state["_kit_figures"]["map"].layout.template.data.scatter  # as built


def bar_kept() -> None:
    """An AppTest script: kit.chart draws a bar of height ``v`` as the kept chart "bar"."""
    import plotly.graph_objects as go
    import streamlit as st

    from ui import kit

    kit.chart(go.Figure(go.Bar(y=[st.session_state.get("v", 1)])), "bar", kept=True)


def test_a_kept_chart_is_one_element_that_takes_each_new_figure():
    """kit.chart(kept=True) draws through ui.live's element (key ``<key>_kept``), whose
    identity does not depend on the figure: a new figure reaches the same element, with a
    new digest (the browser redraws on it), and nothing goes to the URL."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(bar_kept).run()
    assert not at.exception and not at.get("plotly_chart")

    def element():
        [el] = [e for e in at.get("bidi_component") if e.proto.component_name == "adlab.live"]
        return el.proto.id, json.loads(el.proto.bytes)

    first, data = element()
    assert data["kept"] and data["chartKey"] == "bar" and len(data["states"]) == 1
    assert data["figure"]["data"][0]["y"] == [1]
    assert at.session_state["_kit_figures"]["bar"].data[0].y == (1,)
    at.session_state["v"] = 2
    at.run()
    again, new = element()
    assert again == first and new["digest"] != data["digest"]
    assert new["figure"]["data"][0]["y"] == [2]
    assert "bar_kept" not in url(at)


def test_a_kept_chart_sends_its_frames_and_a_live_control_refuses_them():
    """A kept scrub keeps its frames (Plotly's slider plays them in the browser), sent with
    the figure; a live control patches data and layout only, so it refuses a figure with
    frames instead of drawing a scrub that does not move."""
    import plotly.graph_objects as go

    from ui import live

    frames = [go.Frame(name=str(i), data=[go.Scatter(x=[i], y=[i])], traces=[0]) for i in range(3)]
    fig = go.Figure(go.Scatter(x=[0], y=[0]), frames=frames)
    data = live.pack("", [live.State(0, "", {})], 0, fig, chart_key="scrub", kept=True)
    assert [f["name"] for f in data["frames"]] == ["0", "1", "2"]
    assert data["frames"][2] == {
        "name": "2",
        "data": [{"type": "scatter", "x": [2], "y": [2]}],
        "traces": [0],
    }
    with pytest.raises(ValueError, match="frames"):
        live.pack("", [live.State(0, "", {})], 0, fig, chart_key="scrub")


def test_only_a_kept_chart_moves_to_a_new_figure():
    import plotly.graph_objects as go

    from ui import kit

    with pytest.raises(ValueError, match="kept"):
        kit.chart(go.Figure(go.Scatter(x=[0], y=[0])), "c", move=True)


def chart_then_table() -> None:
    """An AppTest script: a chart, then a table, each time noted (``time.monotonic``)."""
    import time

    import plotly.graph_objects as go
    import streamlit as st

    from ui import kit

    kit.chart(go.Figure(go.Bar(y=[1, 2])), "bar")
    st.session_state["chart_sent"] = time.monotonic()
    kit.table({"a": [1, 2]}, "numbers", hide_index=True)
    st.session_state["table_sent"] = time.monotonic()


def test_a_table_lets_the_chart_before_it_go_first():
    """Sent with the chart, a table is drawn in the same browser pass, before the chart
    (the gallery's ranking: bench/controls_report.md, round 12): kit.table waits as a
    formula does."""
    from streamlit.testing.v1 import AppTest

    from ui import kit

    at = AppTest.from_function(chart_then_table).run()
    at.run()  # the first run also imports what the table needs
    assert not at.exception
    [frame] = at.dataframe
    assert list(frame.value["a"]) == [1, 2]
    waited = at.session_state["table_sent"] - at.session_state["chart_sent"]
    assert waited >= 0.9 * kit.CHART_HEAD_START_SECS


def controls_then_chart() -> None:
    """An AppTest script: a slider, a radio, a number and a select box shown above a chart
    and sent after it, times noted; ``?early=1`` returns before the chart, ``?lie=1`` draws
    other values than read."""
    import time

    import plotly.graph_objects as go
    import streamlit as st

    from ui import kit, state

    def controls(widgets: bool) -> tuple[int, str, int, str]:
        lie = widgets and st.query_params.get("lie") == "1"
        n = state.slider("n", "demo_n", 1, 9, 3, widget=widgets)
        kind = state.choice("kind", "demo_kind", ("a", "b"), "a", widget=widgets)
        seed = state.number("seed", "demo_seed", 0, 9, 0, widget=widgets)
        shape = state.selectbox("shape", "demo_shape", ("x", "y"), "x", widget=widgets)
        if widgets:
            st.session_state["controls_sent"] = time.monotonic()
        return (n + 1 if lie else n), kind, seed, shape

    try:
        with kit.controls_after_the_chart(controls) as (n, kind, seed, shape):
            st.session_state["read"] = (n, kind, seed, shape)
            if st.query_params.get("early") == "1":
                return
            kit.chart(go.Figure(go.Bar(y=[n])), "bar", kept=True)
            st.session_state["chart_sent"] = time.monotonic()
    except RuntimeError as err:  # the page would show it (redacted here: showErrorDetails)
        st.session_state["error"] = str(err)
    state.flush()


def _controls_app(**params: str):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(controls_then_chart)
    at.query_params.update(params)
    return at.run()


def test_controls_after_the_chart_are_shown_above_it_and_sent_after_it():
    """``kit.controls_after_the_chart``: the block gets the values the widgets then show (from
    the URL, then from the student's steps), the chart goes first, and the widgets sit above
    it in the page."""
    from ui import kit

    at = _controls_app(demo_n="7", demo_seed="5", demo_shape="y")  # a shared link
    assert not at.exception
    assert at.session_state["read"] == (7, "a", 5, "y") and at.slider(key="demo_n").value == 7
    assert (
        at.number_input(key="demo_seed").value == 5 and at.selectbox(key="demo_shape").value == "y"
    )
    assert at.session_state["controls_sent"] - at.session_state["chart_sent"] >= (
        0.9 * kit.CHART_HEAD_START_SECS
    )
    at.slider(key="demo_n").set_value(2).run()
    at.radio(key="demo_kind").set_value("b").run()
    at.number_input(key="demo_seed").set_value(6).run()
    at.selectbox(key="demo_shape").set_value("x").run()
    assert not at.exception
    assert at.session_state["read"] == (2, "b", 6, "x")
    assert url(at)["demo_n"] == "2" and url(at)["demo_kind"] == "b"
    assert url(at)["demo_seed"] == "6" and url(at)["demo_shape"] == "x"
    [bar] = kept_charts(at).values()
    assert bar["figure"]["data"][0]["y"] == [2]  # the chart of the values the widgets show

    # in the page: the controls' place first, the chart after it
    def holds(node, kind: str) -> bool:
        inner = getattr(node, "children", {}).values()  # a block; an element has none
        return node.type == kind or any(holds(c, kind) for c in inner)

    main = list(at.main.children.values())
    places = [i for i, e in enumerate(main) if holds(e, "slider")]
    charts = [i for i, e in enumerate(main) if holds(e, "bidi_component")]
    assert places and charts and places[0] < charts[0]


def test_controls_after_the_chart_are_drawn_when_the_block_returns_early_and_must_agree():
    at = _controls_app(early="1")
    assert not at.exception and at.slider(key="demo_n").value == 3  # drawn all the same
    at = _controls_app(lie="1")
    assert at.session_state["error"] == (
        "controls read as (3, 'a', 0, 'x') were drawn as (4, 'a', 0, 'x')"
    )


def test_what_follows_a_kept_chart_the_browser_already_shows_does_not_wait():
    """A control that leaves the chart as it is (here the radio: the bar shows n) re-sends
    the same payload, which the browser does not draw again: the controls after it are not
    held back (``kit.payload_sent``). A new payload is waited for, as is every payload once
    a full run of a page did not show it (another view's chart drawn anew)."""
    import hashlib

    from ui import kit

    at = _controls_app()
    first = at.session_state[kit._LAST_CHART]
    assert first <= at.session_state["chart_sent"]  # the chart was new: marked as sent
    at.radio(key="demo_kind").set_value("b").run()
    assert not at.exception and at.session_state["read"][1] == "b"
    assert at.session_state[kit._LAST_CHART] == first  # the same bar: nothing to wait for
    at.slider(key="demo_n").set_value(5).run()
    assert at.session_state[kit._LAST_CHART] > first  # a new bar: the controls wait again
    [bar] = kept_charts(at).values()
    assert bar["figure"]["data"][0]["y"] == [5]
    [element] = [e for e in at.get("bidi_component") if e.proto.component_name == "adlab.live"]
    digest = hashlib.blake2b(element.proto.bytes, digest_size=16).digest()
    assert at.session_state[kit._SHOWN]["bar"] == digest  # what the browser was sent


def test_a_sampler_that_takes_the_same_steps_does_not_hold_its_controls_back():
    """Reverse diffusion: DDIM with η = 0 and Euler on the probability-flow ODE take the same
    steps (core.reverse.ode_step), so the scrub is the same; switching between them sends
    the controls (the η slider comes and goes) at once. Heun's scrub is new, and a view
    drawn again after another view's full run is drawn anew: both wait."""
    from ui import kit

    at = open_page("reverse_diffusion.py")
    first = at.session_state[kit._LAST_CHART]
    at.radio(key="reverse_diffusion_sampler").set_value("euler").run()
    assert not at.exception
    assert at.session_state[kit._LAST_CHART] == first
    at.radio(key="reverse_diffusion_sampler").set_value("heun").run()
    heun = at.session_state[kit._LAST_CHART]
    assert heun > first
    at.radio(key="reverse_diffusion_view").set_value("field").run()
    field = at.session_state[kit._LAST_CHART]
    at.radio(key="reverse_diffusion_view").set_value("sampling").run()
    assert not at.exception and at.session_state[kit._LAST_CHART] > field > heun


def shown_one_of_three() -> None:
    import streamlit as st

    from ui import kit

    keys = ["demo_x", "demo_y", "demo_z"]
    shown = st.radio("shown", keys, key="demo_shown")
    kit.show_only(keys, shown)
    for k in keys:
        with st.container(key=k):
            st.markdown(f"$$\\text{{{k}}}$$")


def test_show_only_hides_every_other_keyed_container_and_refuses_one_not_among_them():
    """``kit.show_only``: one style (sent where it takes no place among the page's elements)
    hides the others, and follows a step; every container keeps its content."""
    from streamlit.testing.v1 import AppTest

    from ui import kit

    at = AppTest.from_function(shown_one_of_three).run()
    assert not at.exception
    assert hidden_keys(at) == {"demo_y", "demo_z"} and latex(at) == "$$\\text{demo_x}$$"
    assert len([m for m in at.markdown if m.value.startswith("$$")]) == 3
    assert not any(getattr(e, "type", "") == "html" for e in at.main)  # not in the main area
    at.radio(key="demo_shown").set_value("demo_z").run()
    assert hidden_keys(at) == {"demo_x", "demo_y"} and latex(at) == "$$\\text{demo_z}$$"
    with pytest.raises(ValueError, match="not one of"):
        kit.show_only(["demo_x"], "demo_w")


def test_pages_draw_tables_through_the_kit():
    """A page's own st.dataframe would be drawn in the same pass as the chart before it."""
    for path in (ROOT / "pages").glob("*.py"):
        assert "st.dataframe(" not in path.read_text(), f"{path.name}: use page.table"


def widgets_over_a_moving_range() -> None:
    """An AppTest script: a slider, a select-slider and a number input whose range, options
    or label move with ``hi``."""
    import streamlit as st

    from ui import state

    hi = st.session_state.get("hi", 9)
    state.slider("n", "demo_n", 0, hi, 2)
    state.select_slider("s", "demo_s", (1, 2, 4, 8) if hi == 9 else (2, 4, 16), 1)
    state.number(f"m ≤ {hi}", "demo_m", 0, hi, 1)
    state.flush()


def test_a_widget_keeps_its_value_when_its_range_or_options_move():
    """Streamlit gives a widget drawn with another range, options or label a new identity,
    which starts from its default unless Session State sets it in that run (``state._keep``).
    The lambda-layers page's column fell to 0 when a new image side changed its range."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(widgets_over_a_moving_range).run()
    at.slider(key="demo_n").set_value(4).run()
    at.select_slider(key="demo_s").set_value(4).run()
    at.number_input(key="demo_m").set_value(5).run()
    at.session_state["hi"] = 7
    at.run()
    assert not at.exception
    assert at.slider(key="demo_n").value == 4 and at.slider(key="demo_n").max == 7
    assert at.select_slider(key="demo_s").value == 4
    assert at.select_slider(key="demo_s").options == ["2", "4", "16"]
    assert at.number_input(key="demo_m").value == 5
    assert url(at)["demo_n"] == "4" and url(at)["demo_m"] == "5"
    at.slider(key="demo_n").set_value(6).run()  # and the student moves it on from there
    assert at.slider(key="demo_n").value == 6 and url(at)["demo_n"] == "6"


def address_bar_app() -> None:
    """Two writes of the address bar in one run, a link's text among them; a slider that a
    run may leave out (``show``)."""
    import streamlit as st

    from ui import state

    state.publish("demo_text", st.session_state.get("say", "plain"))
    state.flush()
    if st.session_state.get("show", True):
        state.slider("n", "demo_n", 0, 9, 1)
    state.publish("demo_text", "second")
    state.flush()


def test_the_address_bar_is_written_in_the_browser_in_order_and_safely():
    """``state.flush`` writes the URL with a script (no ``st.query_params`` message: Streamlit
    re-renders the whole page on one), numbered so that the later write wins; a value cannot
    close the script; a control drawn again takes the session's last value, not the link's."""
    from streamlit.testing.v1 import AppTest

    from ui import state

    at = AppTest.from_function(address_bar_app)
    at.query_params["demo_n"] = "3"  # the link the session started from
    at.session_state["say"] = "</script><script>alert(1)</script>"
    at.run()
    assert not at.exception
    bodies = [e.proto.body for e in at.get("html") if state.url_values(e.proto.body)]
    assert len(bodies) == 2 and all(b.count("</script>") == 1 for b in bodies)
    first, second = (state.url_values(b) for b in bodies)
    assert first[1] == {"demo_text": "</script><script>alert(1)</script>"}
    assert second[0] > first[0] and url(at)["demo_text"] == "second"
    assert at.query_params == {"demo_n": "3"}  # the server wrote nothing
    at.slider(key="demo_n").set_value(5).run()
    assert url(at)["demo_n"] == "5"
    at.session_state["show"] = False
    at.run()
    at.session_state["show"] = True
    at.run()
    assert at.slider(key="demo_n").value == 5 and url(at)["demo_n"] == "5"


def two_pages_app() -> None:
    """One page's value written, then its link (``state.snapshot``) kept for the test."""
    import streamlit as st

    from ui import state

    page = st.session_state.get("page", "a")
    state.on_page(page)
    state.publish(f"{page}_x", "1")
    state.flush()
    st.session_state["link"] = state.snapshot()


def test_a_pages_link_holds_what_was_written_on_that_page():
    """The share link is this page's: the values written since the page was opened, not the
    session's every value (``state.live`` keeps those for seeding)."""
    from streamlit.testing.v1 import AppTest

    from ui import state

    at = AppTest.from_function(two_pages_app)
    at.query_params["lang"] = "ja"
    at.run()
    assert at.session_state["link"] == {"lang": "ja", "a_x": "1"}
    at.session_state["page"] = "b"
    at.run()
    assert at.session_state["link"] == {"lang": "ja", "b_x": "1"}
    assert {"a_x", "b_x"} <= set(at.session_state[state._LIVE])
