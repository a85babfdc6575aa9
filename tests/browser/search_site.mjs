// search_site.mjs URL WIDTH SCHEME QUERY...
//
// Opens URL (a page of a built site, from file://) in headless Chromium,
// types each query into its search box as checks/search.mjs does, and
// prints what a reader sees, for tests/e2e/test_search.c to compare:
//
//   "QUERY": N results, slowest keystroke X ms
//   HREF | REPORT | SECTION | VALUE | ELEMENTS
//
// (ELEMENTS: the elements inside the result, 3 to 5: a link and its
// spans; markup in a heading stays text).  Exits 2 when the page has no
// search box.
import { chromium } from 'playwright-core';
import { typeQuery } from './checks/search.mjs';

const [url, width, scheme, ...queries] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--allow-file-access-from-files'],
});
let rc = 0;
try {
  const context = await browser.newContext({ viewport: { width: +width, height: 844 }, colorScheme: scheme });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  if (!(await page.$('.ld-search'))) {
    console.log('no search box');
    rc = 2;
  } else {
    for (const q of queries) {
      const t = await typeQuery(page, q);
      console.log(`"${q}": ${t.results.length} results, slowest keystroke ${t.slowest.toFixed(1)} ms`);
      for (const r of t.results)
        console.log(`${r.href} | ${r.report} | ${r.section} | ${r.value} | ${r.elements}`);
    }
  }
  for (const e of errors) console.log(`page error: ${e}`);
} finally {
  await browser.close();
}
process.exit(rc);
