// checks/figures.mjs: callouts, image figures and tabs as a reader sees
// them on a report's page.
//
//  - each callout's title (and its text) reaches WCAG AA, 4.5:1, on the
//    callout's own background, in light and dark, and the callout has its
//    coloured bar;
//  - an image figure is never wider than the text's column, and its image
//    loaded;
//  - tabs: only the first panel shows at first; a click on another tab's
//    title shows its panel alone; from the checked tab, the arrow key
//    switches to the next (keyboard, no script), with a visible focus ring.
// The example site must use all three (content/cerebras-batch-sweep).
function lum([r, g, b]) {
  const f = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
}

function ratio(a, b) {
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

const USES_ALL = /cerebras-batch-sweep/;

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const fails = [];
  const found = await page.evaluate(() => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number).slice(0, 3);
    const callouts = [...document.querySelectorAll('.ld-callout')].map((c) => {
      const title = c.querySelector('.ld-callout-title');
      const text = c.querySelector('.ld-callout-title ~ p');
      const cs = getComputedStyle(c);
      return {
        kind: c.className.replace(/.*ld-callout-/, ''),
        bg: rgb(cs.backgroundColor),
        title: title ? rgb(getComputedStyle(title).color) : null,
        text: text ? rgb(getComputedStyle(text).color) : null,
        bar: parseFloat(cs.borderLeftWidth),
        icon: !!c.querySelector('.ld-callout-title svg'),
      };
    });
    const column = document.querySelector('.ld-content').getBoundingClientRect();
    const figures = [...document.querySelectorAll('figure.ld-image')].map((f) => {
      const img = f.querySelector('img');
      const r = img.getBoundingClientRect();
      return {
        id: f.id || img.getAttribute('src'),
        left: r.left, right: r.right, colLeft: column.left, colRight: column.right,
        loaded: img.complete && img.naturalWidth > 0,
        caption: (f.querySelector('figcaption') || {}).textContent || '',
      };
    });
    return { callouts, figures, tabs: document.querySelectorAll('.ld-tabs').length };
  });
  if (USES_ALL.test(ctx.report) &&
      (!found.callouts.length || !found.figures.length || !found.tabs))
    fails.push(`${where}: the example should show a callout, an image figure and tabs ` +
      `(${found.callouts.length}, ${found.figures.length}, ${found.tabs})`);
  for (const c of found.callouts) {
    if (!c.title) { fails.push(`${where}: a ${c.kind} callout has no title`); continue; }
    const r = ratio(c.title, c.bg);
    if (r < 4.5)
      fails.push(`${where}: the ${c.kind} callout's title is rgb(${c.title}) on rgb(${c.bg}): ` +
        `${r.toFixed(2)}:1, under 4.5:1`);
    if (c.text && ratio(c.text, c.bg) < 4.5)
      fails.push(`${where}: the ${c.kind} callout's text is rgb(${c.text}) on rgb(${c.bg}): ` +
        `${ratio(c.text, c.bg).toFixed(2)}:1, under 4.5:1`);
    if (!(c.bar >= 3))
      fails.push(`${where}: the ${c.kind} callout's bar is ${c.bar} px (at least 3)`);
    if (!c.icon)
      fails.push(`${where}: the ${c.kind} callout's title has no icon`);
  }
  for (const f of found.figures) {
    if (!f.loaded)
      fails.push(`${where}: image figure ${f.id} did not load`);
    if (f.right > f.colRight + 0.5 || f.left < f.colLeft - 0.5)
      fails.push(`${where}: image figure ${f.id} spans ${f.left.toFixed(1)}..${f.right.toFixed(1)} px, ` +
        `past the column's ${f.colLeft.toFixed(1)}..${f.colRight.toFixed(1)}`);
    if (!/^Figure \d+: /.test(f.caption))
      fails.push(`${where}: image figure ${f.id}'s caption "${f.caption.slice(0, 40)}" is not "Figure N: ..."`);
  }
  // Tabs: switched by a click and by the keyboard, one panel at a time.
  const shown = (k) => page.evaluate((i) => [...document.querySelectorAll('.ld-tabs')[i]
    .querySelectorAll(':scope > .ld-tab-panel')]
    .map((p) => p.getBoundingClientRect().height > 0 && getComputedStyle(p).display !== 'none'), k);
  for (let k = 0; k < found.tabs; k++) {
    const name = `${where}: tabs ${k + 1}`;
    let vis = await shown(k);
    if (vis.length < 2) continue;
    if (!(vis[0] && vis.filter(Boolean).length === 1))
      fails.push(`${name}: at first the panels shown are [${vis}], not the first alone`);
    const labels = page.locator('.ld-tabs').nth(k).locator(':scope > .ld-tab');
    await labels.nth(1).click();
    vis = await shown(k);
    if (!(vis[1] && vis.filter(Boolean).length === 1))
      fails.push(`${name}: a click on the second tab shows [${vis}], not the second alone`);
    // the keyboard: back to the first, focus it, arrow to the next
    await labels.nth(0).click();
    await page.locator('.ld-tabs').nth(k).locator(':scope > .ld-tab-input').nth(0).focus();
    await page.keyboard.press('ArrowRight');
    vis = await shown(k);
    if (!(vis[1] && vis.filter(Boolean).length === 1))
      fails.push(`${name}: ArrowRight from the first tab shows [${vis}], not the second alone`);
    const ring = await page.evaluate((i) => {
      const t = document.querySelectorAll('.ld-tabs')[i];
      const input = document.activeElement;
      if (!input || !t.contains(input)) return 'no focus in the tabs';
      const label = t.querySelector(`label[for="${input.id}"]`);
      const s = getComputedStyle(label);
      return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1 ? '' : 'no focus ring on its title';
    }, k);
    if (ring)
      fails.push(`${name}: after ArrowRight, ${ring}`);
    await labels.nth(0).click();
  }
  return fails;
}
