// Build input, not part of the site: `make site` bundles Chart.js with only
// what plot.js draws (a line chart on logarithmic axes with a tooltip; the
// legend is HTML) into vendor/chart.min.js, which defines window.Chart for
// the page: 150 KB instead of the full 210 KB UMD build.
import {
  Chart, LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Tooltip,
} from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Tooltip);
window.Chart = Chart;
