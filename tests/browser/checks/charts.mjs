// checks/charts.mjs: what a reader sees of each chart on a report's page.
//
// For every chart (figure.ld-figure img, in its <picture>; an image
// figure, .ld-image, is checks/figures.mjs's):
//  - its smallest text on screen: the scale it is shown at (the image's
//    content box over the drawing's own width) times the drawing's
//    smallest font size (data-text-min on the SVG's root, which
//    src/draw writes) is at least 9 CSS px;
//  - its ground, sampled from a screenshot just inside the image's
//    padding (the card) and just inside the drawing, is dark on a dark
//    page and light on a light one (no white card on a dark page);
//  - it does not reach past the page's right edge.
import { inflateSync } from 'node:zlib';

const MIN_PX = 9;

// The colour of a 1x1 PNG as Playwright's screenshot gives it: one row,
// one filter byte, then RGB(A); with no pixel to the left or above,
// every PNG filter leaves the bytes as they are.
function pixel(png) {
  let at = 8, type = 0;
  const data = [];
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const kind = png.toString('latin1', at + 4, at + 8);
    if (kind === 'IHDR') type = png[at + 8 + 9];
    if (kind === 'IDAT') data.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(data));
  if (type !== 2 && type !== 6) return null;
  return [raw[1], raw[2], raw[3]];
}

const luma = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const failures = [];
  const charts = await page.$$eval('figure.ld-figure:not(.ld-image) img', (imgs) =>
    Promise.all(imgs.map(async (img, i) => {
      img.scrollIntoView({ block: 'center' });
      try { await img.decode(); } catch { /* reported below as not loaded */ }
      const cs = getComputedStyle(img);
      const r = img.getBoundingClientRect();
      const pad = (s) => parseFloat(cs[s]) || 0;
      const src = img.currentSrc;
      let textMin = null, width = null;
      try {
        const svg = new DOMParser().parseFromString(await (await fetch(src)).text(), 'image/svg+xml');
        const root = svg.documentElement;
        textMin = parseFloat(root.getAttribute('data-text-min'));
        width = parseFloat(root.getAttribute('width'));
      } catch { /* file:// without fetch: fall back on naturalWidth */ }
      return {
        i, src: src.replace(/^.*\//, ''), loaded: img.complete && img.naturalWidth > 0,
        natural: width || img.naturalWidth, textMin,
        shown: r.width - pad('paddingLeft') - pad('paddingRight') - pad('borderLeftWidth') - pad('borderRightWidth'),
        padTop: pad('paddingTop'), padLeft: pad('paddingLeft'),
        right: r.right + window.scrollX, pageWidth: document.documentElement.clientWidth,
        hidden: img.getClientRects().length === 0,
      };
    })));
  for (const c of charts) {
    if (c.hidden) continue; /* in a tab not shown: no box to measure */
    const name = `${where}: chart ${c.i + 1} (${c.src})`;
    if (!c.loaded) { failures.push(`${name}: the image did not load`); continue; }
    if (!(c.textMin > 0)) { failures.push(`${name}: the SVG has no data-text-min`); continue; }
    const scale = c.shown / c.natural;
    const px = scale * c.textMin;
    if (px < MIN_PX - 0.01)
      failures.push(`${name}: smallest text ${px.toFixed(2)} px on screen (${c.textMin} px drawn, ` +
        `shown at ${c.shown.toFixed(1)}/${c.natural} = ${scale.toFixed(3)}); needs ${MIN_PX}`);
    if (c.right > c.pageWidth + 0.5)
      failures.push(`${name}: reaches ${c.right.toFixed(1)} px, past the page's ${c.pageWidth} px`);
  }
  // The ground: sampled on screen, in the card's padding and inside the drawing.
  const imgs = await page.$$('figure.ld-figure:not(.ld-image) img');
  for (const [k, handle] of imgs.entries()) {
    const c = charts[k];
    if (!c || !c.loaded || c.hidden) continue;
    await handle.scrollIntoViewIfNeeded();
    const box = await handle.boundingBox();
    if (!box) continue;
    const spots = { card: [2, 2], drawing: [c.padLeft + 2, c.padTop + 2] };
    for (const [what, [dx, dy]] of Object.entries(spots)) {
      if (what === 'card' && c.padLeft < 2) continue;
      const png = await page.screenshot({ clip: { x: box.x + dx, y: box.y + dy, width: 1, height: 1 } });
      const rgb = pixel(png);
      if (!rgb) continue;
      const l = luma(rgb);
      const dark = ctx.scheme === 'dark';
      if (dark ? l > 0.25 : l < 0.75)
        failures.push(`${where}: chart ${k + 1} (${c.src}): the ${what}'s ground is rgb(${rgb.join(', ')}) ` +
          `(luminance ${l.toFixed(2)}) on a ${ctx.scheme} page`);
    }
  }
  return failures;
}
