// Opens a hairswing HTML report in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core; no browser is downloaded), fails on any console error or page error, checks
// that every plot drew (canvases exist and carry plotted pixels) and saves a screenshot.
//   node check_report.mjs REPORT.html SCREENSHOT.png [MIN_PLOTS] [MIN_SCATTER_POINTS]
import { collectErrors, launchChromium } from './chromium.mjs';
import path from 'node:path';

const [report, shot, minPlotsArg] = process.argv.slice(2);
const minPlots = Number(minPlotsArg || 4);
const minPoints = Number(process.argv[5] || 0);
const browser = await launchChromium();
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  collectErrors(page, errors);
  await page.goto('file://' + path.resolve(report));
  await page.waitForFunction(() => document.body.dataset.plotsDrawn !== undefined, null, { timeout: 20000 });
  const info = await page.evaluate(() => {
    const canvases = [...document.querySelectorAll('.uplot canvas')];
    // A plot "drew" when its canvas has a good number of non-white pixels (axes, grid, lines).
    const inked = canvases.map((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200)) n++;
      return n;
    });
    // Stretch-versus-swing points (inline SVG) that lie inside the plot's area.
    const points = [...document.querySelectorAll('svg.scatter circle')].filter((c) => {
      const svg = c.ownerSVGElement;
      const x = Number(c.getAttribute('cx')), y = Number(c.getAttribute('cy'));
      return x > 0 && y > 0 && x < Number(svg.getAttribute('width')) && y < Number(svg.getAttribute('height'));
    }).length;
    return { count: canvases.length, inked, points, tables: document.querySelectorAll('table').length };
  });
  await page.screenshot({ path: shot, fullPage: true });
  console.log(JSON.stringify(info));
  if (info.count < minPlots) errors.push(`only ${info.count} plots, expected at least ${minPlots}`);
  info.inked.forEach((n, i) => { if (n < 500) errors.push(`plot ${i} looks empty (${n} inked pixels)`); });
  if (info.points < minPoints) errors.push(`only ${info.points} stretch-versus-swing points, expected ${minPoints}`);
} finally {
  await browser.close();
}
if (errors.length) {
  console.error(errors.join('\n'));
  process.exit(1);
}
