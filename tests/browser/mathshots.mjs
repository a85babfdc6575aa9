// mathshots.mjs URL OUTDIR: a screenshot of each <math> element of the
// page, in order, as OUTDIR/NNN.png (3 device pixels a CSS pixel), for
// tests/e2e/test_mathpdf.c to compare with the PDF's math.
import { chromium } from 'playwright-core';
const [url, outdir] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 3 });
await page.goto(url);
await page.evaluate(() => document.fonts.ready);
const maths = page.locator('math');
const n = await maths.count();
for (let i = 0; i < n; i++)
  await maths.nth(i).screenshot({ path: `${outdir}/${String(i).padStart(3, '0')}.png` });
console.log(n);
await browser.close();
