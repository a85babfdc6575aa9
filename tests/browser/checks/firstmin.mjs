// firstmin.mjs: numbers as people write them, on every report page.
//
// 1. No text a reader sees outside the quoted logs and code shows a
//    float to nine or more decimals (/\d\.\d{9,}/): a computed value
//    shows the precision of its inputs, and a value whose log wrote
//    noise (0.7279000282287598) is given a spec by its report.  A value
//    that is a quoted message rather than a number ("Expected: ...,
//    actual: 0.00109975913") is a quote of the log, as log lines are.
// 2. Every missing value is a muted "n/a" with a tooltip saying why:
//    its colour is not red-ish (a red dash reads as a minus sign and an
//    alarm), and it has a non-empty title.
export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const found = await page.evaluate(() => {
    const long = [];
    const quoted = 'pre, code, script, style, .ld-log, .ld-logpage';
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(quoted))
        continue;
      const value = el.closest('.ld-value');
      if (value && !/^\s*[-+]?[\d.,]+(e[-+]?\d+)?\s*\S{0,8}\s*$/i.test(value.textContent))
        continue;
      const m = n.nodeValue.match(/\d\.\d{9,}/);
      if (m && el.getClientRects().length > 0)
        long.push({ text: m[0], in: el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') });
    }
    const missing = [...document.querySelectorAll('.ld-missing')].map((el) => {
      const c = getComputedStyle(el).color.match(/[\d.]+/g).map(Number);
      return { text: el.textContent, title: el.getAttribute('title') || '', rgb: c.slice(0, 3) };
    });
    return { long, missing };
  });
  const fails = [];
  for (const l of found.long)
    fails.push(`${where}: "${l.text}" in <${l.in}> shows ${l.text.split('.')[1].length} decimals (at most 8 outside logs and code)`);
  for (const m of found.missing) {
    const [r, g, b] = m.rgb;
    // red-ish: red well above both green and blue
    if (r - Math.max(g, b) > 60)
      fails.push(`${where}: missing value "${m.text}" is red-ish, rgb(${r}, ${g}, ${b}); it should be muted`);
    if (!m.title.trim())
      fails.push(`${where}: missing value "${m.text}" has no title saying why it is missing`);
    if (m.text.trim() !== 'n/a')
      fails.push(`${where}: missing value shows "${m.text}", not "n/a"`);
  }
  return fails;
}
