import { serveDir, launch, SITE } from '../browser/harness.mjs';
const { server, origin } = await serveDir(SITE);
const browser = await launch();
const page = await browser.newPage();
await page.goto(`${origin}/`);
const out = await page.evaluate(async () => {
  const { createLab } = await import('./poslab.js');
  const lab = await createLab();
  const W = Array.from({ length: 12 }, (_, i) => `c${i}`);
  const cfg = { sentence_a: W.join(' '), sentence_b: [...W].reverse().join(' '), dim: 32, heads: 2, scheme: 'random', scale: 0.5, sweep: { lo: 1e-9, hi: 1e3, count: 41 } };
  const t = [];
  for (let i = 0; i < 40; i++) { const t0 = performance.now(); lab.run(cfg); t.push((performance.now() - t0).toFixed(2)); if (i % 10 == 9) await new Promise((r) => setTimeout(r, 20)); }
  return t.join(' ');
});
console.log(out);
await browser.close(); server.close();
