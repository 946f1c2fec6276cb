"""In-page probe for ``bench/latency``: page-clock keydown → chart redrawn.

``INSTALL_JS`` defines ``window.__latency`` (idempotent):

* ``arm(sliderKey, chartKey)`` snapshots the chart's rendered content and the slider value, and
  starts a step; returns ``{value, min, max, focused, chartReady}``.
* a capturing ``keydown`` listener stamps ``event.timeStamp`` (same clock as ``performance.now``).
* a ``MutationObserver`` on ``document.body`` stamps the first mutation after the keydown that
  makes the ``.js-plotly-plot`` content differ from the snapshot (``firstChange``), the next
  animation frame after it (``painted``) and the last mutation inside the chart (``lastChange``).
* ``settled(quietMs)`` is true once the chart changed (or an exception is shown), nothing in it
  moved for ``quietMs`` and Streamlit shows no status widget (no script run in flight).
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
  const sliderState = (key) => {
    const box = byKey(key);
    const el = box ? box.querySelector(SLIDER) : null;
    if (!el) return null;
    const num = (a, b) => Number(el.getAttribute(a) ?? el.getAttribute(b));
    const isInput = el.tagName === 'INPUT';
    return {
      el,
      value: isInput ? Number(el.value) : num('aria-valuenow', 'value'),
      min: isInput ? Number(el.min) : num('aria-valuemin', 'min'),
      max: isInput ? Number(el.max) : num('aria-valuemax', 'max'),
      text: el.getAttribute('aria-valuetext'),
    };
  };
  const busy = () => !!document.querySelector('[data-testid="stStatusWidget"]');
  const errors = () => ({
    exception: document.querySelectorAll('[data-testid="stException"]').length,
    errorAlert: document.querySelectorAll('[data-testid="stAlertContentError"]').length,
  });

  const L = { step: null, chartKey: null, box: null, lastMutation: performance.now() };

  document.addEventListener('keydown', (e) => {
    const s = L.step;
    if (s && s.keydown === null) s.keydown = e.timeStamp;
  }, true);

  new MutationObserver((records) => {
    const now = performance.now();
    const box = L.chartKey ? byKey(L.chartKey) : null;
    if (!box) return;
    const replaced = box !== L.box;
    L.box = box;
    if (!(replaced || records.some((r) => box.contains(r.target)))) return;
    L.lastMutation = now;
    const s = L.step;
    if (!s || s.keydown === null) return;
    if (s.firstChange === null) {
      const plot = plotOf(box);
      if (!plot || plot.innerHTML === s.before) return;
      s.firstChange = now;
      requestAnimationFrame(() => { s.painted = performance.now(); });
    }
    s.lastChange = now;
  }).observe(document.body, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });

  window.__latency = {
    arm(sliderKey, chartKey) {
      const box = byKey(chartKey);
      const plot = plotOf(box);
      const slider = sliderState(sliderKey);
      L.chartKey = chartKey;
      L.box = box;
      L.step = {
        sliderKey, chartKey,
        before: plot ? plot.innerHTML : null,
        valueBefore: slider ? slider.value : null,
        textBefore: slider ? slider.text : null,
        keydown: null, firstChange: null, painted: null, lastChange: null,
      };
      return {
        value: slider ? slider.value : null,
        min: slider ? slider.min : null,
        max: slider ? slider.max : null,
        focused: !!slider && document.activeElement === slider.el,
        chartReady: !!(plot && plot.querySelector('.main-svg')),
      };
    },
    settled(quietMs) {
      const s = L.step;
      const failed = document.querySelector('[data-testid="stException"]');
      if (!s || !(failed || (s.firstChange !== null && s.painted !== null))) return false;
      return performance.now() - L.lastMutation >= quietMs && !busy();
    },
    idle(quietMs) {
      return performance.now() - L.lastMutation >= quietMs && !busy();
    },
    ready(sliderKey, chartKey) {
      L.chartKey = chartKey;
      const plot = plotOf(byKey(chartKey));
      return !!(sliderState(sliderKey) && plot && plot.querySelector('.main-svg')) && !busy();
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
