// Opens the contact sheet page `hairswing wear --library` writes (contact-sheet.html) in headless
// Chromium (Debian's /usr/bin/chromium through playwright-core; no browser is downloaded), served
// from its folder on a loopback port, and checks it against wear.json: no console or page error
// and no failed request; the column and row names are the targets and hairstyles in order; every
// worn pair has two tiles that link to its worn file (in the folder), cut from the sheet
// at its row and column, each with a picture in it (the sheet's pixels there are not one flat
// colour); every failed pair says so. Saves a full-page screenshot.
//   node check_contact_sheet.mjs FOLDER SCREENSHOT.png
import { collectErrors, launchChromium } from './chromium.mjs';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const [folder, shot] = process.argv.slice(2);
const root = path.resolve(folder);
const wear = JSON.parse(fs.readFileSync(path.join(root, 'wear.json'), 'utf8'));
const server = http.createServer((req, res) => {
  const name = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (name === '/favicon.ico') {  // asked for by the browser itself, not by the page
    res.writeHead(204).end();
    return;
  }
  const file = path.join(root, name);
  if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Length': fs.statSync(file).size });
  res.end(req.method === 'HEAD' ? undefined : fs.readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}/`;
const browser = await launchChromium();
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  collectErrors(page, errors);
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.goto(base + 'contact-sheet.html');
  const info = await page.evaluate(async () => {
    const sheet = new Image();
    sheet.src = 'contact-sheet.png';
    await sheet.decode();
    const canvas = document.createElement('canvas');
    canvas.width = sheet.width;
    canvas.height = sheet.height;
    const cx = canvas.getContext('2d');
    cx.drawImage(sheet, 0, 0);
    const heads = [...document.querySelectorAll('tr:first-child th[colspan]')].map((t) => t.textContent);
    const rows = [...document.querySelectorAll('th.style')].map((t) => t.textContent);
    const tiles = [];
    for (const a of document.querySelectorAll('a.tile')) {
      const s = getComputedStyle(a);
      const [x, y] = s.backgroundPosition.split(' ').map((v) => -parseFloat(v));
      const w = a.getBoundingClientRect().width, h = a.getBoundingClientRect().height;
      const d = cx.getImageData(x, y, w, h).data;
      let lo = 255, hi = 0;
      for (let i = 0; i < d.length; i += 4) {
        const v = d[i] + d[i + 1] + d[i + 2];
        lo = Math.min(lo, v / 3);
        hi = Math.max(hi, v / 3);
      }
      const row = a.closest('tr').querySelector('th.style').textContent;
      tiles.push({ x, y, w, h, spread: hi - lo, href: a.getAttribute('href'), row,
                   bg: s.backgroundImage });
    }
    const failed = [...document.querySelectorAll('.failed')].map((f) => f.textContent);
    return { heads, rows, tiles, failed, sheet: [sheet.width, sheet.height] };
  });
  await page.screenshot({ path: shot, fullPage: true });
  const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  if (!eq(info.heads, wear.columns)) errors.push(`column names ${JSON.stringify(info.heads)}, wear.json ${JSON.stringify(wear.columns)}`);
  if (!eq(info.rows, wear.rows)) errors.push(`row names ${JSON.stringify(info.rows)}, wear.json ${JSON.stringify(wear.rows)}`);
  const worn = wear.pairs.filter((p) => p.output && wear.rows.includes(p.hairstyle));
  if (info.tiles.length !== 2 * worn.length) errors.push(`${info.tiles.length} tiles for ${worn.length} worn pairs`);
  const tile = info.sheet[1] / wear.rows.length;
  for (const p of worn) {
    const r = wear.rows.indexOf(p.hairstyle), c = wear.columns.indexOf(p.target);
    const mine = info.tiles.filter((t) => decodeURIComponent(t.href) === p.output);
    if (mine.length !== 2) { errors.push(`${p.output}: ${mine.length} tiles`); continue; }
    mine.forEach((t, v) => {
      if (t.row !== p.hairstyle) errors.push(`${p.output}: tile in the row of ${t.row}`);
      if (t.x !== (2 * c + v) * tile || t.y !== r * tile || t.w !== tile || t.h !== tile)
        errors.push(`${p.output}: tile ${v} at ${t.x},${t.y} (${t.w}x${t.h}), expected ${(2 * c + v) * tile},${r * tile} (${tile})`);
      if (t.spread < 30) errors.push(`${p.output}: tile ${v} is one flat colour`);
      const target = new URL(t.href, base + 'contact-sheet.html');
      if (target.origin + '/' !== base || !fs.existsSync(path.join(root, decodeURIComponent(target.pathname))))
        errors.push(`${p.output}: the link ${t.href} does not lead to the file`);
      if (!t.bg.includes('contact-sheet.png')) errors.push(`${p.output}: tile without the sheet`);
    });
  }
  const failedOnSheet = wear.pairs.filter((p) => !p.output && wear.rows.includes(p.hairstyle));
  if (info.failed.length !== failedOnSheet.length) errors.push(`${info.failed.length} failed cells for ${failedOnSheet.length} failed pairs on the sheet`);
  console.log(JSON.stringify({ columns: info.heads.length, rows: info.rows.length, tiles: info.tiles.length,
                               failed: info.failed.length }));
} finally {
  await browser.close();
  server.close();
}
if (errors.length) {
  console.error(errors.join('\n'));
  process.exit(1);
}
