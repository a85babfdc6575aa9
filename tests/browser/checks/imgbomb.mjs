// checks/imgbomb.mjs: no image a page shows asks the browser to decode
// more pixels than limit image_pixels allows (50,000,000 by default,
// src/data/limit.c): the build warns of one (src/site/images.c), so an
// example site that builds clean must show none.  Every raster <img>
// that loaded is measured by its natural size; an SVG is drawn as
// vectors and is left out.
const IMAGE_PIXELS = 50_000_000;

export default async function check(page, ctx) {
  const where = `${ctx.report} at ${ctx.width} px, ${ctx.scheme}`;
  const imgs = await page.$$eval('img', (all) =>
    all.map((i) => ({
      src: i.getAttribute('src') || '',
      w: i.naturalWidth,
      h: i.naturalHeight,
      complete: i.complete,
    })),
  );
  const failures = [];
  for (const i of imgs) {
    if (/\.svg(\?|#|$)/i.test(i.src) || i.src.startsWith('data:image/svg')) continue;
    if (i.complete && i.w * i.h > IMAGE_PIXELS)
      failures.push(
        `${where}: image ${i.src} is ${i.w}x${i.h} pixels, more than the ${IMAGE_PIXELS} of limit image_pixels`,
      );
  }
  return failures;
}
