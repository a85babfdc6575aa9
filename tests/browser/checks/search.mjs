// search.mjs: the search box (static/search.js over search-index.js), on
// every report page and the site index, opened from file:// as layout.mjs
// opens them.
//
// On a report page: the box shows (scripts run) and fits the screen; the
// text of the first heading of the content, typed, lists that heading's
// section of this report; the first value the prose shows (a number),
// typed, lists a section of this report; the results drop down inside
// the screen; ArrowDown moves to the heading's result (aria-selected) and
// Enter opens it (at 390 px dark and 1280 px light): the report's page, at
// the heading's id when the heading has one, the heading then in view.
// Each keystroke's search takes under 50 ms (the best of five typings).
// Without JavaScript the box is not shown.
// On the site index: a word of a report's title lists that report, and
// Enter opens it.
import { fileURLToPath } from 'node:url';

const SLOW_MS = 50;

// Types q into the box one key at a time; the results as shown, and the
// slowest keystroke's search (the input handler, results written).  One
// round trip to the page: a busy machine runs this on every page view.
export async function typeQuery(page, q) {
  return page.evaluate(async (text) => {
    const box = document.querySelector('.ld-search');
    const input = box.querySelector('.ld-search-input');
    input.focus();
    for (let i = 0; i < 200 && !box.hasAttribute('data-ready'); i++)
      await new Promise((r) => setTimeout(r, 50));
    // typed five times, each keystroke's best kept: a busy machine's
    // pauses are not the search's
    const best = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 1; i <= text.length; i++) {
        input.value = text.slice(0, i);
        const t0 = performance.now();
        input.dispatchEvent(new Event('input'));
        const ms = performance.now() - t0;
        best[i] = round ? Math.min(best[i], ms) : ms;
      }
    }
    const results = [...document.querySelectorAll('.ld-search-results [role=option]')].map((l) => ({
      href: l.querySelector('a').getAttribute('href'),
      abs: l.querySelector('a').href,
      report: l.querySelector('.ld-search-report').textContent,
      section: l.querySelector('.ld-search-section')?.textContent || '',
      value: l.querySelector('.ld-search-value')?.textContent || '',
      elements: l.querySelectorAll('*').length,
    }));
    const r = document.querySelector('.ld-search-results').getBoundingClientRect();
    return { slowest: Math.max(0, ...best.slice(1)), results,
             geo: { left: r.left, right: r.right, inner: window.innerWidth, shown: r.height > 0 } };
  }, q);
}

function place(abs) {
  const u = new URL(abs);
  return { path: fileURLToPath(u.href.split('#')[0]), hash: decodeURIComponent(u.hash.slice(1)) };
}

async function noScript(page, ctx, where) {
  if (ctx.width !== 1280 || ctx.scheme !== 'light') return [];
  const context = await page.context().browser().newContext({ javaScriptEnabled: false });
  const p = await context.newPage();
  await p.goto(ctx.url);
  const shown = await p.isVisible('.ld-search');
  await context.close();
  return shown ? [`${where}: without JavaScript the search box shows (it cannot search)`] : [];
}

async function common(page, ctx, where) {
  const fails = [];
  const box = await page.evaluate(() => {
    const b = document.querySelector('.ld-search');
    if (!b) return null;
    const r = b.getBoundingClientRect();
    return { hidden: b.hidden, left: r.left, right: r.right, width: r.width, inner: window.innerWidth };
  });
  if (!box) return [`${where}: no search box (.ld-search)`];
  if (box.hidden) fails.push(`${where}: the search box is still hidden with JavaScript on`);
  if (box.left < 0 || box.right > box.inner || box.width < 120)
    fails.push(`${where}: the search box is at ${box.left}..${box.right} px (${box.width} px wide) in ${box.inner} px`);
  fails.push(...await noScript(page, ctx, where));
  return fails;
}

function checkTyped(where, q, t) {
  const fails = [];
  if (t.slowest > SLOW_MS)
    fails.push(`${where}: typing "${q}": a keystroke's search took ${t.slowest.toFixed(1)} ms (over ${SLOW_MS})`);
  if (t.results.length && (t.geo.left < 0 || t.geo.right > t.geo.inner + 0.5))
    fails.push(`${where}: typing "${q}": the results are at ${t.geo.left}..${t.geo.right} px in ${t.geo.inner} px`);
  return fails;
}

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const fails = await common(page, ctx, where);
  if (fails.some((f) => f.includes('no search box'))) return fails;
  const here = fileURLToPath(ctx.url);
  const probe = await page.evaluate(() => {
    const h = document.querySelector('.ld-content h2, .ld-content h3');
    const v = [...document.querySelectorAll('.ld-content .ld-value')]
      .find((e) => !e.closest('math, .ld-log, pre') && /\d/.test(e.textContent));
    // the heading's words as the reader sees them, without its number
    // (numbered sections) and its link to itself (the "#")
    const words = h && h.cloneNode(true);
    words?.querySelectorAll('.ld-anchor, .ld-secno').forEach((e) => e.remove());
    return { heading: words ? words.textContent.trim() : null, id: h ? h.id : '', value: v ? v.textContent.trim() : null };
  });
  if (probe.value) {
    const t = await typeQuery(page, probe.value);
    fails.push(...checkTyped(where, probe.value, t));
    if (!t.results.some((r) => place(r.abs).path === here))
      fails.push(`${where}: the value "${probe.value}" the page shows, typed, does not list this report ` +
                 `(${t.results.length} results: ${t.results.slice(0, 3).map((r) => r.href).join(', ')})`);
  }
  if (!probe.heading) return fails;
  const t = await typeQuery(page, probe.heading);
  fails.push(...checkTyped(where, probe.heading, t));
  const at = t.results.findIndex((r) => place(r.abs).path === here && r.section.replace(/^\u203a\u00a0/, '') === probe.heading);
  if (at < 0) {
    fails.push(`${where}: the heading "${probe.heading}", typed, does not list its section ` +
               `(${t.results.length} results: ${t.results.slice(0, 3).map((r) => `${r.report} ${r.section}`).join('; ')})`);
    return fails;
  }
  // following it, at two settings of the four: a page load each
  if (!(ctx.width === 390 && ctx.scheme === 'dark') && !(ctx.width === 1280 && ctx.scheme === 'light'))
    return fails;
  for (let i = 0; i <= at; i++) await page.keyboard.press('ArrowDown');
  const selected = await page.$$eval('.ld-search-results [role=option]',
    (ls) => ls.findIndex((l) => l.getAttribute('aria-selected') === 'true'));
  if (selected !== at)
    fails.push(`${where}: after ${at + 1} ArrowDown the selected result is #${selected}, not #${at}`);
  await Promise.all([page.waitForFunction((h) => location.href !== h, page.url()).catch(() => {}),
                     page.keyboard.press('Enter')]);
  await page.waitForLoadState('load');
  const landed = place(page.url());
  if (landed.path !== here)
    fails.push(`${where}: Enter on the heading's result opened ${page.url()}, not this report`);
  else if (probe.id && landed.hash !== probe.id)
    fails.push(`${where}: Enter on the heading's result landed at #${landed.hash}, not #${probe.id}`);
  else if (probe.id) {
    const { top, inner } = await page.evaluate((id) => ({
      top: document.getElementById(id).getBoundingClientRect().top, inner: window.innerHeight }), probe.id);
    if (top < -1 || top > inner)
      fails.push(`${where}: the section "${probe.heading}" is at ${top} px after following its result, not in view`);
  }
  return fails;
}

export async function checkIndex(page, ctx) {
  const where = `index at ${ctx.width} px, ${ctx.scheme}`;
  const fails = await common(page, ctx, where);
  if (fails.some((f) => f.includes('no search box'))) return fails;
  const first = await page.evaluate(() => {
    const a = document.querySelector('.ld-entry-title a');
    return a ? { title: a.textContent.trim(), href: a.href } : null;
  });
  if (!first) return fails;
  const word = first.title.split(/\s+/).find((w) => w.length > 4) || first.title;
  const t = await typeQuery(page, word);
  fails.push(...checkTyped(where, word, t));
  const at = t.results.findIndex((r) => r.abs === first.href);
  if (at < 0) {
    fails.push(`${where}: "${word}" from the title "${first.title}" does not list that report's top`);
    return fails;
  }
  for (let i = 0; i <= at; i++) await page.keyboard.press('ArrowDown');
  await Promise.all([page.waitForURL(first.href).catch(() => {}), page.keyboard.press('Enter')]);
  if (page.url() !== first.href)
    fails.push(`${where}: Enter on "${first.title}" opened ${page.url()}`);
  return fails;
}
