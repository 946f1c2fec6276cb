// The live control of ui/live.py: a slider over precomputed states that redraws the chart
// and the numbers in the browser, and reports the value to the server once it settles.
// Nothing here computes: every number comes from the server, per state.
// A kept chart (ui/live.py, kept_chart) is the same element with one state and no slider:
// a chart that stays on the page and takes each new figure from the server in place.

const PLOTLY_URL = new URL('../adlab.plotly/plotly.min.js', import.meta.url).href;
let plotlyLoading = null;

function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!plotlyLoading) {
    plotlyLoading = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = PLOTLY_URL;
      script.async = true;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        plotlyLoading = null;
        reject(new Error(`could not load ${PLOTLY_URL}`));
      };
      document.head.appendChild(script);
    });
  }
  return plotlyLoading;
}

// resolves in the task after the next frame: the browser has painted what is on the page
const afterNextPaint = () =>
  new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

let counter = 0;
const MOVE = { mode: 'immediate', transition: { duration: 0 }, frame: { duration: 0, redraw: false } };
// the axis types a quick move draws on (quickJobs)
const MOVABLE_AXES = new Set(['linear', 'log']);

// a frame's packed coordinates ({i2: base64}, ui/live.py _packed): PACK_SCALE × each number
// as little-endian 16-bit integers, divided again (the same doubles); anything else as it is
const PACK_SCALE = 100;
function unpack(value) {
  if (typeof value?.i2 !== 'string') return value;
  const text = atob(value.i2);
  const out = new Array(text.length / 2);
  for (let k = 0; k < out.length; k++) {
    const code = text.charCodeAt(2 * k) | (text.charCodeAt(2 * k + 1) << 8);
    out[k] = ((code << 16) >> 16) / PACK_SCALE; // the sign of the 16-bit integer
  }
  return out;
}

const rootEnds = (root) => root.querySelectorAll('.live-ends span');

// Plotly trace modules marked animatable for moves still running (Live.animate), with how
// many: the mark stays until the last of them is done, then the module is as Plotly made it
const lentModules = new Map();

function lend(module) {
  if (!lentModules.has(module)) {
    if (module.animatable) return false; // animatable of its own: nothing to lend
    module.animatable = true;
  }
  lentModules.set(module, (lentModules.get(module) ?? 0) + 1);
  return true;
}

function giveBack(module) {
  const left = lentModules.get(module) - 1;
  if (left > 0) {
    lentModules.set(module, left);
  } else {
    lentModules.delete(module);
    module.animatable = false;
  }
}

function build(parent) {
  const id = `adlab-live-${++counter}`;
  const root = document.createElement('div');
  root.className = 'adlab-live';
  root.dataset.live = '1';
  root.dataset.pending = '0';
  root.innerHTML = `
    <div class="live-control">
      <div class="live-head">
        <label class="live-label" for="${id}"></label>
        <output class="live-value" for="${id}"></output>
      </div>
      <input class="live-range" id="${id}" type="range" min="0" step="1" value="0" disabled>
      <div class="live-ends" aria-hidden="true"><span></span><span></span></div>
    </div>
    <div class="live-chart"><div class="live-plot"></div></div>
    <div class="live-numbers" aria-live="polite"></div>`;
  parent.appendChild(root);
  return root;
}

class Live {
  constructor(root) {
    this.root = root;
    this.input = root.querySelector('.live-range');
    this.labelEl = root.querySelector('.live-label');
    this.output = root.querySelector('.live-value');
    this.chart = root.querySelector('.live-chart');
    this.plot = root.querySelector('.live-plot');
    this.numbers = root.querySelector('.live-numbers');
    this.data = null;
    this.digest = null;
    this.index = null; // the state shown
    this.serverIndex = null; // the state the server last sent
    this.reported = null; // the state reported and not yet echoed by the server
    this.timer = null;
    this.drawn = false;
    this.reactNext = false; // the next drawing is a new payload on a chart already drawn
    this.shownEmpty = false; // the state drawn has a patched trace with no points
    this.drawnBy = null; // how the last state was drawn: new, move, repaint, react, or
    // react-new (a new payload on the chart already drawn; tests)
    this.moving = null; // the promise of a move queued for the next animation frame
    this.quick = null; // the patches of a quick move queued for the next frame (quickMove)
    this.movedBy = null; // how the last move was drawn: quick or animate (tests)
    this.sliderLater = null; // a new payload's frame slider, drawn in the next frame
    this.input.addEventListener('input', () => {
      if (!this.Plotly) return; // not drawn yet (the input is disabled until then)
      this.show(Number(this.input.value));
      this.schedule();
    });
  }

  // the payload: JSON bytes (ui/live.py, wire), parsed once per payload Streamlit hands over,
  // the frames' packed coordinates unpacked (ui/live.py, read does the same)
  read(sent) {
    if (!(sent instanceof Uint8Array)) return sent;
    if (sent !== this.sent) {
      this.sent = sent;
      this.parsed = JSON.parse(new TextDecoder().decode(sent));
      for (const frame of this.parsed.frames ?? []) {
        for (const trace of frame.data ?? []) {
          for (const axis of ['x', 'y']) trace[axis] = unpack(trace[axis]);
        }
      }
    }
    return this.parsed;
  }

  // a new payload from the server (first mount, or a rerun)
  async update(data, setStateValue) {
    this.setStateValue = setStateValue;
    const fresh = data.digest !== this.digest;
    this.serverIndex = data.index;
    if (this.reported !== null && data.index === this.reported) {
      this.reported = null; // the server took our value: the rerun changes nothing here
    }
    const userBusy = this.timer !== null || this.reported !== null;
    let index = this.index;
    if (index === null || (!userBusy && data.index !== index)) index = data.index;
    index = Math.min(index, data.states.length - 1);
    this.pendingDone();
    if (!fresh) {
      if (index !== this.index) this.show(index);
      return;
    }
    this.data = data;
    this.digest = data.digest;
    this.layout = structuredClone(data.figure.layout);
    // the room the chart takes before Plotly draws it: the figure's own height (live.css
    // otherwise), so a short chart leaves no gap and a tall one does not push the page
    this.plot.style.minHeight = this.layout.height ? `${this.layout.height}px` : '';
    this.base = data.figure.data;
    this.labelEl.textContent = data.label;
    this.chart.className = `live-chart st-key-${data.chartKey}`;
    this.input.max = String(data.states.length - 1);
    // a kept chart: no control and no numbers, only the chart
    this.root.querySelector('.live-control').style.display = data.kept ? 'none' : '';
    this.numbers.style.display = data.kept ? 'none' : '';
    // one state left (e.g. one Swin window covering the map): the label and value, no slider
    const single = data.states.length < 2;
    this.input.style.display = single ? 'none' : '';
    this.root.querySelector('.live-ends').style.display = single ? 'none' : '';
    const ends = rootEnds(this.root);
    ends[0].textContent = data.states[0].label;
    ends[1].textContent = data.states[data.states.length - 1].label;
    // a chart is on screen (or was, before a payload still loading): the new one goes to it
    this.reactNext = this.reactNext || this.drawn;
    this.drawn = false;
    this.index = null;
    const Plotly = await loadPlotly();
    if (this.digest !== data.digest) return; // a newer payload arrived while loading
    if (!this.reactNext) {
      // a chart's first drawing (a new view or part) waits for the browser to paint what
      // came with it: Plotly.newPlot of the reverse scrub held the frame of a view switch's
      // text back to 120-181 ms (bench/controls_report.md, round 28)
      await afterNextPaint();
      if (this.digest !== data.digest) return; // a newer payload arrived meanwhile
    }
    this.Plotly = Plotly;
    this.show(index);
  }

  // a state's patch of one trace: its properties, or (a number) an entry of the shared table
  patch(p) {
    return typeof p === 'number' ? this.data.patches[p] : p;
  }

  // the base traces with state's patches; a number is an entry of the shared table
  traces(state) {
    const traces = this.base.slice();
    for (const [i, patch] of state.traces) {
      const props = this.patch(patch);
      traces[i] = { ...traces[i], ...props };
    }
    return traces;
  }

  // draw state i: chart, numbers, slider; no message to the server (moved traces are drawn
  // in the next animation frame, a redraw at once)
  show(i) {
    const state = this.data.states[i];
    if (!state || !this.Plotly) return;
    this.index = i;
    this.input.value = String(i);
    this.input.setAttribute('aria-valuetext', state.label);
    this.output.textContent = state.label;
    const empty = this.data.moveTraces && this.hasEmptyTrace(state);
    // a frame slider still to draw: drawn now where the next drawing reads it (a new
    // payload moved or swapped in), left where Plotly draws the whole layout
    const moves = this.drawn && this.data.moveTraces && !empty && !this.shownEmpty;
    const repaints = !moves && this.drawn && this.data.repaintHeatmaps;
    if (!moves && !repaints) this.drawSlider(this.reactNext && !this.drawn);
    if (moves) {
      // only scatter and bar data on fixed axes change (ui/live.py checks): move the traces,
      // no axes, ticks or layout drawn again (about a third of Plotly.react's time)
      this.move(state);
      this.drawnBy = 'move';
    } else if (repaints && this.repaint(state)) {
      this.drawnBy = 'repaint'; // only heatmaps' values changed (ui/live.py checks)
    } else if (this.drawn) {
      this.redraw();
      this.drawnBy = 'react';
    } else if (
      this.reactNext &&
      this.data.swappable &&
      this.data.skeleton === this.skeleton &&
      this.data.coords === this.coords &&
      this.swapNew()
    ) {
      // a new figure that differs from the one drawn only in its images' sources (and its
      // frames' images): the pictures are swapped, nothing else is drawn (ui/live.py checks)
      this.reactNext = false;
      this.drawn = true;
      this.drawnBy = 'swap-new';
    } else if (
      this.reactNext &&
      this.data.movable &&
      this.data.skeleton === this.skeleton &&
      this.moveNew()
    ) {
      // a new figure that differs from the one drawn only in its traces' x and y, its
      // images' sources and its frames, on fixed axes (ui/live.py checks): the traces are
      // moved and the pictures swapped, nothing else is drawn
      this.reactNext = false;
      this.drawn = true;
      this.drawnBy = 'move-new';
    } else if (this.reactNext) {
      // a new payload on a chart already drawn: Plotly.react on the same plot, which keeps
      // the plot's elements and draws only what changed; a new datarevision tells it that
      // the data changed (the figure may carry a fixed one)
      const layout = { ...this.layout, datarevision: this.digest };
      const figure = { data: this.traces(state), layout, config: this.config() };
      if (this.data.frames) figure.frames = this.data.frames;
      const draw = () => this.Plotly.react(this.plot, figure);
      if (this.moving) {
        this.moving.then(draw, draw); // after a move still queued for the next frame
      } else {
        draw();
      }
      this.reactNext = false;
      this.drawn = true;
      this.drawnBy = 'react-new';
    } else {
      const figure = { data: this.traces(state), layout: this.layout, config: this.config() };
      if (this.data.frames) figure.frames = this.data.frames;
      this.Plotly.newPlot(this.plot, figure);
      this.followLegend(); // newPlot took the plot's listeners away
      this.drawn = true;
      this.drawnBy = 'new';
    }
    this.skeleton = this.data.skeleton;
    this.coords = this.data.coords;
    this.sentActive = this.layout.sliders?.[0]?.active; // the frame slider's, as sent
    this.shownEmpty = empty;
    this.numbers.innerHTML = state.html; // built and escaped on the server
    if (this.data.sharedHtml) {
      // the checks every state shares, sent once, first in the state's row of badges
      const badges = this.numbers.querySelector('.live-badges');
      badges?.insertAdjacentHTML('afterbegin', this.data.sharedHtml);
    }
    this.input.disabled = false; // a key pressed before the first drawing would be lost
  }

  // a patched trace with no points (Plotly.animate would leave the old ones on screen, and
  // does not draw a trace that had none): such a step, and the one after it, are redrawn
  hasEmptyTrace(state) {
    return state.traces.some(([, p]) => {
      const patch = this.patch(p);
      return ['x', 'y'].some((k) => Array.isArray(patch[k]) && patch[k].length === 0);
    });
  }

  // Plotly.animate with no transition and no redraw: the patched traces' new data, drawn in
  // the next animation frame (a newer step interrupts an older one: mode "immediate")
  move(state) {
    const patches = this.base.map(() => ({}));
    for (const [i, patch] of state.traces) {
      patches[i] = this.patch(patch);
    }
    this.animate(patches);
  }

  // every trace to its patch (an empty one: unchanged), in the next animation frame; a
  // redraw waits for it (this.moving). Plotly.animate draws again only the traces of kinds
  // it can animate, and empties every other trace layer of the plot (plotly.js cartesian
  // plotOne: the layers it was not given leave); the pictured traces (images from sources,
  // already holding their new sources) are drawn again by marking their kind animatable
  // for this move alone (the image module then draws them as Plotly.react would).
  animate(patches, pictured = [], now = false) {
    if (!pictured.length && this.quickMove(patches, now)) return;
    const indices = patches.map((_, i) => i);
    const kinds = [...new Set(pictured.map((i) => this.plot._fullData?.[i]?._module))];
    const lent = kinds.filter((m) => m && lend(m));
    const moving = this.Plotly.animate(this.plot, { data: patches, traces: indices }, MOVE);
    this.moving = moving;
    const done = () => {
      for (const m of lent) giveBack(m);
      if (this.moving === moving) this.moving = null;
    };
    moving.then(done, done);
    this.movedBy = 'animate';
  }

  // A move whose traces are all scatter traces that take new x and y on fixed linear axes,
  // drawn without Plotly.animate (true; false where it does not apply): Plotly.animate
  // supplies the whole figure's defaults again (8 ms of the reverse scrub's 23–27 ms move,
  // bench/controls_report.md, round 39) and computes every trace's calcdata. Here each
  // changed trace takes its new arrays (in the figure Plotly holds and in its full trace),
  // its calcdata comes from its own trace module, and the cartesian plot draws every trace
  // from calcdata (plotly.js internals, pinned with the plotly package; tests/browser
  // compares the drawing with Plotly's own). A slider's step is drawn in the next animation
  // frame, as Plotly.animate's move does, and a step asked for while one is queued joins it
  // (a held arrow key); where the plot is no longer as it was checked, the frame hands the
  // move to Plotly.animate. A kept chart's new figure (``now``) is drawn in the task that
  // brought it: in the next frame it waited behind whatever task came first, the formula's
  // typesetting among them (bench/controls_report.md, rounds 42 and 43).
  quickMove(patches, now = false) {
    if (now && !this.quick && !this.moving) {
      const jobs = this.quickJobs(patches);
      if (!jobs) return false;
      this.quickDraw(jobs);
      this.movedBy = 'quick';
      return true;
    }
    if (this.quick && this.quickJobs(patches)) {
      patches.forEach((p, i) => {
        if (Object.keys(p).length) this.quick[i] = p;
      });
      return true;
    }
    if (this.moving || !this.quickJobs(patches)) return false;
    const quick = (this.quick = patches.slice());
    const moving = new Promise((resolve) =>
      requestAnimationFrame(() => {
        this.quick = null;
        const jobs = this.plot.isConnected ? this.quickJobs(quick) : null;
        if (jobs) {
          this.quickDraw(jobs);
          resolve();
        } else {
          const indices = quick.map((_, i) => i);
          resolve(this.Plotly.animate(this.plot, { data: quick, traces: indices }, MOVE));
        }
      }),
    );
    this.moving = moving;
    const done = () => {
      if (this.moving === moving) this.moving = null;
    };
    moving.then(done, done);
    this.movedBy = 'quick';
    return true;
  }

  // what a quick move draws: [index, new x, new y, the trace as given, its full trace] for
  // each trace whose x or y changed; null where the move is not one a quick move draws (a
  // trace of another kind, hidden, with another data array of another length than the new
  // x, stacked or with error bars, an axis neither linear nor log, Plotly animating frames
  // of its own). Another array (a marker size per point) is the trace's own, unchanged: the
  // trace module's calc reads it as Plotly.animate's would. A log axis holds data values in
  // calcdata too and maps them to pixels itself.
  quickJobs(patches) {
    const gd = this.plot;
    const layout = gd._fullLayout;
    const modules = layout?._basePlotModules;
    const held = gd._transitionData;
    if (!gd.calcdata || modules?.length !== 1 || modules[0].name !== 'cartesian') return null;
    if (gd._transitioning || held?._animationRaf || held?._frameQueue?.length) return null;
    const axis = (id) => layout[id.replace(/^([xy])/, '$1axis')];
    const same = (a, b) => a === b || (a.length === b?.length && a.every((v, k) => v === b[k]));
    // an array attribute ('marker.size') of the full trace, one value per new point
    const along = (full, attr, x) => {
      const v = attr.split('.').reduce((o, k) => o?.[k], full);
      return Array.isArray(v) && v.length === x.length;
    };
    const jobs = [];
    for (const [i, patch] of patches.entries()) {
      const keys = Object.keys(patch);
      if (!keys.length) continue;
      const given = gd.data[i];
      const full = gd._fullData?.[i];
      if (!given || !full) return null;
      const x = patch.x ?? given.x;
      const y = patch.y ?? given.y;
      if (!keys.every((k) => k === 'x' || k === 'y') || !Array.isArray(x) || !Array.isArray(y)) {
        return null;
      }
      if (same(x, given.x) && same(y, given.y)) continue;
      const fits =
        full._input === given &&
        full.type === 'scatter' &&
        full.visible === true &&
        given.mode !== undefined && // the mode a trace's length picks stays
        !full.stackgroup &&
        !full.error_x?.visible &&
        !full.error_y?.visible &&
        (full._arrayAttrs ?? []).every((a) => a === 'x' || a === 'y' || along(full, a, x)) &&
        typeof full._module?.calc === 'function' &&
        x.length === y.length &&
        x.length > 0 &&
        MOVABLE_AXES.has(axis(full.xaxis)?.type) &&
        MOVABLE_AXES.has(axis(full.yaxis)?.type);
      if (!fits) return null;
      jobs.push([i, x, y, given, full]);
    }
    return jobs;
  }

  // draw a quick move's jobs (quickJobs); where Plotly's internals fail, the whole plot is
  // drawn again from the data it holds, already the new data
  quickDraw(jobs) {
    const gd = this.plot;
    try {
      for (const [i, x, y, given, full] of jobs) {
        given.x = full.x = x;
        given.y = full.y = y;
        full._length = x.length;
        full._extremes = {};
        const cd = full._module.calc(gd, full);
        cd[0].t = cd[0].t ?? {};
        cd[0].trace = full;
        gd.calcdata[i] = cd;
      }
      gd._fullLayout._basePlotModules[0].plot(gd, gd.calcdata.map((_, i) => i));
    } catch (err) {
      console.warn('live.js: a quick move fell back to Plotly.redraw', err);
      this.Plotly.redraw(gd);
    }
  }

  // A kept chart's new figure with the skeleton of the one drawn: its frames replace the
  // old ones (all of them where the names changed), the frame slider takes the new steps,
  // every trace moves to its new x and y, every image (a trace's or the layout's) takes
  // its new picture, and every axis its new title. Where the student has scrubbed Plotly's slider away from the figure's
  // frame, the chart stays at their frame (by name) if the new figure has it: that frame's
  // traces move to its new data. False (nothing done) where the plot's images are not where
  // they were drawn.
  moveNew() {
    const gd = this.plot;
    const patches = this.base.map((t) => ({ x: t.x, y: t.y }));
    const sources = this.base.map((t) => t.source);
    const images = this.imageElements(sources);
    if (!images) return false;
    const frames = this.data.frames;
    const update = {}; // relayout: the frame slider's steps, the layout images' pictures
    let renamed = false; // the new frames have other names than those the slider steps to
    if (frames) {
      const slider = gd._fullLayout?.sliders?.[0];
      const scrubbed = this.scrubbedTo();
      renamed = !this.holdsFrames(frames);
      if (renamed) {
        // one at a time from the end: Plotly.deleteFrames sorts a list of indices as text
        const held = gd._transitionData?._frames ?? [];
        for (let k = held.length - 1; k >= 0; k--) this.Plotly.deleteFrames(gd, [k]);
      }
      this.Plotly.addFrames(gd, frames); // a frame with a name already there is replaced
      const sent = this.layout.sliders?.[0];
      let active = sent?.active;
      const frame = frames.find((f) => f.name === scrubbed);
      const at = sent?.steps?.findIndex((s) => s.args?.[0]?.[0] === scrubbed) ?? -1;
      if (frame && at >= 0) {
        active = at;
        (frame.traces ?? []).forEach((i, k) => {
          if (sources[i]) sources[i] = frame.data[k].source ?? sources[i];
          else patches[i] = { x: frame.data[k].x, y: frame.data[k].y };
        });
      }
      const steps = JSON.stringify(sent?.steps) !== JSON.stringify(gd.layout.sliders?.[0]?.steps);
      if (sent && (steps || active !== slider?.active)) {
        update['sliders[0].steps'] = sent.steps;
        update['sliders[0].active'] = active;
      }
    }
    (this.layout.images ?? []).forEach((image, k) => {
      if (image.source !== gd.layout.images?.[k]?.source) {
        update[`images[${k}].source`] = image.source;
      }
    });
    for (const [name, axis] of Object.entries(this.layout)) {
      // an axis title that names the step (ui/live.py leaves their texts out of the skeleton)
      const text = /^[xy]axis\d*$/.test(name) ? axis?.title?.text : undefined;
      if (text !== undefined && text !== gd.layout[name]?.title?.text) {
        update[`${name}.title.text`] = text;
      }
    }
    // the slider, the layout images and the axes' titles alone are drawn again, not the
    // plot; the slider in the next frame where its steps still name frames the plot holds
    // (only their labels change: drawSlider)
    const slider = {};
    for (const key of Object.keys(update).filter((k) => !renamed && k.startsWith('sliders['))) {
      slider[key] = update[key];
      delete update[key];
    }
    if (Object.keys(update).length) this.Plotly.relayout(gd, update);
    this.setSources(images, sources);
    for (const [, i] of images) patches[i] = {}; // drawn with its new source
    this.animate(patches, images.map(([, i]) => i), true);
    if (Object.keys(slider).length) {
      const later = (this.sliderLater = slider);
      const draw = () => {
        if (this.sliderLater !== later) return;
        if (this.moving) this.moving.then(draw, draw);
        else this.drawSlider(true);
      };
      // in the frame after the one that shows the move (a task queued after the paint
      // waited behind the formula's rendering, 30 ms behind the chart)
      requestAnimationFrame(() => requestAnimationFrame(draw));
    }
    return true;
  }

  // Draw (``now``) or drop the frame slider a new payload left to the frame after the one
  // that shows its move (moveNew): the same steps, to the same frames, with new labels (the
  // forward scrub's t at a new T). Plotly.relayout of its 40 steps took 9 ms of the T step's
  // frame, before the traces moved (bench/controls_report.md, round 30). A slider whose
  // steps name other frames (the reverse scrub at other steps S) is drawn with the move: a step
  // must not name a frame the plot no longer holds. Dropped where Plotly draws the whole
  // layout.
  drawSlider(now) {
    const slider = this.sliderLater;
    this.sliderLater = null;
    // (a plot taken off the page meanwhile, another view's, has nothing to draw)
    if (slider && now && this.plot.isConnected) this.Plotly.relayout(this.plot, slider);
  }

  // layout images named after a legend group show and hide with its traces: a click on the
  // legend entry of the reverse scrub's data hides its dots, drawn as an image
  // (figures/reverse.py, dots_image)
  followLegend() {
    const gd = this.plot;
    gd.on?.('plotly_restyle', () => {
      const update = {};
      (gd.layout.images ?? []).forEach((image, k) => {
        const trace = image.name && gd.data.find((t) => t.legendgroup === image.name);
        if (!trace) return;
        const shown = trace.visible === undefined || trace.visible === true;
        if ((image.visible ?? true) !== shown) update[`images[${k}].visible`] = shown;
      });
      if (Object.keys(update).length) this.Plotly.relayout(gd, update);
    });
  }

  // whether the plot holds frames of these names, in this order
  holdsFrames(frames) {
    const held = this.plot._transitionData?._frames ?? [];
    return held.length === frames.length && held.every((f, k) => f.name === frames[k].name);
  }

  // the frame the student scrubbed Plotly's slider to, by name (undefined where the slider
  // is still at the frame the server sent)
  scrubbedTo() {
    const slider = this.plot._fullLayout?.sliders?.[0];
    if (!slider || slider.active === this.sentActive) return undefined;
    return slider.steps?.[slider.active]?.args?.[0]?.[0];
  }

  // A kept chart's new figure that differs from the one drawn only in its images' sources:
  // each image element (the plot's own, one per image trace) takes its new picture, the
  // figure Plotly holds takes the new sources (what a later Plotly.react compares with) and
  // the frames are replaced. Where the student has scrubbed Plotly's slider to another
  // frame, the images that frame shows take their new pictures. False (nothing done) where
  // the frames are not the same ones or the plot's images are not where they were drawn.
  swapNew() {
    const gd = this.plot;
    const frames = this.data.frames ?? [];
    const sources = this.base.map((t) => t.source);
    if (!this.holdsFrames(frames)) return false;
    const scrubbed = this.scrubbedTo();
    const frame = frames.find((f) => f.name === scrubbed);
    (frame?.traces ?? []).forEach((i, k) => {
      if (frame.data[k].source) sources[i] = frame.data[k].source;
    });
    const images = this.imageElements(sources);
    if (!images) return false;
    this.setSources(images, sources);
    if (frames.length) this.Plotly.addFrames(gd, frames); // the same names: replaced
    return true;
  }

  // the plot's image elements (one per image trace, Plotly's own) as [element, trace
  // index] pairs, where each is drawn and its trace has a source; null otherwise
  imageElements(sources) {
    const groups = Array.from(this.plot.querySelectorAll('.imagelayer g.im'));
    if (groups.length !== sources.filter(Boolean).length) return null;
    const pairs = groups.map((g) => [g.querySelector('image'), g.__data__?.[0]?.trace?.index]);
    return pairs.every(([el, i]) => el && sources[i]) ? pairs : null;
  }

  // each image to its new picture, in the figure Plotly holds too (what a later
  // Plotly.react compares with)
  setSources(images, sources) {
    const gd = this.plot;
    for (const [el, i] of images) {
      gd.data[i].source = sources[i];
      gd._fullData[i].source = sources[i];
      el.setAttribute('href', sources[i]);
    }
  }

  // Plotly.react of the state shown; after a move still queued for the next frame, not
  // before it (the move would then draw its older state over this one)
  redraw() {
    if (this.moving) {
      const again = () => this.redraw();
      this.moving.then(again, again);
      return;
    }
    const state = this.data.states[this.index];
    this.Plotly.react(this.plot, this.traces(state), this.layout, this.config());
  }

  // the chart's Plotly config: the server's, resized with the page
  config() {
    return { ...this.data.config, responsive: true };
  }

  // Repaint the state's heatmaps alone, with Plotly's own heatmap drawing (the trace's
  // module, its calcdata and subplot: plotly.js internals, pinned with the plotly package):
  // 3 ms where Plotly.react redraws every axis, tick label and the colour bar (30–45 ms).
  // Only z changes, on a fixed colour range (ui/live.py checks); a missing internal or a z
  // of another shape or with gaps returns false, and the chart is redrawn with Plotly.react.
  repaint(state) {
    const gd = this.plot;
    const jobs = [];
    for (const [i, p] of state.traces) {
      const z = this.patch(p).z;
      const full = gd._fullData?.[i];
      const calc = gd.calcdata?.[i];
      const subplot = full && gd._fullLayout?._plots?.[full.xaxis + full.yaxis];
      const old = calc?.[0]?.z;
      const fits =
        Array.isArray(z) &&
        Array.isArray(old) &&
        z.length === old.length &&
        z.every((row, r) => Array.isArray(row) && row.length === old[r]?.length) &&
        z.every((row) => row.every(Number.isFinite));
      if (!fits || typeof full._module?.plot !== 'function' || !subplot?.plot?.select) {
        return false;
      }
      jobs.push({ i, z, full, calc, subplot });
    }
    for (const { i, z, full, calc, subplot } of jobs) {
      gd.data[i].z = z; // what a later Plotly.react compares with
      full.z = z;
      calc[0].z = z; // what the heatmap draws and the hover reads
      full._module.plot(gd, subplot, [calc], subplot.plot.select('.heatmaplayer'));
    }
    return true;
  }

  // report the value once the slider settles (a held arrow key reports once)
  schedule() {
    this.root.dataset.pending = '1';
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.index === this.serverIndex) {
        this.reported = null;
      } else {
        this.reported = this.index;
        this.setStateValue('value', this.data.states[this.index].value);
      }
      this.pendingDone();
    }, this.data.settleMs);
  }

  // the value is where the server has it: nothing pending (the benchmark waits for this)
  pendingDone() {
    const pending = this.timer !== null || this.reported !== null;
    this.root.dataset.pending = pending ? '1' : '0';
  }
}

export default function (component) {
  const { data: sent, parentElement, setStateValue } = component;
  let root = parentElement.querySelector(':scope > .adlab-live');
  if (!root) {
    root = build(parentElement);
    root.live = new Live(root);
  }
  const data = root.live.read(sent);
  root.live.update(data, setStateValue).catch((err) => {
    root.querySelector('.live-numbers').textContent = String(err);
  });
}
