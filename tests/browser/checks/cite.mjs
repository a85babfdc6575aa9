// cite.mjs: citations and the References, on every report page that
// has them.
//
// 1. Every citation (a.ld-ref to "#ref-...") leads to an entry of
//    section.references that exists, and its tooltip is that entry's
//    text (so hovering shows the reference).
// 2. No entry of the References reaches past the page's right edge: a
//    long DOI or URL wraps on a phone (390 px) rather than widen it.
// 3. An entry's links (DOI, URL) have a contrast of at least 4.5:1 with
//    the page in both schemes, as the prose's links do.
function luminance([r, g, b]) {
  const f = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
}

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const found = await page.evaluate(() => {
    const rgb = (s) => s.match(/[\d.]+/g).slice(0, 3).map(Number);
    const ground = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = getComputedStyle(e).backgroundColor;
        const v = c.match(/[\d.]+/g).map(Number);
        if (v.length < 4 || v[3] > 0.5)
          return v.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const cites = [...document.querySelectorAll('a.ld-ref[href^="#ref-"]')].map((a) => {
      const target = document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)));
      return {
        text: a.textContent,
        href: a.getAttribute('href'),
        found: !!(target && target.closest('section.references')),
        title: a.getAttribute('title') || '',
        entry: target ? target.textContent.replace(/^\[\d+\]\s*/, '').replace(/\s+/g, ' ').trim() : '',
      };
    });
    const width = document.documentElement.clientWidth;
    const entries = [...document.querySelectorAll('section.references li')].map((li) => ({
      id: li.id,
      right: Math.max(...[...li.querySelectorAll('*'), li].map((e) => e.getBoundingClientRect().right)),
      links: [...li.querySelectorAll('a')].map((a) => ({
        text: a.textContent, fg: rgb(getComputedStyle(a).color), bg: ground(a),
      })),
    }));
    return { cites, entries, width };
  });
  const fails = [];
  for (const c of found.cites) {
    if (!c.found)
      fails.push(`${where}: citation "${c.text}" links to ${c.href}, which is no entry of the References`);
    else if (c.title.replace(/\s+/g, ' ').trim() !== c.entry)
      fails.push(`${where}: citation "${c.text}" has the tooltip "${c.title}", not its entry "${c.entry}"`);
  }
  for (const e of found.entries) {
    if (e.right > found.width + 0.5)
      fails.push(`${where}: reference ${e.id} reaches ${e.right.toFixed(1)} px, past the page's ${found.width} px`);
    for (const l of e.links) {
      const a = luminance(l.fg), b = luminance(l.bg);
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5)
        fails.push(`${where}: link "${l.text}" of reference ${e.id} has contrast ${ratio.toFixed(2)}:1 (at least 4.5)`);
    }
  }
  return fails;
}
