// layout.mjs SITE [REPORT...]
//
// Looks at a built site the way its readers do: every report page (and the
// first log page of each report, and the site index) in Debian's headless
// Chromium at 390 and 1280 px wide, in light and dark mode.  For each
// report page it calls every module in checks/ (`export default async
// function check(page, ctx)`, returning failure strings); a module may also
// export `checkLog` and `checkIndex` for log pages and the site index.
// The checks of this file itself apply to every page.
//
// The log pages looked at are the first two each report links to.
// Exits 0 when nothing failed, 1 with one line per failure.  With
// SHOTS=DIR it also saves a viewport screenshot of each page and setting.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [site, ...only] = process.argv.slice(2);
if (!site || !existsSync(join(site, 'index.html'))) {
  console.error('usage: node layout.mjs SITE [REPORT...]  (SITE: a built site with index.html)');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const checkDir = join(here, 'checks');
const modules = [];
for (const f of readdirSync(checkDir).filter((f) => f.endsWith('.mjs')).sort())
  modules.push({ name: f, mod: await import(pathToFileURL(join(checkDir, f)).href) });

// Report folders: those with an index.html, except static/.
const reports = readdirSync(site, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'static' && existsSync(join(site, d.name, 'index.html')))
  .map((d) => d.name)
  .filter((r) => only.length === 0 || only.includes(r))
  .sort();

const pages = [{ kind: 'index', report: '', file: join(site, 'index.html') }];
for (const report of reports) {
  pages.push({ kind: 'report', report, file: join(site, report, 'index.html') });
  // The first two log pages the report's values link to.
  const html = readFileSync(join(site, report, 'index.html'), 'utf8');
  const linked = new Set([...html.matchAll(/href="(logs\/[^"#]+\.html)#/g)].map((m) => m[1]));
  for (const rel of [...linked].slice(0, 2))
    pages.push({ kind: 'log', report, file: join(site, report, decodeURI(rel)) });
}

// Checks that hold on every page: the page never scrolls sideways, and
// no text is smaller than 9 px.
async function common(page, ctx) {
  const where = `${ctx.kind} ${ctx.report || 'index'} at ${ctx.width} px ${ctx.scheme}`;
  const fails = [];
  const m = await page.evaluate(() => {
    const doc = document.scrollingElement;
    let smallest = null;
    for (const el of document.body.querySelectorAll('*')) {
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
      if (!own || el.getClientRects().length === 0) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (smallest === null || size < smallest.size)
        smallest = { size, text: el.textContent.trim().slice(0, 40), tag: el.tagName.toLowerCase() };
    }
    return { scroll: doc.scrollWidth, inner: window.innerWidth, smallest };
  });
  if (m.scroll > m.inner)
    fails.push(`${where}: the page scrolls sideways (${m.scroll} px of content in ${m.inner} px)`);
  if (m.smallest && m.smallest.size < 9)
    fails.push(`${where}: text "${m.smallest.text}" in <${m.smallest.tag}> is ${m.smallest.size} px (under 9)`);
  return fails;
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--allow-file-access-from-files'],
});
const failures = [];
let looked = 0;
try {
  for (const p of pages) for (const width of [390, 1280]) for (const scheme of ['light', 'dark']) {
    const context = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme });
    const page = await context.newPage();
    const url = pathToFileURL(p.file).href;
    await page.goto(url);
    const ctx = { width, scheme, report: p.report, url, site, kind: p.kind };
    failures.push(...await common(page, ctx));
    for (const { name, mod } of modules) {
      const fn = p.kind === 'report' ? mod.default : p.kind === 'log' ? mod.checkLog : mod.checkIndex;
      if (!fn) continue;
      if (page.url() !== url) await page.goto(url);
      try {
        failures.push(...(await fn(page, ctx)).map((f) => `${name}: ${f}`));
      } catch (e) {
        failures.push(`${name}: ${p.kind} ${p.report} at ${width} px ${scheme}: the check threw: ${e.message}`);
      }
    }
    if (process.env.SHOTS) {
      if (page.url() !== url) await page.goto(url);
      const base = `${p.report || 'index'}-${p.kind}-${width}-${scheme}.png`;
      await page.screenshot({ path: join(process.env.SHOTS, base) });
    }
    looked++;
    await context.close();
  }
} finally {
  await browser.close();
}
for (const f of failures) console.error(f);
console.log(`${looked} page views of ${pages.length} pages with ${modules.length} check module(s): ` +
            `${failures.length} failure(s)`);
process.exit(failures.length ? 1 : 0);
