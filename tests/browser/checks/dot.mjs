// checks/dot.mjs: what a reader sees of each diagram (```dot) on a
// report's page: inline SVG in figure.ld-diagram.
//
//  - it fits: the SVG's box lies inside the page's width (a diagram too
//    wide for the column scrolls inside its own box, never the page);
//  - its text is readable: every <text>'s size as shown (its font-size
//    times the scale the SVG is drawn at) is at least 9 CSS px;
//  - its text contrasts with what is behind it: the text's fill against
//    the first opaque background up the tree is at least 4.5:1 (WCAG AA
//    for text), in light and in dark mode alike (the default colour is
//    currentColor, the page's text).
const MIN_PX = 9;
const MIN_CONTRAST = 4.5;

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const failures = [];
  const diagrams = await page.$$eval('figure.ld-diagram', (figs) => figs.map((fig, i) => {
    const rgb = (s) => {
      const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(s || '');
      return m ? { c: [+m[1], +m[2], +m[3]], a: m[4] === undefined ? 1 : +m[4] } : null;
    };
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ground = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const bg = rgb(getComputedStyle(e).backgroundColor);
        if (bg && bg.a > 0.5) return bg.c;
      }
      return [255, 255, 255];
    };
    const svg = fig.querySelector('svg');
    if (!svg) return { i, id: fig.id, missing: true };
    const r = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal;
    const scale = vb && vb.width ? r.width / vb.width : 1;
    const bg = ground(fig);
    let smallest = null, worst = null;
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const size = parseFloat(t.getAttribute('font-size') || getComputedStyle(t).fontSize) * scale;
      if (smallest === null || size < smallest.size) smallest = { size, text: t.textContent.trim() };
      const fill = rgb(getComputedStyle(t).fill);
      if (!fill) continue;
      const a = lum(fill.c), b = lum(bg);
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (worst === null || ratio < worst.ratio) worst = { ratio, text: t.textContent.trim(), fill: fill.c, bg };
    }
    return {
      i, id: fig.id || `diagram ${i + 1}`, left: r.left + window.scrollX, right: r.right + window.scrollX,
      pageWidth: document.documentElement.clientWidth, smallest, worst,
    };
  }));
  for (const d of diagrams) {
    if (d.missing) {
      failures.push(`${where}: ${d.id || `diagram ${d.i + 1}`} has no inline SVG`);
      continue;
    }
    const box = await page.$eval(`figure.ld-diagram >> nth=${d.i}`, (fig) => {
      const b = fig.querySelector('.ld-diagram-box').getBoundingClientRect();
      return { left: b.left + window.scrollX, right: b.right + window.scrollX };
    }).catch(() => null);
    const right = box ? Math.min(d.right, box.right) : d.right;
    if (right > d.pageWidth + 0.5 || (box && box.right > d.pageWidth + 0.5))
      failures.push(`${where}: ${d.id} reaches ${Math.round(right)} px, past the page's ${d.pageWidth} px`);
    if (d.smallest && d.smallest.size < MIN_PX - 0.05)
      failures.push(`${where}: ${d.id}'s text "${d.smallest.text}" is shown at ${d.smallest.size.toFixed(1)} px, under ${MIN_PX}`);
    if (d.worst && d.worst.ratio < MIN_CONTRAST)
      failures.push(`${where}: ${d.id}'s text "${d.worst.text}" (rgb ${d.worst.fill.join(',')}) on rgb ${d.worst.bg.join(',')} contrasts ${d.worst.ratio.toFixed(2)}:1, under ${MIN_CONTRAST}:1`);
  }
  return failures;
}
