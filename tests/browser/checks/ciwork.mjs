// ciwork.mjs: the footer's manifest hash (site.yaml footer_hash: true,
// which the example site sets).
//
// On every report page the footer shows "manifest " and 12 hex digits,
// on one line (the span has one client rect), inside the footer's text
// column and the viewport, at the footer's own size and colour; the
// site index, which is no report, shows none.
export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const m = await page.evaluate(() => {
    const spans = [...document.querySelectorAll('.ld-site-footer .ld-manifest-hash')];
    if (spans.length !== 1) return { count: spans.length };
    const s = spans[0], p = s.closest('p');
    const r = s.getClientRects(), pr = p.getBoundingClientRect();
    const cs = getComputedStyle(s), ps = getComputedStyle(p);
    return {
      count: 1,
      text: s.textContent,
      title: s.getAttribute('title') || '',
      lines: r.length,
      left: r[0].left,
      right: r[r.length - 1].right,
      pLeft: pr.left + parseFloat(ps.paddingLeft),
      pRight: pr.right - parseFloat(ps.paddingRight),
      viewport: document.documentElement.clientWidth,
      size: cs.fontSize, pSize: ps.fontSize, color: cs.color, pColor: ps.color,
    };
  });
  const fails = [];
  if (m.count !== 1)
    return [`${where}: ${m.count} manifest hashes in the footer, not 1`];
  if (!/^manifest [0-9a-f]{12}$/.test(m.text))
    fails.push(`${where}: the footer's hash reads "${m.text}", not "manifest" and 12 hex digits`);
  if (!m.title.includes('manifest.json'))
    fails.push(`${where}: the footer's hash has no title naming manifest.json`);
  if (m.lines !== 1)
    fails.push(`${where}: the footer's hash wraps onto ${m.lines} lines`);
  if (m.left < m.pLeft - 0.5 || m.right > m.pRight + 0.5 || m.right > m.viewport)
    fails.push(`${where}: the footer's hash spans ${m.left.toFixed(1)}-${m.right.toFixed(1)} px, ` +
      `outside the footer's text ${m.pLeft.toFixed(1)}-${m.pRight.toFixed(1)} px (viewport ${m.viewport})`);
  if (m.size !== m.pSize || m.color !== m.pColor)
    fails.push(`${where}: the footer's hash is ${m.size} ${m.color}, the footer ${m.pSize} ${m.pColor}`);
  return fails;
}

export async function checkIndex(page, ctx) {
  const n = await page.evaluate(() => document.querySelectorAll('.ld-manifest-hash').length);
  return n ? [`index at ${ctx.width} px, ${ctx.scheme}: ${n} manifest hashes on the site index (it is no report)`] : [];
}
