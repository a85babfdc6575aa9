// checks/claims.mjs: a value with a claim ({{ x :.2f | expect < 8 }},
// resolve/claim.h) reads as the same value without it.
//
// For every value of the report whose source (in the site's
// manifest.json) has a claim:
//  - the page shows its text, as the manifest records it, in a value
//    (.ld-value) that is on screen: a box of some width, inside the
//    page's width;
//  - no claim leaks into the page: its text never holds "| expect" nor
//    the claim as written next to a value.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const manifests = new Map();
function entry(site, report) {
  if (!manifests.has(site)) {
    const file = join(site, 'manifest.json');
    manifests.set(site, existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null);
  }
  const m = manifests.get(site);
  return m ? m.reports.find((r) => r.slug === report) : null;
}

export default async function check(page, ctx) {
  if (ctx.kind && ctx.kind !== 'report') return [];
  const e = entry(ctx.site, ctx.report);
  if (!e) return [];
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const failures = [];
  const claimed = e.values.filter((v) => /\|\s*expect\b/.test(v.source));
  const shown = await page.$$eval('.ld-value', (els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    return { text: el.textContent, left: r.left, right: r.right, width: r.width };
  }));
  const pageWidth = await page.evaluate(() => document.documentElement.clientWidth);
  for (const v of claimed) {
    const hits = shown.filter((s) => s.text === v.text);
    if (!hits.length) {
      failures.push(`${where}: the value ${v.source} (${v.at}) does not show its text '${v.text}'`);
      continue;
    }
    const box = hits.find((s) => s.width > 0 && s.left >= 0 && s.right <= pageWidth + 0.5);
    if (!box)
      failures.push(`${where}: the value ${v.source} shows '${v.text}' off screen or with no width ` +
        `(${hits.map((s) => `${s.left.toFixed(1)}..${s.right.toFixed(1)}`).join(', ')} of ${pageWidth} px)`);
  }
  const text = await page.evaluate(() => document.body.innerText);
  if (/\|\s*expect\b/.test(text))
    failures.push(`${where}: a claim shows on the page: '${text.match(/.{0,30}\|\s*expect.{0,20}/s)[0]}'`);
  for (const c of e.claims || []) {
    const leak = shown.some((s) => s.text.includes(c.claim) && c.claim.length > 2);
    if (leak)
      failures.push(`${where}: the claim '${c.claim}' on ${c.expression} shows in a value`);
  }
  return failures;
}
