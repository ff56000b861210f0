// Build input, not part of the site: `make site` bundles Chart.js with only
// what plot.js draws (a line chart on logarithmic axes; the legend is HTML
// and the hover readout is web/readout.js) into vendor/chart.min.js, which
// defines window.Chart for the page: 119 KB instead of the full 210 KB UMD build.
import {
  Chart, LineController, LineElement, PointElement, LinearScale, LogarithmicScale,
} from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale);
window.Chart = Chart;
