// highlight.mjs: highlighted code a reader can read, on every report page.
//
// Each token of a highlighted block (pre > code > span[class^="hl-"])
// is drawn in a colour that reaches WCAG AA, 4.5:1, against the code
// block's background, in light and dark and at every width; the block
// keeps one class per kind of token, so every kind is measured on
// every page that has it.  A page whose language fences were coloured
// has at least one coloured span (a block of a known language that
// shows none means the highlighter did not run).
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

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const found = await page.evaluate(() => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
    // the first opaque background up from el
    const ground = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length >= 3 && (c.length < 4 || c[3] === 1))
          return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const kinds = {};
    const blocks = [];
    for (const code of document.querySelectorAll('pre > code[class^="language-"]')) {
      const spans = code.querySelectorAll('span[class^="hl-"]');
      blocks.push({ lang: code.className, spans: spans.length });
      for (const s of spans) {
        if (!s.getClientRects().length)
          continue;
        const k = s.className;
        if (kinds[k])
          continue;
        kinds[k] = { fg: rgb(getComputedStyle(s).color).slice(0, 3), bg: ground(s), text: s.textContent.slice(0, 30) };
      }
    }
    return { kinds, blocks };
  });
  const fails = [];
  const known = /language-(bash|sh|shell|sbatch|console|python|py|c|cpp|cuda|cu|fortran|f90|julia|yaml|yml|json|toml|makefile|make|cmake|diff|sql|log)$/;
  for (const b of found.blocks)
    if (known.test(b.lang) && b.spans === 0)
      fails.push(`${where}: a ${b.lang} block has no coloured token`);
  for (const [k, v] of Object.entries(found.kinds)) {
    const r = ratio(v.fg, v.bg);
    if (r < 4.5)
      fails.push(`${where}: .${k} ("${v.text}") is rgb(${v.fg}) on rgb(${v.bg}): ${r.toFixed(2)}:1, under 4.5:1`);
  }
  return fails;
}
