import { serveDir, launch, SITE } from '../browser/harness.mjs';
import { openPage, keystrokes, hashOf, percentile } from './browser.mjs';
const [n, d] = (process.env.WL ?? '16,64').split(',').map(Number);
const schemes = (process.env.SCHEMES ?? 'rope,sinusoidal').split(',');
const heads = (process.env.HEADS ?? '8').split(',').map(Number);
const throttle = Number(process.env.THR ?? 2), count = Number(process.env.N ?? 40);
const { server, origin } = await serveDir(SITE);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
for (const scheme of schemes) for (const h of heads) {
  const page = await openPage(context, `${origin}/?debug${hashOf(n, d, scheme, h)}`, throttle);
  const { times, firsts } = await keystrokes(page, count);
  const where = await page.evaluate(() => window.poslabDebug.sweeps());
  console.log(scheme, h, 'thr', throttle, 'full p50', percentile(times, 50).toFixed(1), 'p95', percentile(times, 95).toFixed(1), 'first p95', percentile(firsts, 95).toFixed(1), JSON.stringify(where));
  await page.close();
}
await browser.close(); server.close();
