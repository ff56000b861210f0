// readout.js - the chart's hover readout: point at the chart (or touch it)
// and a box gives the magnitude under the pointer and each curve's cosine
// distance and np.allclose verdict there. It replaces Chart.js's Tooltip
// plugin (15 KB of the page) with what this one chart needs; it draws on
// the canvas after everything else, without a chart.update().
import { sig, powerOfTen } from '../app/format.js';

// The index of the point whose magnitude is nearest to x on a log axis.
export function nearestIndex(points, x) {
  let best = null;
  let bestGap = Infinity;
  points.forEach((p, i) => {
    const gap = Math.abs(Math.log(p.x / x));
    if (gap < bestGap) { best = i; bestGap = gap; }
  });
  return best;
}

// The readout's text for point i of the chart's datasets; floor: the value
// below which points are drawn on the floor.
export function readoutLines(datasets, i, floor) {
  const lines = [`magnitude ${sig(datasets[0].data[i]?.x ?? datasets[1].data[i].x)}`];
  for (const d of datasets) {
    const p = d.data[i];
    if (!p || p.value === null || p.value === undefined) continue;
    const floored = p.value < floor ? ` (drawn at ${powerOfTen(Math.log10(floor))})` : '';
    const verdict = p.allclose === undefined ? '' : `, np.allclose ${p.allclose ? 'True' : 'False'}`;
    lines.push(`${d.label}: ${sig(p.value)}${floored}${verdict}`);
  }
  return lines;
}

// readout: {index, at, lines, font, fontSize, text, background, border}: the
// point shown (null: none), the pointer's magnitude and the text, which
// tests read; the rest is the theme, set by plot.js. floor as for
// readoutLines.
export function readoutPlugin(readout, floor) {
  return {
    id: 'poslabReadout',
    afterEvent(chart, args) {
      const { event } = args;
      const points = chart.data.datasets[1].data; // the mean: a point at every magnitude
      const inside = args.inChartArea && event.type !== 'mouseout' && points.length > 0;
      readout.at = inside ? chart.scales.x.getValueForPixel(event.x) : null; // the pointer's magnitude
      const index = inside ? nearestIndex(points, readout.at) : null;
      if (index === readout.index) return;
      readout.index = index;
      readout.lines = index === null ? [] : readoutLines(chart.data.datasets, index, floor);
      args.changed = true; // Chart.js redraws, without a layout
    },
    afterDraw(chart) {
      const { ctx, chartArea: area, scales: { x, y } } = chart;
      const { index, lines } = readout;
      const datasets = chart.data.datasets;
      if (!area || index === null || !datasets[1].data[index]) return;
      const px = x.getPixelForValue(datasets[1].data[index].x);
      ctx.save();
      // the hairline and a ring on each curve
      ctx.strokeStyle = readout.border;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(px, area.top);
      ctx.lineTo(px, area.bottom);
      ctx.stroke();
      for (const d of datasets) {
        const p = d.data[index];
        if (!p || p.y === null) continue;
        ctx.fillStyle = readout.background;
        ctx.strokeStyle = d.borderColor;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(px, y.getPixelForValue(p.y), 4, 0, 2 * Math.PI);
        ctx.fill();
        ctx.stroke();
      }
      // the box, beside the hairline on whichever side has room; on a narrow
      // chart (a phone) the text shrinks until the box fits inside the plot
      const pad = 8;
      ctx.font = readout.font;
      const natural = Math.max(...lines.map((l) => ctx.measureText(l).width));
      const size = Math.max(9, Math.min(readout.fontSize, Math.floor(readout.fontSize * (area.width - 2 * pad - 2) / natural)));
      if (size !== readout.fontSize) ctx.font = readout.font.replace(`${readout.fontSize}px`, `${size}px`);
      const lineHeight = size + 5;
      const width = Math.max(...lines.map((l) => ctx.measureText(l).width)) + 2 * pad;
      const height = lines.length * lineHeight + 2 * pad - 5;
      const fits = (x) => x >= area.left && x + width <= area.right;
      const left = fits(px + 12) ? px + 12 : fits(px - 12 - width) ? px - 12 - width : area.left;
      const top = area.top + 8;
      ctx.fillStyle = readout.background;
      ctx.strokeStyle = readout.border;
      ctx.fillRect(left, top, width, height);
      ctx.strokeRect(left + 0.5, top + 0.5, width - 1, height - 1);
      ctx.fillStyle = readout.text;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'top';
      lines.forEach((line, k) => ctx.fillText(line, left + pad, top + pad + k * lineHeight));
      ctx.restore();
    },
  };
}
