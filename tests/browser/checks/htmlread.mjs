// htmlread.mjs: what a reader sees of tables, log lines, the click-through
// to a value's line, and the header bar (issue 17, items 2 to 5).
//
// Report pages: the page never scrolls sideways; every table caption is
// inside the viewport and in no scrolling box; no header cell breaks a
// word; a click on a value lands on its line a third of the way down the
// log page, the line tinted and the value marked; a click on "Table N" or
// "Figure N" lands the same way; the site title and the links share one
// row.  Log pages: lines wrap inside the log's box, the title names the
// report, the line count and size show.  The index: the header's row.

// The header bar: the title left, every link right of it on the same row,
// all inside the viewport.
async function headerRow(page, where) {
  const m = await page.evaluate(() => {
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: el.textContent.trim() };
    };
    const title = document.querySelector('.ld-site-title');
    const links = [...document.querySelectorAll('.ld-nav-link')];
    return {
      inner: window.innerWidth,
      title: title ? box(title) : null,
      links: links.map(box),
      shown: links.map((l) => getComputedStyle(l).display !== 'none' && l.getClientRects().length > 0),
    };
  });
  const fails = [];
  if (!m.title) return [`${where}: no site title in the header`];
  m.links.forEach((l, i) => {
    const mid = (l.top + l.bottom) / 2;
    if (!m.shown[i])
      fails.push(`${where}: the header link "${l.text}" is hidden`);
    else if (mid < m.title.top || mid > m.title.bottom)
      fails.push(`${where}: the header link "${l.text}" is not on the title's row ` +
                 `(its middle at ${mid.toFixed(1)} px, the title from ${m.title.top.toFixed(1)} to ${m.title.bottom.toFixed(1)})`);
    else if (l.left < m.title.right)
      fails.push(`${where}: the header link "${l.text}" (left ${l.left.toFixed(1)} px) is not right of the title (right ${m.title.right.toFixed(1)} px)`);
    if (l.right > m.inner + 0.5 || l.left < -0.5)
      fails.push(`${where}: the header link "${l.text}" spans ${l.left.toFixed(1)}-${l.right.toFixed(1)} px, outside the ${m.inner} px viewport`);
  });
  return fails;
}

async function noSidewaysScroll(page, where) {
  const m = await page.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth }));
  return m.scroll > m.inner ? [`${where}: the page scrolls sideways (${m.scroll} px of content in ${m.inner} px)`] : [];
}

// Captions of tables: in the viewport, in no box that scrolls or clips,
// their text not cut.
async function captions(page, where) {
  const bad = await page.evaluate(() => {
    const out = [];
    const inner = window.innerWidth;
    for (const cap of document.querySelectorAll('.ld-table > figcaption, caption')) {
      const r = cap.getBoundingClientRect();
      const text = cap.textContent.trim().slice(0, 40);
      if (r.left < -0.5 || r.right > inner + 0.5)
        out.push(`caption "${text}" spans ${r.left.toFixed(1)}-${r.right.toFixed(1)} px, outside the ${inner} px viewport`);
      if (cap.scrollWidth > cap.clientWidth + 1)
        out.push(`caption "${text}" is cut: ${cap.scrollWidth} px of text in ${cap.clientWidth} px`);
      for (let a = cap.parentElement; a && a !== document.body; a = a.parentElement) {
        const ox = getComputedStyle(a).overflowX;
        if (ox !== 'visible') {
          out.push(`caption "${text}" is inside a box with overflow-x: ${ox} (<${a.tagName.toLowerCase()} class="${a.className}">)`);
          break;
        }
      }
    }
    return out;
  });
  return bad.map((b) => `${where}: ${b}`);
}

// Header cells: every word on one line (a word broken in two gives a
// range of two rectangles on two rows).
async function headerWords(page, where) {
  const bad = await page.evaluate(() => {
    const out = [];
    for (const th of document.querySelectorAll('.ld-content th')) {
      if (th.getClientRects().length === 0) continue;
      const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of n.textContent.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1)
            out.push(`the header word "${m[0]}" is broken over ${tops.size} lines ` +
                     `(its cell ${th.getBoundingClientRect().width.toFixed(1)} px wide)`);
        }
      }
    }
    return out;
  });
  return bad.map((b) => `${where}: ${b}`);
}

// Where the page's target is, as a fraction of the viewport's height,
// whether the page could have scrolled it lower or higher, and how it is
// marked.
async function landing(page) {
  return page.evaluate(() => {
    const t = document.querySelector(':target');
    if (!t) return null;
    const line = t.closest('.ld-line') || t;
    const r = line.getBoundingClientRect();
    const doc = document.scrollingElement;
    const bg = getComputedStyle(line).backgroundColor;
    const pre = line.closest('pre');
    const preBg = pre ? getComputedStyle(pre).backgroundColor : getComputedStyle(document.body).backgroundColor;
    const out = {
      id: t.id,
      tag: t.tagName.toLowerCase(),
      frac: r.top / window.innerHeight,
      atTop: window.scrollY <= 0,
      atBottom: window.scrollY + window.innerHeight >= doc.scrollHeight - 1,
      bg, preBg,
      shadow: getComputedStyle(line).boxShadow,
      accent: getComputedStyle(document.documentElement).getPropertyValue('--ld-accent').trim(),
    };
    if (t.tagName === 'MARK') {
      const mr = t.getBoundingClientRect();
      out.mark = { bg: getComputedStyle(t).backgroundColor, text: t.textContent, left: mr.left, right: mr.right,
                   preRight: pre ? pre.getBoundingClientRect().right : window.innerWidth };
    }
    return out;
  });
}

const transparent = (c) => c === 'transparent' || /rgba\([^)]*,\s*0\)$/.test(c);

function judgeLanding(l, what, where, wantTint) {
  if (!l) return [`${where}: after clicking ${what}, nothing is the page's :target`];
  const fails = [];
  const pct = (l.frac * 100).toFixed(1);
  if (l.frac < 0.25 && !l.atTop)
    fails.push(`${where}: after clicking ${what}, #${l.id} is ${pct}% down the viewport (want 25-40%)`);
  if (l.frac > 0.40 && !l.atBottom)
    fails.push(`${where}: after clicking ${what}, #${l.id} is ${pct}% down the viewport (want 25-40%)`);
  if (l.frac < 0 || l.frac > 0.95)
    fails.push(`${where}: after clicking ${what}, #${l.id} is out of sight (${pct}% down)`);
  if (wantTint) {
    if (transparent(l.bg) || l.bg === l.preBg)
      fails.push(`${where}: after clicking ${what}, its line has no tint (background ${l.bg}, the log's ${l.preBg})`);
    if (!l.shadow || l.shadow === 'none')
      fails.push(`${where}: after clicking ${what}, its line has no accent bar (box-shadow none)`);
  }
  if (l.mark) {
    if (transparent(l.mark.bg))
      fails.push(`${where}: after clicking ${what}, the value "${l.mark.text}" is not marked (background ${l.mark.bg})`);
    if (l.mark.right > l.mark.preRight + 0.5)
      fails.push(`${where}: after clicking ${what}, the value "${l.mark.text}" is cut off (right ${l.mark.right.toFixed(1)} px, the log's box ends at ${l.mark.preRight.toFixed(1)})`);
  }
  return fails;
}

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px ${ctx.scheme}`;
  const fails = [];
  fails.push(...await noSidewaysScroll(page, where));
  fails.push(...await captions(page, where));
  fails.push(...await headerWords(page, where));
  fails.push(...await headerRow(page, where));

  // "Table N" / "Figure N": the first reference.
  const ref = page.locator('a.ld-ref[href^="#"]').first();
  if (await ref.count()) {
    const text = (await ref.textContent()).trim();
    await ref.click();
    await page.waitForTimeout(100);
    fails.push(...judgeLanding(await landing(page), `"${text}"`, where, false));
    await page.goto(ctx.url);
  }

  // A value: the one linking furthest down its log, so that the page can
  // scroll it a third down.
  const hrefs = await page.evaluate(() =>
    [...document.querySelectorAll('a.ld-value[href*="#L"]')].map((a, i) => ({ i, href: a.getAttribute('href') })));
  if (hrefs.length) {
    const num = (h) => parseInt(h.replace(/^.*#L/, ''), 10);
    const pick = hrefs.reduce((a, b) => (num(b.href) > num(a.href) ? b : a));
    const link = page.locator('a.ld-value[href*="#L"]').nth(pick.i);
    await link.scrollIntoViewIfNeeded();
    await Promise.all([page.waitForLoadState('load'), link.click()]);
    await page.waitForTimeout(150);
    fails.push(...judgeLanding(await landing(page), `the value linking to ${pick.href}`, where, true));
    if (pick.href.includes('.') && pick.href.match(/#L\d+\.\d+$/)) {
      const tag = await page.evaluate(() => document.querySelector(':target')?.tagName.toLowerCase());
      if (tag !== 'mark')
        fails.push(`${where}: ${pick.href} lands on <${tag}>, not on the value's <mark>`);
    }
  }
  return fails;
}

export async function checkLog(page, ctx) {
  const where = `log page of ${ctx.report} (${ctx.url.replace(/^.*\/logs\//, 'logs/')}) at ${ctx.width} px ${ctx.scheme}`;
  const fails = [];
  fails.push(...await noSidewaysScroll(page, where));
  fails.push(...await headerRow(page, where));
  const m = await page.evaluate(() => {
    const pre = document.querySelector('pre.ld-log');
    return {
      title: document.title,
      report: document.querySelector('.ld-log-report')?.textContent ?? '',
      meta: (() => {
        const el = document.querySelector('.ld-log-meta');
        return el && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden' ? el.textContent : '';
      })(),
      scroll: pre ? pre.scrollWidth : 0,
      client: pre ? pre.clientWidth : 0,
      lines: document.querySelectorAll('.ld-line[id]').length,
    };
  });
  if (!m.report || !m.title.includes(m.report))
    fails.push(`${where}: the <title> "${m.title}" does not name the report ("${m.report}")`);
  if (!/\d[\d,]* lines? · \d/.test(m.meta))
    fails.push(`${where}: the line count and size do not show (visible ".ld-log-meta": "${m.meta}")`);
  if (m.scroll > m.client + 1)
    fails.push(`${where}: log lines overflow their box (${m.scroll} px in ${m.client} px): they should wrap`);
  // A line in the middle lands a third down, tinted.
  if (m.lines > 10) {
    const id = await page.evaluate(() => {
      const ls = document.querySelectorAll('.ld-line[id]');
      return ls[Math.floor(ls.length / 2)].id;
    });
    await page.goto(`${ctx.url}#${id}`);
    await page.waitForTimeout(100);
    fails.push(...judgeLanding(await landing(page), `a link to #${id}`, where, true));
  }
  return fails;
}

export async function checkIndex(page, ctx) {
  const where = `index at ${ctx.width} px ${ctx.scheme}`;
  return [...await noSidewaysScroll(page, where), ...await headerRow(page, where)];
}
