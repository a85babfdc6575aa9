// shots.mjs OUTDIR URL... : full-page screenshots at 390 and 1280 px, light and dark
import { chromium } from 'playwright-core';
const [outdir, ...urls] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
for (const url of urls) {
  const name = url.replace(/^.*?\/\/[^/]*\//, '').replace(/[^a-z0-9]+/gi, '_') || 'index';
  for (const width of [390, 1280]) for (const scheme of ['light', 'dark']) {
    const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
    await page.goto(url);
    await page.screenshot({ path: `${outdir}/${name}-${width}-${scheme}.png`, fullPage: true });
    await page.close();
  }
}
await browser.close();
