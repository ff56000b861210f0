// Build input, not part of the site: `make site` bundles Chart.js with only
// what plot.js draws (a line chart on logarithmic axes, legend, tooltip)
// into vendor/chart.min.js, which defines window.Chart for the page. The
// full UMD build is 210 KB; this is about half.
import {
  Chart, LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Tooltip,
} from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Tooltip);
window.Chart = Chart;
