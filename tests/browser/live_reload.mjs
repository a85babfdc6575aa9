// live_reload.mjs URL FILE OLD NEW
//
// Opens URL in Debian's headless Chromium, waits for OLD to show, then
// replaces OLD by NEW in FILE (a report's source) and waits for NEW to
// appear without reloading the page by hand: logdown serve must rebuild
// and the page reload itself.  Exits 0 on success, 1 with a message.
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [url, file, oldText, newText] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--disable-quic'],
});
let code = 0;
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.getByText(oldText).first().waitFor({ timeout: 5000 });
  let navigations = 0;
  page.on('framenavigated', () => { navigations++; });
  writeFileSync(file, readFileSync(file, 'utf8').replace(oldText, newText));
  await page.getByText(newText).first().waitFor({ timeout: 5000 });
  if (navigations < 1)
    throw new Error('the new text appeared without a reload?');
  console.log(`ok: "${newText}" shown after ${navigations} reload(s)`);
} catch (e) {
  console.error(`browser test failed: ${e.message}`);
  code = 1;
} finally {
  await browser.close();
}
process.exit(code);
