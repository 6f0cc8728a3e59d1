// Issue 28, in a real headless Chromium: the HTML report's time axis carries dates when its span
// crosses midnight and clips no label; a healthy report has no empty "Evidence and fixes" section
// and says when it was generated and from which inputs. One CLI launch per bundle. Skips locally
// without /usr/bin/chromium (apt-get install -y chromium); in CI a missing browser fails.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { stormBundle, writeBundle } from '../../scripts/fixtures/incident-storm.js';

const BIN = path.resolve('bin/run.js');
const CHROMIUM = '/usr/bin/chromium';
const inCi = !!process.env.CI && process.env.CI !== 'false';
const missing = !existsSync(CHROMIUM);
const skip = missing && !inCi ? `${CHROMIUM} not found; install it with: apt-get install -y chromium` : false;

function htmlReport(input: string, file: string): string {
  const run = spawnSync(process.execPath, [BIN, 'analyze', input, '-q', '-f', 'html', '-o', file], { encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, `analyze ${input}: exit ${run.status}: ${run.stderr}`);
  return pathToFileURL(file).href;
}

describe('HTML report: time axis and sections in headless Chromium', { skip }, () => {
  let browser: Browser;
  let dir: string;
  let midnight: string;
  let healthy: string;

  before(async () => {
    assert.ok(!missing, `${CHROMIUM} is required in CI`);
    dir = mkdtempSync(path.join(tmpdir(), 'ld-html-axis-'));
    // A storm that starts two minutes before midnight and lasts four: its axis crosses a day.
    writeBundle(path.join(dir, 'midnight'), stormBundle({ ingressPods: 6, stormSeconds: 240, controllerLeadSeconds: 30, start: '2025-03-04T23:58:00Z' }));
    midnight = htmlReport(path.join(dir, 'midnight'), path.join(dir, 'midnight.html'));
    healthy = htmlReport(path.resolve('fixtures/healthy'), path.join(dir, 'healthy.html'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'], timeout: 60_000 });
  });

  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('labels the axis with dates across midnight and clips none of its labels', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 900 } });
    await page.goto(midnight);
    const labels = (await page.evaluate(`(() => [...document.querySelectorAll('svg.timeline')].flatMap((svg) => {
      const box = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('text')].map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent, inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 };
      });
    }))()`)) as { text: string; inside: boolean }[];
    assert.ok(labels.length > 0, 'the report draws a timeline');
    assert.deepEqual(
      labels.filter((l) => !l.inside).map((l) => l.text),
      [],
      'labels drawn outside their chart',
    );
    const axis = labels.map((l) => l.text).filter((t) => /\d\d:\d\dZ$/.test(t));
    assert.ok(
      axis.some((t) => t.startsWith('2025-03-05')),
      `a tick names the new day: ${axis.join(' | ')}`,
    );
    const range = await page.locator('.incident .muted').first().textContent();
    assert.match(range ?? '', /2025-03-04 23:5\d:\d\dZ → 2025-03-05 00:0\d:\d\dZ/);
    await page.close();
  });

  it('a healthy report has no empty evidence section, and says when and from what it was made', async () => {
    const page = await browser.newPage();
    await page.goto(healthy);
    assert.equal(await page.locator('#details-h').count(), 0);
    assert.match((await page.locator('header').textContent()) ?? '', /Generated \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
    assert.ok((await page.locator('details.inputs li').count()) > 0, 'the inputs are listed');
    await page.close();
  });
});
