"""bench.latency's statistics (percentiles, the bootstrap interval of the p95 ratio) and
bench.controls' choices (what a press redrew, the worst control per page)."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from bench import controls as controls_mod
from bench.controls import Control, format_worst, rows, watched_element, worst_per_page
from bench.latency import WARMUP_DONE, Step, percentile, ratio_interval, wait_for_warmup


@pytest.mark.parametrize("q", [0, 25, 50, 95, 100])
def test_percentile_matches_numpy(q):
    xs = list(np.random.default_rng(1).gamma(3.0, 20.0, 57))
    assert percentile(xs, q) == pytest.approx(np.percentile(xs, q))


def test_ratio_interval_covers_one_for_the_same_distribution():
    rng = np.random.default_rng(2)
    page, bare = rng.gamma(4.0, 20.0, 100), rng.gamma(4.0, 20.0, 100)
    lo, hi = ratio_interval(list(page), list(bare))
    assert lo < 1.0 < hi
    assert hi - lo > 0.05  # p95 of 100 samples is not known to a few percent


def test_ratio_interval_finds_a_page_twice_as_slow():
    rng = np.random.default_rng(3)
    bare = rng.gamma(4.0, 20.0, 200)
    lo, hi = ratio_interval(list(2 * rng.gamma(4.0, 20.0, 200)), list(bare))
    assert 1.4 < lo < 2.0 < hi < 2.8


def test_ratio_interval_of_an_empty_sample_is_nan():
    assert all(np.isnan(ratio_interval([], [1.0, 2.0])))


# -- bench.controls: what a press redrew, and the worst control of each page -------------------


def _snap(charts: dict[str, str], texts: list[str]) -> dict:
    return {"charts": charts, "texts": texts}


def test_watched_element_is_the_first_chart_that_changed():
    before = _snap({"a": "1", "b": "1", "c": "1"}, ["x", "y"])
    after = _snap({"a": "1", "b": "2", "c": "2"}, ["x", "z"])
    assert watched_element(before, after) == "b"


def test_a_live_control_watches_its_own_chart():
    """SimCLR's anchor: the matrix above its live chart takes the anchor's outline once the
    slider settles (a rerun); the chart the browser redraws at the press is the control's."""
    before = _snap({"matrix": "1", "bars": "1"}, ["x"])
    after = _snap({"matrix": "2", "bars": "2"}, ["y"])
    assert watched_element(before, after) == "matrix"
    assert watched_element(before, after, own="bars") == "bars"
    unchanged = _snap({"matrix": "2", "bars": "1"}, ["y"])  # not its own: the first that did
    assert watched_element(before, unchanged, own="bars") == "matrix"
    assert watched_element(before, after, own="gone") == "matrix"


def test_watched_element_falls_back_to_the_first_changed_text():
    before = _snap({"a": "1"}, ["", "formula 1", "table"])
    after = _snap({"a": "1"}, ["", "formula 2", "table 2"])
    assert watched_element(before, after) == "#1"


def test_watched_element_of_a_press_that_changed_nothing_is_none():
    same = _snap({"a": "1"}, ["x", "y"])
    assert watched_element(same, same) is None


def test_the_view_picker_watches_text_even_when_charts_changed():
    before = _snap({"a": "1"}, ["", "view one", "x"])
    after = _snap({"b": "7"}, ["", "view two", "x", "more"])
    assert watched_element(before, after) == "b"
    assert watched_element(before, after, text_only=True) == "#1"
    # a view with more elements whose shared prefix is unchanged: watch the first new one
    grown = _snap({}, ["", "view one", "x", "new"])
    assert watched_element(before, grown, text_only=True) == "#3"


def _steps(latencies: list[float]) -> list[Step]:
    return [Step(key="ArrowRight", latency_ms=v, payload_bytes=1024) for v in latencies]


def test_rows_and_worst_control_per_page():
    rng = np.random.default_rng(4)
    bare = _steps(list(rng.gamma(4.0, 20.0, 100)))
    fast = Control("p", 0, "p_a", "slider", "p_chart", _steps(list(rng.gamma(4.0, 10.0, 40))))
    slow = Control("p", 1, "p_b", "number", "#3", _steps(list(rng.gamma(4.0, 40.0, 40))))
    other = Control("q", 0, "q_a", "radio", "q_chart", _steps(list(rng.gamma(4.0, 20.0, 40))))
    idle = Control("q", 0, "q_b", "slider", None)  # changed nothing: no row
    table = rows([fast, slow, other, idle], bare)
    assert [r.control.key for r in table] == ["p_a", "p_b", "q_a"]
    worst = worst_per_page(table)
    assert worst["p"].control.key == "p_b" and worst["q"].control.key == "q_a"
    assert worst["p"].over and worst["p"].lo > 1.2  # twice as slow: over budget, clearly
    assert not table[0].over and table[0].hi < 1.0  # half the bare app's time
    text = format_worst(table)
    assert "p: p_b [1]" in text and "OVER BUDGET" in text


def test_the_json_round_trips_into_the_markdown_report(tmp_path):
    rng = np.random.default_rng(5)
    bare = _steps(list(rng.gamma(4.0, 20.0, 60)))
    slow = Control("p", 1, "p_b", "number", "#3", _steps(list(rng.gamma(4.0, 40.0, 30))))
    fast = Control("p", 0, "p_a", "slider", "p_chart", _steps(list(rng.gamma(4.0, 10.0, 30))))
    out = tmp_path / "c.json"
    run = {"when": "2026-11-28T05:00:00+0000", "commit": "abc1234", "steps": 30, "warmup": 2}
    controls_mod.Results([fast, slow], bare, [0] * len(bare), [run]).save(out)
    text = controls_mod.report_from_json(out)
    assert "run 0: 2026-11-28T05:00:00+0000 on abc1234, 2 controls, 30 steps" in text
    worst = text.split("## Every control")[0]
    assert "| p | p_b [1] |" in worst and "p_a" not in worst  # the page's worst control only
    assert text.count("| p | p_") == 3  # once in the worst table, both in the full one
    assert "✗" in text.split("p_b [1] | number")[1].split("\n")[0]  # over budget, flagged
    assert "✗" not in text.split("p_a [0] | slider")[1].split("\n")[0]


def test_waiting_for_the_warm_up_ends_when_the_server_logs_it(tmp_path):
    log = tmp_path / "server.log"
    assert not wait_for_warmup(log, timeout=0.2, poll=0.05)  # no log yet
    log.write_text("Uvicorn server started\nadlab warm-up: reverse_diffusion failed\n")
    assert not wait_for_warmup(log, timeout=0.2, poll=0.05)  # a failure is not the end

    def finish() -> None:
        time.sleep(0.3)
        with log.open("a") as f:
            f.write(f"{WARMUP_DONE} (reverse_diffusion 5.3 s)\n")

    writer = threading.Thread(target=finish)
    writer.start()
    start = time.monotonic()
    assert wait_for_warmup(log, timeout=30, poll=0.05)
    writer.join()
    assert time.monotonic() - start < 10  # it returned once the line was there


def test_a_resumed_file_compares_each_control_with_the_bare_app_of_its_own_run(tmp_path):
    """Runs of one file may be days and machines apart: a control measured in a fast run is
    judged against that run's bare app, not against a slower run's."""
    rng = np.random.default_rng(6)
    fast_bare, slow_bare = rng.gamma(4.0, 20.0, 80), rng.gamma(4.0, 60.0, 80)
    first = Control("p", 0, "p_a", "slider", "p_chart", _steps(list(rng.gamma(4.0, 20.0, 60))))
    second = Control("p", 0, "p_b", "slider", "p_chart", _steps(list(rng.gamma(4.0, 60.0, 60))))
    second.run = 1
    bare = _steps(list(fast_bare) + list(slow_bare))
    runs = [0] * 80 + [1] * 80
    table = rows([first, second], bare, runs)
    assert all(r.lo < 1.0 < r.hi for r in table)  # each as fast as its own bare app
    pooled = rows([first, second], bare)  # against both runs' steps: the first looks fast
    assert pooled[0].hi < 0.8
    out = tmp_path / "c.json.gz"  # gzipped, as the records in bench/records
    results = controls_mod.Results([first, second], bare, runs, [{"steps": 60}] * 2)
    results.save(out)
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    loaded = controls_mod.Results.load(out)
    assert loaded.controls == [first, second] and loaded.bare_runs == runs
    assert [r.ratio for r in loaded.rows()] == [r.ratio for r in table]
    report = controls_mod.report_from_json(out)
    assert report.count("\n- run ") == 2 and "| run |" in report


def test_forget_drops_a_page_a_key_or_a_key_in_one_view(tmp_path):
    """After a change to what a control draws, its record is dropped so a resumed run
    measures it again; the others, their bare steps and runs stay."""
    made = [
        Control("p", 0, "p_view", "radio", "#4", _steps([90.0])),
        Control("p", 1, "p_seed", "number", "p_chart", _steps([80.0])),
        Control("p", 2, "p_seed", "number", "p_chart", _steps([70.0])),
        Control("q", 0, "q_a", "slider", "q_chart", _steps([60.0])),
    ]
    bare = _steps([100.0, 110.0])
    out = tmp_path / "c.json.gz"
    controls_mod.Results(list(made), bare, [0, 0], [{"steps": 1}]).save(out)
    assert controls_mod.main(["--out", str(out), "--forget", "p_seed[2],q"]) == 0
    kept = controls_mod.Results.load(out)
    assert [c.name for c in kept.controls] == ["p[0] p_view", "p[1] p_seed"]
    assert kept.bare_steps == bare and kept.runs == [{"steps": 1}]
    assert [c.name for c in kept.forget({"p"})] == ["p[0] p_view", "p[1] p_seed"]
    assert not kept.controls


def test_a_file_from_before_resume_loads_as_one_run(tmp_path):
    out = tmp_path / "old.json"
    step = {"key": "ArrowRight", "latency_ms": 90.0, "payload_bytes": 1024}
    control = {"page": "p", "view": 0, "key": "p_a", "kind": "slider", "watch": "p_chart"}
    doc = {
        "meta": {"when": "then", "steps": 1, "warmup": 0},
        "bare": {"steps": [step, step]},
        "controls": [{**control, "steps": [step]}],
    }
    out.write_text(json.dumps(doc))
    loaded = controls_mod.Results.load(out)
    assert loaded.runs == [doc["meta"]] and loaded.bare_runs == [0, 0]
    assert loaded.controls[0].run == 0 and loaded.rows()[0].ratio == pytest.approx(1.0)


def test_a_control_is_compared_with_the_bare_steps_taken_around_it(tmp_path):
    """The machine's speed drifts within a run: a control measured while everything was slow
    is as fast as the bare steps taken with it, though slower than the run's bare app as a
    whole; one measured in a quick stretch is not flattered by the slow one."""
    rng = np.random.default_rng(7)
    quick, slow = rng.gamma(4.0, 20.0, 300), rng.gamma(4.0, 40.0, 100)
    bare = _steps(list(quick) + list(slow))
    a = Control("p", 0, "p_a", "slider", "p_chart", _steps(list(rng.gamma(4.0, 20.0, 100))))
    b = Control("p", 0, "p_b", "slider", "p_chart", _steps(list(rng.gamma(4.0, 40.0, 100))))
    a.bare_at, b.bare_at = (80, 100), (340, 360)  # their own 20, in either stretch
    local = rows([a, b], bare, [0] * 400)
    assert all(r.lo < 1.0 < r.hi for r in local)  # each as fast as the steps around it
    a.bare_at = b.bare_at = None  # where their bare steps were not kept: the whole run's
    pooled = rows([a, b], bare, [0] * 400)
    assert pooled[0].hi < 0.95 and pooled[1].ratio > 1.3 and pooled[1].over  # flattered; over
    a.bare_at, b.bare_at = (80, 100), (340, 360)
    out = tmp_path / "c.json.gz"
    controls_mod.Results([a, b], bare, [0] * 400, [{"steps": 100, "block": 5}]).save(out)
    loaded = controls_mod.Results.load(out)
    assert [c.bare_at for c in loaded.controls] == [(80, 100), (340, 360)]
    assert [r.ratio for r in loaded.rows()] == [r.ratio for r in local]


def test_the_bare_steps_of_an_older_run_are_located_by_order_unless_one_was_forgotten(tmp_path):
    """Runs recorded before ``bare_at`` was kept: each control took one bare step every
    ``block`` steps, in order, so while none was forgotten the k-th control's are the k-th
    stretch; with one forgotten, where each control's are is not known (the run's all)."""
    made = [
        Control("p", 0, "p_a", "slider", "p_chart", _steps([50.0] * 10)),
        Control("p", 0, "p_b", "slider", "p_chart", _steps([60.0] * 7)),  # 2 bare steps
        Control("p", 0, "p_c", "slider", None),  # changed nothing: no steps, no bare steps
        Control("q", 0, "q_a", "slider", "q_chart", _steps([70.0] * 5), run=1),
    ]
    bare = _steps([100.0] * 7)
    runs = [0, 0, 0, 0, 1, 1, 1]  # run 0: 2 + 2 (block 5); run 1: one control, three steps
    out = tmp_path / "c.json.gz"
    meta = [{"steps": 10, "block": 5}, {"steps": 5, "block": 5}]
    controls_mod.Results(made, bare, runs, meta).save(out)
    loaded = controls_mod.Results.load(out)
    assert [c.bare_at for c in loaded.controls] == [(0, 2), (2, 4), None, None]
    loaded.forget({"p_a"})
    loaded.save(out)
    again = controls_mod.Results.load(out)
    assert [c.bare_at for c in again.controls] == [(2, 4), None, None]  # kept once known
    made[0].bare_at = made[1].bare_at = None
    controls_mod.Results(made[1:], bare, runs, meta).save(out)  # p_a forgotten before
    assert all(c.bare_at is None for c in controls_mod.Results.load(out).controls)
