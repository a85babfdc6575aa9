// overlay.mjs URL FILE OLD NEW
//
// Opens URL (a page `logdown serve` sends) in Debian's headless
// Chromium, then replaces OLD by NEW in FILE, NEW being an error, and
// checks the error overlay a reader then sees: it appears, it covers
// neither the site header nor the report's title (at 1280 and 390 px
// wide), and its close button removes it.  Exits 0 on success, 1 with
// a message naming what was measured.
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [url, file, oldText, newText] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--disable-quic'],
});
const overlaps = (a, b) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const box = (b) => `${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.width)}x${Math.round(b.height)}`;
let code = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.locator('h1').first().waitFor({ timeout: 5000 });
  writeFileSync(file, readFileSync(file, 'utf8').replace(oldText, newText));
  const overlay = page.locator('#__logdown-overlay');
  await overlay.waitFor({ state: 'visible', timeout: 5000 });
  const text = await overlay.innerText();
  if (!text.includes('error:'))
    throw new Error(`the overlay does not show the error: "${text.slice(0, 200)}"`);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    const o = await overlay.boundingBox();
    for (const sel of ['.ld-site-header', 'h1']) {
      const b = await page.locator(sel).first().boundingBox();
      if (b && overlaps(o, b))
        throw new Error(`at ${width} px the overlay (${box(o)}) covers ${sel} (${box(b)})`);
    }
  }
  await page.getByRole('button', { name: 'Close' }).click();
  const left = await overlay.count();
  if (left !== 0)
    throw new Error('the close button left the overlay on the page');
  console.log('ok: the overlay shows the error, leaves the header and title readable, and closes');
} catch (e) {
  console.error(`browser test failed: ${e.message}`);
  code = 1;
} finally {
  await browser.close();
}
process.exit(code);
