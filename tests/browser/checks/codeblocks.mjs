// codeblocks.mjs: code blocks and coloured logs as a reader sees them.
//
// On a report page: every code block has its Copy button (made by
// static/copy.js), and clicking it puts exactly the code's text on the
// clipboard, no line numbers (checked once a page, at 1280 px light);
// a numbered block draws one number a line, each line one row tall and
// its text right of the numbers' gutter; a highlighted line (hl_lines)
// has a band that differs from the block's ground and is as wide as
// the block's longest line, and every token on it reaches 4.5:1.  On a
// log page and in {log} excerpts: every coloured token reaches 4.5:1
// on its line's ground, and each value's mark keeps its id L<line>.<k>
// inside the line L<line>.
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

// In the page: the first opaque background up from an element.
const helpers = `
  window.__rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  window.__ground = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = __rgb(getComputedStyle(e).backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
`;

// Token colours against their ground, in the elements matched by sel.
async function tokens(page, sel) {
  return page.evaluate(([h, sel]) => {
    eval(h);
    const kinds = {};
    for (const s of document.querySelectorAll(sel)) {
      if (!s.getClientRects().length) continue;
      const bg = __ground(s);
      const k = `${s.className} on rgb(${bg})`;
      if (!kinds[k]) kinds[k] = { fg: __rgb(getComputedStyle(s).color).slice(0, 3), bg, text: s.textContent.slice(0, 30) };
    }
    return kinds;
  }, [helpers, sel]);
}

function contrast(kinds, where, fails) {
  for (const v of Object.values(kinds)) {
    const r = ratio(v.fg, v.bg);
    if (r < 4.5)
      fails.push(`${where}: "${v.text}" is rgb(${v.fg}) on rgb(${v.bg}): ${r.toFixed(2)}:1, under 4.5:1`);
  }
}

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const fails = [];
  const m = await page.evaluate((h) => {
    eval(h);
    const pres = [...document.querySelectorAll('.ld-content pre:not(.ld-log)')];
    const out = { blocks: pres.length, buttons: 0, numbered: [], bands: [] };
    for (const pre of pres) {
      const box = pre.parentElement;
      if (box.classList.contains('ld-codebox') && box.querySelector(':scope > button.ld-copy')) out.buttons++;
    }
    for (const pre of document.querySelectorAll('.ld-content pre.ld-code')) {
      const code = pre.querySelector('code');
      const lines = [...pre.querySelectorAll('.ld-cl')];
      const lh = parseFloat(getComputedStyle(code).lineHeight);
      const cw = code.getBoundingClientRect().width;
      const b = { lines: lines.length, newlines: code.textContent.split('\n').length - 1, tall: [], gutter: [], narrow: [] };
      const numbered = pre.classList.contains('ld-numbered');
      lines.forEach((l, i) => {
        const r = l.getBoundingClientRect();
        if (Math.abs(r.height - lh) > 1) b.tall.push(`line ${i + 1}: ${r.height.toFixed(1)} px for ${lh} px`);
        if (Math.abs(r.width - cw) > 1) b.narrow.push(`line ${i + 1}: ${r.width.toFixed(0)} of ${cw.toFixed(0)} px`);
        if (numbered) {
          // the number's box: the ::before, as wide as the digits
          const before = getComputedStyle(l, '::before');
          const gw = parseFloat(before.width) + parseFloat(before.paddingLeft) + parseFloat(before.paddingRight);
          const t = [...l.childNodes].find((n) => n.textContent.trim() !== '');
          if (t) {
            const rg = document.createRange();
            rg.selectNodeContents(t);
            const x = rg.getClientRects()[0];
            if (x && x.left < r.left + gw - 0.5)
              b.gutter.push(`line ${i + 1}: text at ${(x.left - r.left).toFixed(1)} px, gutter ${gw.toFixed(1)} px`);
          }
          if (before.content === 'none' || before.visibility === 'hidden' || parseFloat(before.width) < 6)
            b.gutter.push(`line ${i + 1}: no number drawn (${before.content}, ${before.width})`);
        }
        if (l.classList.contains('ld-hl'))
          out.bands.push({ band: __rgb(getComputedStyle(l).backgroundColor).slice(0, 3), ground: __ground(pre) });
      });
      out.numbered.push(b);
    }
    return out;
  }, helpers);
  if (m.buttons !== m.blocks)
    fails.push(`${where}: ${m.blocks} code blocks but ${m.buttons} Copy buttons`);
  m.numbered.forEach((b, i) => {
    const name = `${where}: numbered block ${i + 1}`;
    if (b.lines !== b.newlines) fails.push(`${name}: ${b.lines} line boxes for ${b.newlines} lines`);
    for (const t of b.tall) fails.push(`${name}: a line is not one row (${t})`);
    for (const g of b.gutter) fails.push(`${name}: ${g}`);
    for (const n of b.narrow) fails.push(`${name}: a line is narrower than the block (${n})`);
  });
  for (const b of m.bands) {
    const d = Math.max(...b.band.map((c, k) => Math.abs(c - b.ground[k])));
    if (d < 12) fails.push(`${where}: a highlighted line's band rgb(${b.band}) hardly differs from rgb(${b.ground})`);
  }
  contrast(await tokens(page, '.ld-cl.ld-hl span[class^="hl-"]'), `${where}, highlighted line`, fails);
  contrast(await tokens(page, 'pre.ld-log span[class^="hl-"]'), `${where}, {log} excerpt`, fails);

  // The copy: once a page.
  if (ctx.width === 1280 && ctx.scheme === 'light' && m.buttons > 0) {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
    const box = page.locator('.ld-codebox').filter({ has: page.locator('pre.ld-numbered') }).first();
    const target = (await box.count()) ? box : page.locator('.ld-codebox').first();
    const want = await target.locator('code').evaluate((c) => c.textContent);
    await target.hover();
    await target.locator('button.ld-copy').click();
    await page.waitForFunction(() => [...document.querySelectorAll('.ld-copy')].some((b) => b.textContent !== 'Copy'));
    const label = await target.locator('button.ld-copy').textContent();
    const got = await page.evaluate(() => navigator.clipboard.readText()).catch((e) => `(clipboard: ${e.message})`);
    if (label !== 'Copied') fails.push(`${where}: the Copy button says "${label}" after a click`);
    if (got !== want)
      fails.push(`${where}: Copy put ${JSON.stringify(got.slice(0, 80))} on the clipboard, not the code ${JSON.stringify(want.slice(0, 80))}`);
    const lines = want.split('\n').filter((l, i, a) => i < a.length - 1);
    if (/^\s*1\s/.test(got) && !/^\s*1\s/.test(lines[0] || ''))
      fails.push(`${where}: the copied code starts with a line number`);
  }
  return fails;
}

export async function checkLog(page, ctx) {
  const where = `log page of ${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const fails = [];
  const m = await page.evaluate(() => {
    const bad = [];
    for (const mk of document.querySelectorAll('mark.ld-mark')) {
      const line = mk.closest('.ld-line');
      const want = line ? `^${line.id}\\.\\d+$` : null;
      if (!want || !new RegExp(want).test(mk.id)) bad.push(`${mk.id} in ${line ? line.id : 'no line'}`);
    }
    return { bad, spans: document.querySelectorAll('.ld-line span[class^="hl-"]').length };
  });
  for (const b of m.bad) fails.push(`${where}: mark ${b}`);
  if (m.spans === 0) fails.push(`${where}: no coloured token on the page`);
  contrast(await tokens(page, '.ld-line span[class^="hl-"]'), where, fails);
  return fails;
}
