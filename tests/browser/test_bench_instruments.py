"""Smoke tests of the benchmark instruments against the real app (no timing assertions).

If a Streamlit upgrade or a page change breaks bench/latency or bench/load, these fail in CI
instead of the numbers silently going missing.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from bench import controls, latency, load
from ui.registry import concept


def test_latency_probe_measures_real_redraws(server, browser):
    steps = latency.measure(
        f"{server.url}/softmax", "softmax_T", "softmax_probs_chart", 3, warmup=1, browser=browser
    )
    assert len(steps) == 3
    for step in steps:
        assert step.error is None, step.error
        assert step.latency_ms is not None and step.latency_ms > 0
        assert step.value_after != step.value_before
        assert 0 < step.payload_bytes < 200 * 1024


def test_latency_probe_times_the_live_control_in_the_browser(server, browser):
    """A live step: the chart changes before anything is sent to the server (keydown →
    redraw in the page), and the step ends once the settled value reached the server (its
    rerun's bytes are the step's payload)."""
    steps = latency.measure(
        f"{server.url}/softmax", "softmax_T", "softmax_probs_chart", 3, warmup=0, browser=browser
    )
    for step in steps:
        assert step.error is None, step.error
        assert step.latency_ms is not None and step.latency_ms > 0
        assert step.send_ms is None or step.send_ms > step.latency_ms  # no round trip first
        assert 0 < step.payload_bytes < 200 * 1024  # the settled value's rerun


def test_load_sessions_speak_the_protocol_without_errors(server, tmp_path):
    out = tmp_path / "load.json"
    # the default page and slider (attention maps' d: the probes of softmax and attention maps
    # are live controls, ui/live.py, whose value is a component's, which bench.load does not
    # speak)
    argv = [
        "--url",
        server.url,
        "--pid",
        str(server.pid),
        "--sessions",
        "3",
        "--duration",
        "6",
        "--think",
        "0.3:0.6",
        "--ramp",
        "1",
        "--out",
        str(out),
    ]
    # a thread of its own: Playwright's sync API (another test's browser in this worker)
    # leaves an asyncio loop running in this one, and bench.load runs its own
    with ThreadPoolExecutor(1) as pool:
        code = pool.submit(load.main, argv).result()
    report = json.loads(out.read_text())
    assert code == 0, report["errors"]
    assert report["sessions"] == {"started": 3, "loaded": 3, "lost": 0}
    assert report["fragment_reruns"] > 0  # the slider lives in a fragment and is driven as one
    assert report["target"]["slider_kind"] == "select_slider"  # attention maps' d
    assert report["rss_samples"], "server memory was sampled"


def test_controls_bench_finds_and_steps_every_kind_of_control(server, browser, tmp_path):
    """bench.controls on the softmax page: a live control (T, ui/live.py), a slider, a number
    input (the seed, shown in the second view) and the view picker (a radio), each found in
    the browser, calibrated to what it redraws and stepped without an error; the exercise is
    never a control. A resumed run (a second run on the same results) measures only the
    control missing from the file."""
    wanted = {"softmax_T", "softmax_d", "softmax_seed", "softmax_view", "softmax_ex_guess"}
    out = tmp_path / "controls.json"
    args = SimpleNamespace(steps=2, warmup=0, block=2, controls=wanted, out=out)
    bare_target = latency.Target(
        latency.BARE_NAME, f"{server.url}/softmax", "softmax_T", "softmax_probs_chart"
    )
    bare = latency._open_probe(browser, bare_target)  # stands in for the bare app's slider
    results = controls.Results(runs=[{"steps": 2}])
    try:
        assert controls.measure_page(browser, server.url, concept("softmax"), bare, results, args)
        found = list(results.controls)
        assert controls.Results.load(out).controls == found  # saved, whole, after each control
        resumed = controls.Results.load(out)
        resumed.controls = [c for c in resumed.controls if c.key != "softmax_d"]
        resumed.runs.append({"steps": 2})
        controls.measure_page(browser, server.url, concept("softmax"), bare, resumed, args)
    finally:
        bare.page.context.close()
    again = [c for c in resumed.controls if c.run == 1]
    assert [c.key for c in again] == ["softmax_d"] and len(again[0].steps) == 2
    assert resumed.bare_runs.count(1) == 1  # the new run's own bare step
    bare_steps = results.bare_steps
    kinds = {c.key: c.kind for c in found}
    assert kinds["softmax_T"] == "live" and kinds["softmax_view"] == "radio"
    assert kinds["softmax_seed"] == "number" and kinds["softmax_d"] == "slider"
    assert not any(c.key.startswith("softmax_ex") for c in found)
    assert [c.view for c in found if c.key == "softmax_view"] == [0]  # the picker once
    by_name = {c.name: c for c in found}
    assert by_name["softmax[0] softmax_T"].watch == "softmax_probs_chart"
    assert by_name["softmax[1] softmax_seed"].watch == "softmax_hist_chart"
    for c in found:
        assert c.watch is not None, f"{c.name}: a press changed nothing"
        assert len(c.steps) == 2
        for step in c.steps:
            assert step.error is None, (c.name, step.error)
            assert step.value_after != step.value_before
    assert len(bare_steps) == len(found)  # one bare step after each control's block


def test_controls_bench_does_not_take_a_kept_chart_for_a_control(server, browser):
    """A kept chart (ui.live.kept_chart) is a live element whose control is never shown:
    bench.controls skipped it as "changed nothing" after pressing it; now it never finds it."""
    url = f"{server.url}/sparse_attention?sparse_attention_view=cost"
    found = [c["key"] for c in controls._discover(browser, url, "sparse_attention")]
    assert "sparse_attention_cost_n" in found
    assert not [key for key in found if key.endswith("_kept")]
