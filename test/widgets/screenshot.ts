// Dev aid, not a test: serves the built dashboard against the fixture API, drives it in headless
// Chromium like a person would, and writes light and dark screenshots.
// Usage: bun dashboard-widgets/build.ts && bun test/widgets/screenshot.ts [out-dir] [chromium-path]
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server';

const out = process.argv[2] || '.tmp/widgets';
const executablePath = process.argv[3] || '/usr/bin/chromium';
const b = await startFixtureServer();
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${b.origin}/dashboard`);
  await page.fill('#api-key', b.keys.full);
  await page.click('#save-key');
  await page.waitForSelector('#link[data-state=ready]');
  const settledAll = () =>
    page.waitForFunction(() => [...document.querySelectorAll('#widgets > *')].every((w: any) => w.state && w.state !== 'loading' && w.state !== 'idle'));
  await settledAll();
  await page.screenshot({ path: `${out}/dashboard-light.png`, fullPage: true });
  await page.click('#theme');
  await page.selectOption('#range', '7');
  await settledAll();
  await page.screenshot({ path: `${out}/dashboard-dark.png`, fullPage: true });
  const states = await page.evaluate(() => [...document.querySelectorAll('#widgets > *')].map((w: any) => `${w.id}:${w.state}`));
  console.log(states.join(' '));
  console.log(`screenshots in ${out}/`);
} finally {
  await browser.close();
  await b.stop();
}
