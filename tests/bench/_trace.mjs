import { serveDir, launch, SITE } from '../browser/harness.mjs';
import { openPage, hashOf } from './browser.mjs';
const [n, d] = (process.env.WL ?? '16,64').split(',').map(Number);
const scheme = process.env.S ?? 'random', h = Number(process.env.H ?? 1), throttle = Number(process.env.THR ?? 1);
const { server, origin } = await serveDir(SITE);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
await context.addInitScript(() => {
  window.__log = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, ...r) { window.__log.push(['post', performance.now(), Object.keys(m.request ?? m).join(',')]); return post.call(this, m, ...r); };
  const add = Worker.prototype.addEventListener;
  Worker.prototype.addEventListener = function (type, f, ...r) {
    if (type === 'message') return add.call(this, type, (e) => { window.__log.push(['recv', performance.now(), Object.keys(e.data).join(',') + (e.data.partial ? ':' + Object.keys(e.data.partial).join('/') + (e.data.partial.ms ? ' ' + e.data.partial.ms.toFixed(1) : '') : '')]); return f(e); }, ...r);
    return add.call(this, type, f, ...r);
  };
});
const page = await openPage(context, `${origin}/?debug${hashOf(n, d, scheme, h)}`, throttle);
await page.waitForTimeout(2500);
const out = await page.evaluate(async () => {
  const input = document.getElementById('sentence-a');
  const chart = window.Chart.getChart(document.querySelector('canvas'));
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const draw = chart.draw;
  chart.draw = function (...a) { const o = draw.apply(this, a); window.__log.push(['draw', performance.now(), this.data.datasets[1].data.length]); return o; };
  const res = [];
  for (let i = 0; i < 6; i++) {
    await frame(); await frame();
    window.__log = [];
    const t0 = performance.now();
    window.__log.push(['key', t0, '']);
    input.value = `k${i.toString(36).padStart(2, '0')}` + input.value.slice(3);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    window.__log.push(['handled', performance.now(), '']);
    for (let f = 0; f < 10; f++) await frame();
    res.push(window.__log.map(([k, t, x]) => `${k}@${(t - t0).toFixed(1)}${x ? '(' + x + ')' : ''}`).join(' '));
  }
  return res;
});
console.log(out.join('\n'));
await browser.close(); server.close();
