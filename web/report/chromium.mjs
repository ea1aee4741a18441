// Debian's Chromium (/usr/bin/chromium) through playwright-core, headless and quiet (no browser is
// downloaded), and a page's console errors, page errors and failed requests collected into a list:
// what the page checks here share.
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-quic'],
  });
}

export function collectErrors(page, errors) {
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.method()} ${r.url()} ${r.failure().errorText}`));
}
