"""In-page probe for ``bench/latency``: page-clock keydown → chart redrawn.

``INSTALL_JS`` defines ``window.__latency`` (idempotent):

* ``arm(sliderKey, chartKey)`` snapshots the chart's rendered content and the slider value, and
  starts a step; returns ``{value, min, max, focused, chartReady}``.
* a capturing ``keydown`` listener stamps ``event.timeStamp`` (same clock as ``performance.now``).
* a ``MutationObserver`` on ``document.body`` stamps the first mutation after the keydown that
  makes the ``.js-plotly-plot`` content differ from the snapshot while the plot is visible
  (``firstChange``: ``st.plotly_chart`` first builds a new chart hidden), the next
  animation frame after it (``painted``) and the last mutation inside the chart (``lastChange``).
* ``settled(quietMs)`` is true once the chart changed (or an exception is shown), nothing in it
  moved for ``quietMs`` and Streamlit shows no status widget (no script run in flight); for a
  live control (``ui/live.py``, kind ``live``: the chart redraws in the browser, the value
  reaches the server after the slider settles) also once its value reached the server.
* ``idle(quietMs)`` is the same without requiring a change (recovery after a failed step).
* ``ready(sliderKey, chartKey)`` is true once the slider and a drawn chart exist and no script
  runs; it also tells the observer which chart to watch.
* ``collect()`` returns the step's stamps, the slider value and error flags, and disarms.

``SEND_HOOK_JS`` (an init script, runs before the app's own scripts) stamps every
``WebSocket.send`` and every message received, so ``collect()`` can split the latency into
keydown → value sent (debounce, frontend), → last message received before the chart changed
(server), → chart changed (frontend render). Received messages are stamped after the app's own
handler ran.
"""

from __future__ import annotations

SEND_HOOK_JS = r"""
(() => {
  const sends = (window.__latencySends = []);
  const recvs = (window.__latencyRecvs = []);
  const stamp = (list) => {
    list.push(performance.now());
    if (list.length > 256) list.shift();
  };
  const hooked = new WeakSet();
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    stamp(sends);
    if (!hooked.has(this)) {
      hooked.add(this);
      this.addEventListener('message', () => stamp(recvs));
    }
    return send.call(this, data);
  };
})();
"""

INSTALL_JS = r"""
() => {
  if (window.__latency) return;
  const SLIDER = '[role="slider"], input[type="range"]';
  const byKey = (key) => document.querySelector(`.st-key-${CSS.escape(key)}`);
  const plotOf = (box) => (box ? box.querySelector('.js-plotly-plot') : null);
  // the main area's elements, but not the hidden scripts that write the address bar
  // (ui.state.flush: their text changes at every step)
  const MAIN_ELEMENTS =
    '[data-testid="stMain"] [data-testid="stElementContainer"]:not(:has(script[data-adlab-url]))';
  // the main area's elements that are drawn: not those a style hides (kit.show_only keeps
  // every sampler's formula and shows one), so the i-th is the i-th a student sees
  const mainElements = () =>
    [...document.querySelectorAll(MAIN_ELEMENTS)].filter((e) => e.checkVisibility());
  // what a step waits for: '<chart key>' (its Plotly plot) or '#<i>' (the i-th element of the
  // main area, compared by its text: a control that redraws a formula or a table, not a
  // chart; where the element at that place is a chart, by its text and its drawing too, so a
  // step that only moves the chart's traces counts when they move)
  const watchBox = (spec) => {
    if (spec && spec.startsWith('#')) {
      return mainElements()[Number(spec.slice(1))] ?? null;
    }
    return byKey(spec);
  };
  // a chart counts once it is on screen: st.plotly_chart mounts a new chart when its figure
  // changes and builds it hidden first (visibility: hidden), then draws it at its width
  const contentOf = (spec, box) => {
    if (!box) return null;
    const plot = plotOf(box);
    const drawn = plot && getComputedStyle(plot).visibility === 'visible' ? plot.innerHTML : null;
    return spec && spec.startsWith('#') ? box.innerText + (drawn ?? '') : drawn;
  };
  const hash = (text) => {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
    return `${text.length}:${h}`;
  };
  const keyOf = (el) => [...el.classList].find((c) => c.startsWith('st-key-'))?.slice(7) ?? null;
  // A control's value: a slider's (or select-slider's) thumb, the index of a radio group's
  // checked option, or a number input's value; min/max null where the control has none.
  const attrNum = (el, ...names) => {
    for (const n of names) {
      const v = el.getAttribute(n);
      if (v !== null && v !== '') return Number(v);
    }
    return null;
  };
  // a live control (ui/live.py): its own range input; it redraws in the browser and reports
  // its value to the server once it settles (``data-pending`` is '0' again)
  const liveOf = (box) => (box ? box.querySelector('.adlab-live') : null);
  const livePending = (key) => {
    const live = liveOf(byKey(key));
    return !!live && live.dataset.pending !== '0';
  };
  const sliderState = (key) => {
    const box = byKey(key);
    if (!box) return null;
    const live = liveOf(box);
    if (live) {
      const el = live.querySelector('input[type="range"]');
      return {
        el, kind: 'live', value: Number(el.value), min: Number(el.min), max: Number(el.max),
        text: el.getAttribute('aria-valuetext'),
      };
    }
    const el = box.querySelector(SLIDER);
    if (el) {
      const isInput = el.tagName === 'INPUT';
      return {
        el, kind: 'slider',
        value: isInput ? Number(el.value) : attrNum(el, 'aria-valuenow', 'value'),
        min: isInput ? Number(el.min) : attrNum(el, 'aria-valuemin', 'min'),
        max: isInput ? Number(el.max) : attrNum(el, 'aria-valuemax', 'max'),
        text: el.getAttribute('aria-valuetext'),
      };
    }
    const radios = [...box.querySelectorAll('input[type="radio"]')];
    if (radios.length) {
      const i = radios.findIndex((r) => r.checked);
      return {
        el: radios[Math.max(i, 0)], kind: 'radio', value: i, min: 0, max: radios.length - 1,
        text: i >= 0 ? (radios[i].closest('label')?.innerText ?? null) : null,
      };
    }
    const num = box.querySelector('[data-testid="stNumberInputField"], input[type="number"]');
    if (num) {
      return {
        el: num, kind: 'number', value: num.value === '' ? null : Number(num.value),
        min: attrNum(num, 'min', 'aria-valuemin'), max: attrNum(num, 'max', 'aria-valuemax'),
        text: num.value,
      };
    }
    return null;
  };
  const busy = () => !!document.querySelector('[data-testid="stStatusWidget"]');
  const errors = () => ({
    exception: document.querySelectorAll('[data-testid="stException"]').length,
    errorAlert: document.querySelectorAll('[data-testid="stAlertContentError"]').length,
  });

  const L = {
    step: null, chartKey: null, box: null,
    lastMutation: performance.now(), lastAny: performance.now(),
  };

  document.addEventListener('keydown', (e) => {
    const s = L.step;
    if (s && s.keydown === null) s.keydown = e.timeStamp;
  }, true);

  new MutationObserver((records) => {
    const now = performance.now();
    L.lastAny = now;
    const box = L.chartKey ? watchBox(L.chartKey) : null;
    if (!box) return;
    const replaced = box !== L.box;
    L.box = box;
    if (!(replaced || records.some((r) => box.contains(r.target)))) return;
    L.lastMutation = now;
    const s = L.step;
    if (!s || s.keydown === null) return;
    if (s.firstChange === null) {
      const now_ = contentOf(L.chartKey, box);
      if (now_ === null || now_ === s.before) return;
      s.firstChange = now;
      requestAnimationFrame(() => { s.painted = performance.now(); });
    }
    s.lastChange = now;
  }).observe(document.body, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });

  window.__latency = {
    arm(sliderKey, chartKey) {
      const box = watchBox(chartKey);
      const plot = plotOf(box);
      const slider = sliderState(sliderKey);
      L.chartKey = chartKey;
      L.box = box;
      L.step = {
        sliderKey, chartKey,
        before: contentOf(chartKey, box),
        valueBefore: slider ? slider.value : null,
        textBefore: slider ? slider.text : null,
        keydown: null, firstChange: null, painted: null, lastChange: null,
      };
      return {
        value: slider ? slider.value : null,
        min: slider ? slider.min : null,
        max: slider ? slider.max : null,
        kind: slider ? slider.kind : null,
        focused: !!slider && document.activeElement === slider.el,
        chartReady: chartKey.startsWith('#') ? !!box : !!(plot && plot.querySelector('.main-svg')),
      };
    },
    settled(quietMs) {
      const s = L.step;
      const failed = document.querySelector('[data-testid="stException"]');
      if (!s || !(failed || (s.firstChange !== null && s.painted !== null))) return false;
      if (livePending(s.sliderKey)) return false;  // its value has not reached the server yet
      return performance.now() - L.lastMutation >= quietMs && !busy();
    },
    idle(quietMs) {
      const s = L.step;
      if (s && livePending(s.sliderKey)) return false;
      return performance.now() - L.lastMutation >= quietMs && !busy();
    },
    ready(sliderKey, chartKey) {
      L.chartKey = chartKey;
      const plot = plotOf(byKey(chartKey));
      return !!(sliderState(sliderKey) && plot && plot.querySelector('.main-svg')) && !busy();
    },
    // the page's controls: keyed sliders, select-sliders, live controls, radios and number
    // inputs of the main area whose key starts with ``prefix``, in page order; not one that
    // is not drawn (a kept chart's element holds a live control's input, never shown)
    controls(prefix) {
      const found = [];
      for (const box of document.querySelectorAll('[data-testid="stMain"] [class*="st-key-"]')) {
        const key = keyOf(box);
        if (!key || !key.startsWith(prefix) || found.some((c) => c.key === key)) continue;
        const st = sliderState(key);
        if (!st || st.el.disabled || st.el.getAttribute('aria-disabled') === 'true') continue;
        if (!st.el.getClientRects().length) continue;
        found.push({ key, kind: st.kind });
      }
      return found;
    },
    // open the folded expanders that hold controls whose key starts with ``prefix`` (a press
    // on a control hidden in a closed expander does nothing); returns how many it opened
    openControls(prefix) {
      let opened = 0;
      for (const d of document.querySelectorAll('[data-testid="stMain"] details:not([open])')) {
        const keyed = [...d.querySelectorAll('[class*="st-key-"]')].some(
          (e) => (keyOf(e) ?? '').startsWith(prefix),
        );
        if (keyed) {
          d.querySelector('summary').click();
          opened += 1;
        }
      }
      return opened;
    },
    // content hashes of every chart (by key) and every main-area element (by index)
    snapshot() {
      const charts = {};
      for (const plot of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
        const box = plot.closest('[class*="st-key-"]');
        const key = box ? keyOf(box) : null;
        if (key) charts[key] = hash(plot.innerHTML);
      }
      // a control's own element changes with its value: not a redraw
      const texts = mainElements().map((e) =>
        (e.querySelector('input, [role="slider"]') ? '' : hash(e.innerText)));
      return { charts, texts };
    },
    focus(key) {  // focus the control: a slider's thumb, the checked radio, the number field
      const st = sliderState(key);
      if (st) st.el.focus();
      return !!st && document.activeElement === st.el;
    },
    quiet(quietMs) {  // nothing on the page moved for quietMs and no script run in flight
      if (document.querySelector('.adlab-live[data-pending="1"]')) return false;
      return performance.now() - L.lastAny >= quietMs && !busy();
    },
    errors,
    collect() {
      const s = L.step;
      L.step = null;
      if (!s) return null;
      const slider = sliderState(s.sliderKey);
      const sends = window.__latencySends || [];
      const recvs = window.__latencyRecvs || [];
      const down = s.keydown;
      const sent = down === null ? undefined : sends.find((t) => t >= down);
      const before = recvs.filter((t) => down !== null && t >= down && t <= (s.firstChange ?? -1));
      return {
        keydown: down, sent: sent ?? null, received: before.length ? before.at(-1) : null,
        firstChange: s.firstChange, painted: s.painted,
        lastChange: s.lastChange,
        valueBefore: s.valueBefore, valueAfter: slider ? slider.value : null,
        textBefore: s.textBefore, textAfter: slider ? slider.text : null,
        ...errors(),
      };
    },
  };
}
"""
