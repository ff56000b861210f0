// plot.js - the Chart.js chart: cosine distance against magnitude (both axes
// logarithmic) for the plotted word and the sentence mean, a marker at the
// current magnitude, and shading where np.allclose is True for the word.
// Created once. Chart.js lays out and draws the axes, whose ranges never
// change; the curves, the shading, the thresholds and the marker are drawn
// by the plugins below from plain data. So a new sweep or a slider step costs
// a chart.draw() and no layout: chart.update() runs only when the theme or
// the size changes. Colours come from CSS custom properties, so dark mode
// works. Chart.js is the classic script vendor/chart.min.js (built from
// web/vendor/chart.entry.js), which defines window.Chart.
import { sig, powerOfTen, decadeOf, exponentText } from '../app/format.js';
import { SWEEP, curveOf } from '../app/sweep.js';
import { tokenName } from '../app/state.js';
import { createChartTable } from './chart_table.js';
import { setText, setHidden, setAttr } from './dom.js';
import { readoutPlugin, readoutLines, nearestIndex } from './readout.js';

// Cosine distances of 0 or tiny negatives (rounding) cannot sit on a log
// axis; they are drawn on this floor, and the hover readout says so.
export const FLOOR = 1e-17;
const Y_MAX = 10; // a cosine distance is at most 2
const ROUNDING_BAND = 1e-15; // below this: floating-point rounding

// Saves the context and clips drawing to the plot area (restore() undoes both).
function clipToArea(ctx, area) {
  ctx.save();
  ctx.beginPath();
  ctx.rect(area.left, area.top, area.width, area.height);
  ctx.clip();
}

// A full-height line at x pixel px of the plot area, broken where it would
// cross the box `clear` ([left, top, right, bottom]: the rounding band's label).
function verticalLine(ctx, area, px, { color, width, dash = [], clear }) {
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  ctx.moveTo(px, area.top);
  if (clear && px > clear[0] && px < clear[2]) {
    ctx.lineTo(px, clear[1]);
    ctx.moveTo(px, clear[3]);
  }
  ctx.lineTo(px, area.bottom);
  ctx.stroke();
}

const css = (node, name) => getComputedStyle(node).getPropertyValue(name).trim();

// An offscreen copy of the chart's canvas at some stage of a draw (the axes'
// layer, the base under the marker): {canvas, context, valid}.
const offscreen = () => ({ canvas: document.createElement('canvas'), context: null, valid: false });
const fits = (copy, canvas) => copy.valid && copy.canvas.width === canvas.width && copy.canvas.height === canvas.height;
function keep(copy, canvas) {
  if (copy.canvas.width !== canvas.width || copy.canvas.height !== canvas.height) {
    copy.canvas.width = canvas.width;
    copy.canvas.height = canvas.height;
  }
  copy.context ??= copy.canvas.getContext('2d');
  copy.context.drawImage(canvas, 0, 0);
  copy.valid = true;
}
// Paints a copy back over the whole canvas, whatever the context's transform.
function paint(ctx, copy) {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(copy.canvas, 0, 0);
  ctx.restore();
}

// The x-ranges where the flags are true (or 1), edges halfway (in log) between points.
export function trueRanges(scales, flags) {
  const ranges = [];
  const last = scales.length - 1;
  const edge = (i, j) => Math.sqrt(scales[i] * scales[j]);
  let start = null;
  flags.forEach((ok, i) => {
    if (ok && start === null) start = i === 0 ? scales[0] : edge(i - 1, i);
    if (start !== null && (!ok || i === last)) {
      ranges.push([start, ok ? scales[last] : edge(i - 1, i)]);
      start = null;
    }
  });
  return ranges;
}

// The curves as curvesPlugin draws them, in pixels: {x: [...], ys: [[...]
// per curve, NaN at a gap]}. The sweep's points are evenly spaced on the
// log axis, so x is increasing.
function curvePixels(chart) {
  const x = logPixel(chart.scales.x), y = logPixel(chart.scales.y);
  const sets = chart.data.datasets.filter((d) => d.data.length);
  return {
    x: sets.length ? sets[0].data.map((p) => x(p.x)) : [],
    ys: sets.map((d) => d.data.map((p) => (p.y === null ? NaN : y(p.y)))),
  };
}

// Whether a curve passes within `margin` px of the box: each segment whose
// x-range meets the box's, clipped to it (Liang-Barsky).
function curvesMeetBox({ x, ys }, box, margin) {
  const left = box.left - margin, right = box.right + margin, top = box.top - margin, bottom = box.bottom + margin;
  for (const y of ys) {
    for (let k = 0; k + 1 < x.length; k++) {
      if (x[k + 1] < left) continue;
      if (x[k] > right) break;
      if (Number.isNaN(y[k]) || Number.isNaN(y[k + 1])) continue;
      if (segmentMeets(x[k], y[k], x[k + 1], y[k + 1], left, right, top, bottom)) return true;
    }
  }
  return false;
}

function segmentMeets(x1, y1, x2, y2, left, right, top, bottom) {
  const dx = x2 - x1, dy = y2 - y1;
  let t0 = 0, t1 = 1;
  for (const [p, q] of [[-dx, x1 - left], [dx, right - x1], [-dy, y1 - top], [dy, bottom - y1]]) {
    if (p === 0) {
      if (q < 0) return false;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return false;
    }
  }
  return true;
}

// Draws the "allclose True" regions and the rounding band under the lines,
// the threshold of each curve over them, and the panel colour behind it all
// (so the PNG download reads the same outside the page). `shade` is read at
// every draw (Chart.js's resolved plugin options change only on update()):
// {ranges, thresholds} from update(), colours and font from the theme.
// layer: the axes' layer (axesPlugin), which the band is part of.
function shadePlugin(shade, layer) {
  // The rounding band along the bottom: it never changes.
  function band(chart) {
    const { ctx, chartArea: area, scales: { y } } = chart;
    if (!area) return;
    clipToArea(ctx, area);
    const bandTop = y.getPixelForValue(ROUNDING_BAND);
    ctx.fillStyle = shade.roundingColor;
    ctx.fillRect(area.left, bandTop, area.width, area.bottom - bandTop);
    ctx.fillStyle = shade.textColor;
    ctx.font = `${shade.fontSize}px ${shade.fontFamily}`;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    ctx.fillText(shade.roundingLabel, area.right - 6, bandTop - 3);
    // (the marker and the thresholds' lines leave its words whole: at 375 px
    // the marker at 1 ran between "rounding" and "level")
    shade.clear = [area.right - 10 - ctx.measureText(shade.roundingLabel).width, bandTop - 5 - shade.fontSize, area.right - 2, bandTop - 1];
    ctx.restore();
  }
  return {
    id: 'poslabShade',
    beforeDraw(chart) {
      const { ctx } = chart;
      ctx.save();
      ctx.fillStyle = shade.background;
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    },
    afterDatasetsDraw(chart) {
      const { ctx, chartArea: area, scales: { x } } = chart;
      if (!area) return;
      ctx.save();
      ctx.font = `${shade.fontSize}px ${shade.fontFamily}`;
      ctx.textBaseline = 'top';
      const curves = shade.thresholds?.length ? curvePixels(chart) : { x: [], ys: [] };
      const height = shade.fontSize + 6, row = shade.fontSize + 10;
      // (off the plotted range, a threshold has no line: the caption says it)
      const plotted = ({ value }) => value >= SWEEP.lo && value <= SWEEP.hi;
      // every dashed line: a label may not sit on another's line either
      const lines = (shade.thresholds ?? []).filter(plotted).map(({ value }) => x.getPixelForValue(value));
      this.labelBoxes = [];
      (shade.thresholds ?? []).forEach((threshold, k) => {
        if (!plotted(threshold)) return;
        const { value, color, who } = threshold;
        const px = x.getPixelForValue(value);
        verticalLine(ctx, area, px, { color, width: 2, dash: [6, 4], clear: shade.clear });
        // The label beside the line, inside the plot, one row per curve,
        // lower while a curve or an earlier label is in the way; on a
        // narrow plot (a phone) or for a long word without the name, since
        // the line's colour says whose it is. At 375 px the whole labels lay
        // across both curves and the marker.
        const short = `≈ ${sig(value, 2)}`, long = `${who} ${short}`;
        const label = ctx.measureText(long).width + 8 > 0.3 * area.width ? short : long;
        const width = ctx.measureText(label).width + 8;
        const boxAt = (left, top) => ({ label, left, top, right: left + width, bottom: top + height, line: px });
        const at = (top, right) => boxAt(right ? px + 4 : px - 4 - width, top);
        const inside = (b) => b.left >= area.left && b.right <= area.right && b.bottom <= area.bottom;
        const free = (b) => inside(b) && !this.labelBoxes.some((o) => o.left < b.right && b.left < o.right && o.top < b.bottom && b.top < o.bottom) &&
          !lines.some((lx) => lx !== px && lx > b.left - 2 && lx < b.right + 2) && !curvesMeetBox(curves, b, 3);
        // Two lines closer than a label is wide (at 375 px the word's and
        // the mean's, 11 px apart): past the other line, where its colour
        // still says whose it is.
        const crossed = lines.filter((lx) => lx > px && lx < px + width + 6);
        const past = (top) => (crossed.length ? boxAt(Math.max(...crossed) + 4, top) : null);
        const first = area.top + 24 + k * row;
        const fallback = at(first, px + 4 + width < area.right);
        let box = null;
        for (let top = first; !box && top + height <= area.bottom; top += row / 2) {
          box = [at(top, true), at(top, false), past(top)].find((b) => b && free(b)) ?? null;
        }
        box ??= fallback;
        ctx.fillStyle = shade.background;
        ctx.fillRect(box.left, box.top, width, height);
        ctx.fillStyle = color;
        ctx.textAlign = 'left';
        ctx.fillText(label, box.left + 4, box.top + 3);
        this.labelBoxes.push(box); // the tests read where they went
      });
      ctx.restore();
    },
    beforeDatasetsDraw(chart) {
      band(chart);
      if (!layer.valid && chart.data.datasets.some((d) => d.data.length)) keep(layer, chart.canvas);
      this.ranges(chart);
    },
    // np.allclose True for the plotted word (the rest of beforeDatasetsDraw,
    // which the axes' layer calls on its own)
    ranges(chart) {
      const { ctx, chartArea: area, scales: { x } } = chart;
      if (!area) return;
      clipToArea(ctx, area);
      ctx.font = `${shade.fontSize}px ${shade.fontFamily}`;
      for (const [lo, hi] of shade.ranges ?? []) {
        const left = Math.max(area.left, x.getPixelForValue(lo));
        const right = Math.min(area.right, x.getPixelForValue(hi));
        if (right <= left) continue;
        ctx.fillStyle = shade.trueColor;
        ctx.fillRect(left, area.top, right - left, area.height);
        for (const px of [left, right]) {
          if (px > area.left + 1 && px < area.right - 1) verticalLine(ctx, area, px, { color: shade.trueEdge, width: 1 });
        }
        const label = shade.trueLabel;
        const width = ctx.measureText(label).width;
        if (right - left > width + 12) {
          ctx.fillStyle = shade.trueText;
          ctx.textAlign = 'left';
          ctx.textBaseline = 'top';
          ctx.fillText(label, left + 6, area.top + 6);
        }
      }
      ctx.restore();
    },
  };
}

// A log axis gets a tick at 1, 2, ... 9 of every decade; only whole decades
// are kept (a grid line each), because Chart.js sets the font and measures
// every tick on each update, and ~280 ticks made that most of a slider step.
const decadesOnly = (axis) => {
  axis.ticks = axis.ticks.filter((t) => decadeOf(t.value) !== null);
};
// The current magnitude: a dashed vertical line and today's value of each
// curve on it. Drawn here rather than as datasets, so that a slider step needs
// no chart.update(): `now` is read at every draw.
function nowPlugin(now, shade) {
  return {
    id: 'poslabNow',
    afterDatasetsDraw(chart) {
      const { ctx, chartArea: area, scales: { x, y } } = chart;
      if (!area || now.x === null) return;
      const px = x.getPixelForValue(now.x);
      ctx.save();
      verticalLine(ctx, area, px, { color: now.markerColor, width: 2, dash: [2, 3], clear: shade.clear });
      ctx.setLineDash([]);
      ctx.lineWidth = 2;
      ctx.strokeStyle = now.background;
      for (const { y: value, radius, curve } of now.points) {
        ctx.fillStyle = now.colors[curve];
        ctx.beginPath();
        ctx.arc(px, y.getPixelForValue(value), radius, 0, 2 * Math.PI);
        ctx.fill();
        ctx.stroke();
      }
      ctx.restore();
    },
  };
}

// The panel colour, the axes with their grid, ticks and titles, and the
// rounding band change only when Chart.js lays the chart out again (the
// theme or the size changes): a copy of the canvas as it stands after them
// is kept, and later draws paint that copy and then only what moves
// (`rest`: shading, curves, thresholds, marker, readout) instead of having
// Chart.js draw the axes again, which was a third of a new sweep's draw.
// The copy is taken on the first draw with curves after a layout, as
// basePlugin's: the empty chart at start-up is never copied.
// (The shade plugin keeps the copy, right after the band.)
function axesPlugin(layer, rest) {
  return {
    id: 'poslabAxes',
    afterUpdate() { layer.valid = false; },
    beforeDraw(chart) {
      if (!fits(layer, chart.canvas)) return true;
      paint(chart.ctx, layer);
      rest(chart);
      return false; // Chart.js's own drawing of the same axes
    },
  };
}

// A copy of the canvas as it stands after the curves, shading and
// thresholds, before the marker: a slider step moves only the marker, so it
// paints this copy back and draws the marker on it (markerOnly below)
// instead of having Chart.js draw axes, grid, curves and shading again,
// which was most of a slider step at 64 words. A full draw with a marker
// (`now.x`) and curves refreshes it, except one for new curves or
// thresholds (`base.later`, from update()): there the copy waits for the
// first slider step that needs it (markerOnly): copying the canvas makes
// the browser draw it there and then and copy all of its pixels, twice per
// keystroke (its draw and the thresholds'), for steps typing never takes
// (a keystroke's draw at 16 words: 1.6 ms with the copy, 0.6 without,
// under 2x throttling). Other draws (positions off, the empty chart at
// start-up) leave none: a copy was the largest single cost of the chart's
// start-up.
function basePlugin(base, now) {
  return {
    id: 'poslabBase',
    afterDatasetsDraw(chart) {
      if (base.later || now.x === null || chart.data.datasets.every((d) => d.data.length === 0)) base.valid = false;
      else keep(base, chart.canvas);
    },
  };
}

// Cancels every draw while `flag.now`: Chart.js draws a chart as it makes
// it, with no curves yet, and the page's first update draws it again a
// moment later; the second draw alone, in a task of its own, is the same
// picture at half the cost.
function skipWhile(flag) {
  return { id: 'poslabSkip', beforeDraw: () => !flag.now };
}

// A logarithmic axis's pixel for a value inside its range: linear in the
// value's logarithm, so two of the axis's own pixels fix it. The curves'
// 242 points went through Chart.js's getPixelForValue each, which
// allocated a number per call (some 30 KB a keystroke, at 16 words, for
// the young generation to collect).
function logPixel(axis) {
  const l0 = Math.log10(axis.min);
  const p0 = axis.getPixelForValue(axis.min);
  const k = (axis.getPixelForValue(axis.max) - p0) / (Math.log10(axis.max) - l0);
  return (value) => p0 + (Math.log10(value) - l0) * k;
}

// The two curves. Their points stay in chart.data.datasets (the readout and
// tests read them there), but the datasets are hidden from Chart.js: a change
// of dataset data would need chart.update(), whose layout pass (measuring
// every tick label) is most of a new sweep's drawing time. Drawn the way
// Chart.js draws a line with tension 0 and spanGaps false: straight segments,
// broken at null, the first dataset on top.
const curvesPlugin = {
  id: 'poslabCurves',
  afterDatasetsDraw(chart) {
    const { ctx, chartArea: area, scales } = chart;
    if (!area) return;
    const x = logPixel(scales.x), y = logPixel(scales.y);
    clipToArea(ctx, area);
    for (const d of [...chart.data.datasets].reverse()) {
      ctx.strokeStyle = d.borderColor;
      ctx.lineWidth = d.borderWidth;
      ctx.setLineDash(d.borderDash ?? []);
      ctx.beginPath();
      let drawing = false;
      for (const p of d.data) {
        if (p.y === null) { drawing = false; continue; }
        const px = x(p.x);
        const py = y(p.y);
        if (drawing) ctx.lineTo(px, py);
        else ctx.moveTo(px, py);
        drawing = true;
      }
      ctx.stroke();
    }
    ctx.restore();
  },
};

const tickLabel = (every) => (value) => {
  const exp = decadeOf(value);
  return exp % every === 0 ? powerOfTen(exp) : '';
};

// Points for one curve of a packed sweep (app/sweep.js's curveOf); y is
// floored, the true value kept for the readout (null where the core has no
// finite distance).
function points(scales, curve) {
  const out = new Array(scales.length);
  for (let i = 0; i < scales.length; i++) {
    const v = Number.isNaN(curve.cosine[i]) ? null : curve.cosine[i];
    out[i] = { x: scales[i], y: v === null ? null : Math.max(v, FLOOR), value: v, allclose: curve.close[i] === 1 };
  }
  return out;
}

// Where the marker goes: the magnitude, kept inside the plotted range.
const onAxis = (scale) => Math.min(SWEEP.hi, Math.max(SWEEP.lo, scale));

// maxScale: the core's largest magnitude, where the threshold search ends.
export function createPlot(figure, { maxScale }) {
  const canvas = figure.querySelector('canvas');
  const overlay = figure.querySelector('.chart-overlay');
  const caption = figure.querySelector('.chart-caption');
  const legendWord = figure.querySelector('.legend-word .legend-label');
  const legendMarker = figure.querySelector('.legend-marker');
  const table = createChartTable(figure.querySelector('.chart-data'));
  const { Chart } = window;
  // What the marker plugin draws: x (null: positional information is off)
  // and one point per curve, {label, x, y (floored), value, allclose, radius,
  // curve: 'word' or 'mean'}; colours from the theme.
  const now = { x: null, points: [], markerColor: '', background: '', colors: {} };
  const shade = { ranges: [], thresholds: [] };
  let drawn = { sweep: null, key: '' }; // the sweep and the rest the curves were last set from
  const readout = { index: null, at: null, lines: [], font: '', fontSize: 13, text: '', background: '', border: '' };
  const base = { ...offscreen(), later: false };
  const axes = offscreen();
  const making = { now: true }; // Chart.js's own first draw is skipped (skipWhile)
  const marker = nowPlugin(now, shade);
  const readoutLayer = readoutPlugin(readout, FLOOR);
  const shading = shadePlugin(shade, axes);
  const copy = basePlugin(base, now);
  // What a draw paints over the axes' layer, in Chart.js's order.
  const overAxes = (chart) => {
    shading.ranges(chart);
    curvesPlugin.afterDatasetsDraw(chart);
    shading.afterDatasetsDraw(chart);
    copy.afterDatasetsDraw(chart);
    marker.afterDatasetsDraw(chart);
    readoutLayer.afterDraw(chart);
  };

  const config = {
    type: 'line',
    data: {
      datasets: [
        // Drawn by curvesPlugin; the hover readout rings the point under the pointer.
        { label: 'word', data: [], borderWidth: 3, hidden: true },
        { label: 'sentence mean', data: [], borderWidth: 2.5, borderDash: [7, 5], hidden: true },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: {
          type: 'logarithmic',
          min: SWEEP.lo,
          max: SWEEP.hi,
          title: { display: true, text: 'magnitude of the positional signal' },
          afterBuildTicks: decadesOnly,
          ticks: { callback: tickLabel(3), autoSkip: false, maxRotation: 0 },
        },
        y: {
          type: 'logarithmic',
          min: FLOOR,
          max: Y_MAX,
          title: { display: true, text: 'cosine distance, A vs B' },
          afterBuildTicks: decadesOnly,
          ticks: { callback: tickLabel(4), autoSkip: false },
        },
      },
      plugins: {
        // The legend is HTML above the canvas (index.html): Chart.js's own
        // re-measures its text on every update, a slider step included.
        legend: { display: false },
        // read by their plugins at every draw; here so tests can see them
        poslabShade: shade,
        poslabNow: now,
        poslabReadout: readout,
      },
    },
    // in drawing order: the axes' layer (which, once kept, draws the rest
    // itself), curves, then thresholds (shade), the copy without the marker
    // (base), marker, readout
    plugins: [skipWhile(making), axesPlugin(axes, overAxes), curvesPlugin, shading, copy, marker, readoutLayer],
  };

  // The marker and readout on the last full draw's copy (see basePlugin);
  // a full draw when there is no copy of the canvas as it is now.
  function markerOnly() {
    if (!fits(base, chart.canvas)) {
      chart.draw();
      return;
    }
    paint(chart.ctx, base);
    marker.afterDatasetsDraw(chart);
    readoutLayer.afterDraw(chart);
  }

  // Colours and fonts from the page's CSS (light or dark), into the chart's
  // options `o` and `datasets`: the config before the chart is made, the
  // chart's own when the theme changes.
  function applyTheme(o, datasets) {
    const text = css(figure, '--muted');
    const grid = css(figure, '--grid');
    const font = { family: getComputedStyle(figure).fontFamily, size: Number(css(figure, '--plot-font')) || 13 };
    for (const axis of [o.scales.x, o.scales.y]) {
      axis.ticks.color = text;
      axis.ticks.font = font;
      axis.title.color = text;
      axis.title.font = { ...font, weight: '600' };
      axis.grid = { color: grid };
      axis.border = { color: grid };
    }
    Object.assign(readout, {
      font: `${font.size}px ${font.family}`, fontSize: font.size, text: css(figure, '--fg'),
      background: css(figure, '--panel'), border: css(figure, '--muted'),
    });
    const word = css(figure, '--plot-word');
    const mean = css(figure, '--plot-mean');
    const bg = css(figure, '--panel');
    const [w, m] = datasets;
    Object.assign(w, { borderColor: word, backgroundColor: word });
    Object.assign(m, { borderColor: mean, backgroundColor: mean });
    now.markerColor = css(figure, '--plot-marker');
    now.colors = { word, mean };
    now.background = bg;
    Object.assign(shade, {
      trueColor: css(figure, '--true-shade'),
      trueEdge: css(figure, '--true'),
      trueText: css(figure, '--true'),
      trueLabel: 'np.allclose True',
      roundingColor: css(figure, '--rounding-shade'),
      roundingLabel: 'rounding level',
      textColor: text,
      background: bg,
      wordColor: word,
      meanColor: mean,
      fontFamily: font.family,
      fontSize: font.size,
    });
  }
  // Themed before it is made: Chart.js lays out and draws a new chart at
  // once, and a second update for the theme's fonts measured every tick
  // label again (with the first, most of the chart's start-up).
  applyTheme(config.options, config.data.datasets);
  const chart = new Chart(canvas, config);
  making.now = false;

  // Which end of the magnitudes a threshold lies at: 'low' (False at
  // every magnitude), 'high' (True up to the largest), else null.
  const edgeOf = (t) => (t <= 0 ? 'low' : t >= maxScale ? 'high' : null);

  // Words for a threshold: where np.allclose stops saying True. `again`:
  // where it says True once more higher up the plotted magnitudes (at large
  // ones the softmax saturates and outputs can coincide), or null.
  function thresholdText(name, t, again = null) {
    const edge = edgeOf(t);
    if (edge === 'low') return `np.allclose says False for ${name} at every magnitude, even the faintest.`;
    if (edge === 'high') {
      // (the search goes to the field's largest magnitude, past the plot's end)
      const past = maxScale > SWEEP.hi ? ` (the chart stops at ${exponentText(SWEEP.hi)})` : '';
      return `np.allclose says True for ${name} at every magnitude up to ${exponentText(maxScale)}${past}: it never tells the two apart.`;
    }
    if (again) {
      const [lo, hi] = again;
      const to = hi >= SWEEP.hi ? `${exponentText(SWEEP.hi)}, the largest plotted` : `about ${sig(hi, 2)}`;
      return `np.allclose says True for ${name} below a magnitude of about ${sig(t, 2)}, and again from about ` +
        `${sig(lo, 2)} to ${to}: there it cannot tell the two apart.`;
    }
    return `np.allclose says True for ${name} only below a magnitude of about ${sig(t, 2)}: ` +
      'below that it cannot tell the two apart.';
  }
  // The True ranges of the drawn sweep's curves (the word's is the
  // shading's), set with its curves; and the first of them above a
  // threshold t, where np.allclose says True again, or null.
  let meanRanges = [];
  const againAbove = (ranges, t) => (edgeOf(t) === null ? ranges.find(([lo]) => lo > t) ?? null : null);

  // view: {sweep (undefined until computed), coarse (the sweep is the
  // coarse first curve), result, state, threshold (the plotted word's),
  // meanThreshold, pending: true while the sweep or a threshold is still
  // to come}
  function update({ sweep, coarse = false, result, state, threshold, meanThreshold = null, pending }) {
    const sel = Math.min(state.word, result.pairs.length - 1);
    const pair = result.pairs[sel];
    const word = `“${tokenName(pair.word)}”`;
    const paired = pair.index_b !== null;
    const [w, m] = chart.data.datasets;
    setText(legendWord, word);
    setHidden(legendMarker, !state.positions);
    setAttr(figure, 'aria-busy', String(Boolean(pending)));
    const known = (t) => state.positions && t !== null && t !== undefined;
    const thresholds = [
      ...(paired && known(threshold) ? [{ name: 'word', value: threshold, color: shade.wordColor, who: word }] : []),
      ...(known(meanThreshold) ? [{ name: 'mean', value: meanThreshold, color: shade.meanColor, who: 'mean' }] : []),
    ];
    // The marker and today's values move with every slider step.
    now.x = state.positions ? onAxis(state.scale) : null;
    const nowPoint = (label, f, radius, curve) => ({
      label, x: now.x, y: Math.max(f.cosine_distance ?? FLOOR, FLOOR), value: f.cosine_distance, allclose: f.allclose, radius, curve,
    });
    now.points = state.positions ? [
      ...(paired ? [nowPoint(word, pair, 6, 'word')] : []),
      nowPoint('sentence mean', result.mean, 5, 'mean'),
    ] : [];
    // The curves, shading and thresholds change only with these.
    const key = JSON.stringify([sel, word, paired, thresholds]);
    // While new words' sweep is on its way (from the sweep workers, a few
    // milliseconds after the keystroke), the curves drawn stay as they are
    // and only the marker moves: drawing them again without their
    // thresholds would cost the keystroke a whole draw that the new curves
    // replace a moment later.
    const waiting = !sweep && pending && drawn.sweep !== null;
    const changed = !waiting && ((sweep && sweep !== drawn.sweep) || key !== drawn.key);
    if (changed) {
      drawn = { sweep: sweep ?? drawn.sweep, key };
      w.label = word;
      if (sweep) {
        const curve = paired ? curveOf(sweep, 1 + sel) : null;
        const meanCurve = curveOf(sweep, 0);
        w.data = curve ? points(sweep.scales, curve) : [];
        m.data = points(sweep.scales, meanCurve);
        shade.ranges = curve ? trueRanges(sweep.scales, curve.close) : [];
        meanRanges = trueRanges(sweep.scales, meanCurve.close);
      }
      shade.thresholds = thresholds;
      // A readout stays with the pointer: a new sweep may have other points
      // (a coarse curve has 13, the full one 121).
      if (readout.index !== null) {
        readout.index = readout.at == null ? null : nearestIndex(m.data, readout.at);
        readout.lines = readout.index === null ? [] : readoutLines(chart.data.datasets, readout.index, FLOOR);
      }
    }
    if (changed) {
      base.later = true; // the copy for slider steps waits for the first one (basePlugin)
      try {
        chart.draw();
      } finally {
        base.later = false;
      }
    } else if (!waiting || fits(base, chart.canvas)) {
      markerOnly();
    } // (else the chart stays as drawn, its marker too, until the new curves come: no copy to move the marker on)
    table.update(sweep, sel, word, paired);

    // What the chart cannot say by itself.
    setHidden(overlay, state.positions);
    if (!state.positions) {
      // Flat at rounding level only where nothing else tells the two
      // sentences apart: the mask does, and so do words they do not share.
      setText(overlay.querySelector('.overlay-text'), state.causal
        ? 'Positional information is off, so the magnitude changes nothing and the lines are flat. ' +
          'They sit high because the causal mask already makes the outputs differ.'
        : !result.permutation
          ? 'Positional information is off, so the magnitude changes nothing and the lines are flat. ' +
            'They sit high because sentence B is not a reordering of sentence A: its other words change the outputs.'
          : 'Positional information is off: every magnitude gives identical outputs, so the lines ' +
            'lie flat at rounding level.');
    }
    const parts = [];
    if (coarse && sweep) {
      parts.push(`A first, coarse curve: ${sweep.scales.length} of ${SWEEP.count} magnitudes; the rest are being computed.`);
    }
    if (!paired) parts.push(`${word} has no partner in sentence B; only the sentence mean is drawn.`);
    const wordKnown = known(threshold) && paired;
    if (wordKnown && known(meanThreshold) && edgeOf(threshold) !== null && edgeOf(threshold) === edgeOf(meanThreshold)) {
      // (False, or True, all along for both: said once)
      parts.push(thresholdText(`${word} and for the sentence mean`, threshold));
    } else {
      // (said from the sweep drawn now: none while new words' sweep is on its way)
      if (wordKnown) parts.push(thresholdText(word, threshold, sweep ? againAbove(shade.ranges, threshold) : null));
      if (known(meanThreshold)) {
        parts.push(thresholdText('the sentence mean', meanThreshold, sweep ? againAbove(meanRanges, meanThreshold) : null));
      }
    }
    const dashed = thresholds.filter((t) => t.value >= SWEEP.lo && t.value <= SWEEP.hi).length;
    if (dashed) parts.push(`Dashed lines mark ${dashed === 1 ? 'this threshold' : 'these thresholds'}.`);
    if (state.positions && (state.scale < SWEEP.lo || state.scale > SWEEP.hi)) {
      parts.push(`The current magnitude, ${sig(state.scale)}, is off the plotted range; the marker sits at the edge.`);
    }
    parts.push('Distances of zero or below (pure rounding) are drawn on the bottom edge.');
    setText(caption, parts.join(' '));
    const label = `Line chart of the cosine distance between ${word} in sentence A and in ` +
      'sentence B, and between the sentence means, against the magnitude of the positional signal from ' +
      `1e-9 to 1000, both axes logarithmic. ${parts.slice(0, -1).join(' ')}`.trim();
    setAttr(canvas, 'aria-label', label);
  }

  function retheme() {
    applyTheme(chart.options, chart.data.datasets);
    base.valid = false;
    chart.update('none');
  }

  return { update, retheme, chart };
}
