// sections.mjs: headings a reader can link to, and the contents.
//
// Every heading of a report has an id and a link to itself (.ld-anchor,
// href "#id"), shown on hover at 1280 px and in view, faint, at 390 px
// (no hover on a phone).  A report with contents: at 1280 px the rail is
// shown right of the report column, inside the window, never over the
// text, the column keeps its 46rem (736 px), the folded list is hidden;
// clicking a rail link (the last section's) brings its heading into the
// window and the rail then marks it (aria-current), and scrolling back
// to the top marks the first section again.  At 390 px the rail is hidden and the
// folded <details> list is shown, and opens.  A heading's own link takes
// the window to it.
export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const failures = [];
  const heads = await page.evaluate(() => [...document.querySelectorAll('.ld-content :is(h1,h2,h3,h4,h5,h6)')]
    .map((h) => {
      const a = h.querySelector(':scope > a.ld-anchor');
      return { id: h.id, text: h.textContent, href: a && a.getAttribute('href'),
               opacity: a ? Number(getComputedStyle(a).opacity) : -1 };
    }));
  for (const h of heads) {
    if (!h.id) failures.push(`${where}: heading "${h.text}" has no id`);
    else if (h.href !== `#${h.id}`) failures.push(`${where}: heading "${h.text}" has no link to #${h.id} (${h.href})`);
    if (ctx.width === 390 && h.opacity <= 0)
      failures.push(`${where}: heading "${h.text}": its link is invisible on a phone (opacity ${h.opacity})`);
    if (ctx.width === 1280 && h.opacity !== 0)
      failures.push(`${where}: heading "${h.text}": its link shows without hover (opacity ${h.opacity})`);
  }
  if (heads.length && ctx.width === 1280) {
    // hovering shows the link
    const sel = `[id="${heads[0].id}"]`;
    await page.hover(sel);
    const op = await page.evaluate((s) => Number(getComputedStyle(document.querySelector(`${s} > .ld-anchor`)).opacity), sel);
    if (op !== 1) failures.push(`${where}: hovering "${heads[0].text}" leaves its link at opacity ${op}`);
  }
  const m = await page.evaluate(() => {
    const box = (e) => {
      if (!e) return null;
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, w: r.width, h: r.height,
               shown: getComputedStyle(e).display !== 'none' && r.width > 0 };
    };
    return { rail: box(document.querySelector('.ld-toc-rail')),
             fold: box(document.querySelector('.ld-toc')),
             report: box(document.querySelector('.ld-report')),
             content: box(document.querySelector('.ld-content')),
             vw: document.documentElement.clientWidth,
             sw: document.documentElement.scrollWidth };
  });
  if (!m.rail) return failures;
  if (m.sw > m.vw) failures.push(`${where}: the page scrolls sideways (${m.sw} > ${m.vw} px)`);
  if (ctx.width === 1280) {
    if (!m.rail.shown) failures.push(`${where}: the contents rail is hidden`);
    if (m.fold.shown) failures.push(`${where}: the folded contents show beside the rail`);
    if (Math.abs(m.report.w - 736) > 0.5) failures.push(`${where}: the report column is ${m.report.w} px, not 736`);
    if (m.rail.left < m.content.right) failures.push(`${where}: the rail (left ${m.rail.left}) overlaps the text (right ${m.content.right})`);
    if (m.rail.right > m.vw) failures.push(`${where}: the rail ends at ${m.rail.right} px, past the window (${m.vw})`);
    const links = await page.$$('.ld-toc-rail a');
    if (links.length < 2) return [...failures, `${where}: the rail lists ${links.length} section(s)`];
    const target = links[links.length - 1];
    const href = await target.getAttribute('href');
    await target.click();
    await page.waitForTimeout(150);
    const top = await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top,
                                    decodeURIComponent(href.slice(1)));
    if (top < -1 || top > 844 - 40)
      failures.push(`${where}: clicking "${href}" in the rail leaves its heading at ${top} px`);
    try {
      await page.waitForFunction((h) => document.querySelector('.ld-toc-rail a[aria-current]')?.getAttribute('href') === h,
                                 href, { timeout: 2000 });
    } catch {
      const cur = await page.evaluate(() => document.querySelector('.ld-toc-rail a[aria-current]')?.getAttribute('href'));
      failures.push(`${where}: after scrolling to ${href} the rail marks ${cur}`);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    const first = await links[0].getAttribute('href');
    try {
      await page.waitForFunction((h) => document.querySelector('.ld-toc-rail a[aria-current]')?.getAttribute('href') === h,
                                 first, { timeout: 2000 });
    } catch {
      const cur = await page.evaluate(() => document.querySelector('.ld-toc-rail a[aria-current]')?.getAttribute('href'));
      failures.push(`${where}: back at the top the rail marks ${cur}, not ${first}`);
    }
  } else {
    if (m.rail.shown) failures.push(`${where}: the contents rail shows at ${ctx.width} px`);
    if (!m.fold.shown) failures.push(`${where}: the folded contents are hidden`);
    await page.click('.ld-toc summary');
    const open = await page.evaluate(() => document.querySelector('.ld-toc details').open);
    if (!open) failures.push(`${where}: tapping "Contents" does not open the list`);
    // a heading's own link takes the window to it
    const last = heads[heads.length - 1];
    await page.click(`[id="${last.id}"] > .ld-anchor`);
    await page.waitForTimeout(150);
    const top = await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top, last.id);
    const hash = await page.evaluate(() => decodeURIComponent(location.hash));
    if (hash !== `#${last.id}` || top < -1 || top > 844 - 40)
      failures.push(`${where}: the link of "${last.text}" leads to ${hash}, its heading at ${top} px`);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return failures;
}
