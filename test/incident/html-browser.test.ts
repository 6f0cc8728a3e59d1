// Renders HTML reports written by the built CLI (`node bin/run.js analyze … --format html`) in a
// real headless Chromium (Debian's `chromium`, installed by .ci/run) and checks what an engineer
// would see: a storm bundle, the Traefik cardinality fixture and 40 Traefik pods folded into one
// finding. In CI a missing browser is a failure, not a skip; locally it skips with the command to
// install it. UPDATE_SCREENSHOT=1 also writes docs/html-report.png.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { stormBundle, writeBundle } from '../../scripts/fixtures/incident-storm.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin/run.js');
const TRAEFIK = path.join(ROOT, 'fixtures/traefik-cardinality');

/** The HTML report of `input`, written by the built CLI; analyze exits 0 or 1 on a readable bundle. */
function htmlReport(input: string, file: string, ...flags: string[]): string {
  const run = spawnSync(process.execPath, [BIN, 'analyze', input, '--format', 'html', '--output', file, '-q', ...flags], { encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, `analyze ${input}: exit ${run.status}: ${run.stderr}`);
  return file;
}

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const inCi = !!process.env.CI && process.env.CI !== 'false';
const missing = !existsSync(CHROMIUM);
const skip = missing && !inCi ? `${CHROMIUM} not found; install it with: apt-get install -y chromium` : false;

describe('HTML report in headless Chromium', { skip }, () => {
  let browser: Browser;
  let dir: string;
  /** The storm bundle's report, which most checks open. */
  let file: string;
  /** Every report the width checks open. */
  let all: string[];

  before(async () => {
    assert.ok(!missing, `${CHROMIUM} is required in CI (CI=${process.env.CI}); .ci/run installs it with apt-get install -y chromium`);
    dir = mkdtempSync(path.join(tmpdir(), 'ld-html-'));
    if (!existsSync(path.join(ROOT, 'dist/cli/main.js'))) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    // Four minutes of storm so the per-minute chart has several bars.
    writeBundle(path.join(dir, 'bundle'), stormBundle({ ingressPods: 8, stormSeconds: 200, controllerLeadSeconds: 40 }));
    file = htmlReport(path.join(dir, 'bundle'), path.join(dir, 'storm.html'));
    const traefik40 = path.join(dir, 'traefik40');
    mkdirSync(traefik40);
    for (let i = 0; i < 40; i++)
      copyFileSync(path.join(TRAEFIK, 'traefik-7d9f8c6b5-x2x8k.log'), path.join(traefik40, `traefik-7d9f8c6b5-p${String(i).padStart(2, '0')}xk.log`));
    all = [
      file,
      htmlReport(path.join(dir, 'bundle'), path.join(dir, 'storm-verbose.html'), '--verbose', '--no-fold'),
      htmlReport(TRAEFIK, path.join(dir, 'traefik.html')),
      htmlReport(traefik40, path.join(dir, 'traefik40.html')),
      htmlReport(traefik40, path.join(dir, 'traefik40-unfolded.html'), '--no-fold'),
    ];
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
  });

  after(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(options: { javaScriptEnabled?: boolean; colorScheme?: 'light' | 'dark' } = {}) {
    const context = await browser.newContext({ viewport: { width: 1100, height: 1300 }, ...options });
    const page = await context.newPage();
    const problems: string[] = [];
    const fetched: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) fetched.push(r.url());
    });
    await page.goto(`file://${file}`);
    return { page, context, problems, fetched };
  }

  it('shows the incident summary, draws bars, and logs no console errors or fetches', async () => {
    const { page, context, problems, fetched } = await open();
    try {
      const headline = page.locator('.incident .headline').first();
      assert.ok(await headline.isVisible());
      assert.match(await headline.innerText(), /^Destination controller saturated .* → 8 traefik proxies in a reconnect storm to destination/);
      assert.match(await page.locator('#summary').innerText(), /2 error\(s\)/);
      assert.ok(await page.locator('.incident .action').isVisible());

      const timelineBars = page.locator('.incident svg.chart.timeline rect.bar');
      assert.ok((await timelineBars.count()) >= 8, 'both signals over at least four minutes');
      const heights = await timelineBars.evaluateAll((rects) => rects.map((r) => (r as unknown as { getBBox(): { height: number } }).getBBox().height));
      assert.ok(heights.every((h) => h > 0));
      // Top-k evidence lists (clients, pods) render as bar charts too.
      assert.ok((await page.locator('svg.chart.bars rect.bar').count()) > 0);

      assert.deepEqual(problems, []);
      assert.deepEqual(fetched, []);
    } finally {
      await context.close();
    }
  });

  it('sorts the findings table with JS, and still renders table and charts with JS off', async () => {
    const { page, context } = await open();
    try {
      const firstRule = () => page.locator('#findings-table tbody tr:first-child td:nth-child(2)').innerText();
      await page.locator('#findings-table th', { hasText: 'Key figure' }).click();
      const ascending = await firstRule();
      await page.locator('#findings-table th', { hasText: 'Key figure' }).click();
      const descending = await firstRule();
      assert.notEqual(ascending, descending);
      assert.equal(await page.locator('#findings-table th[aria-sort=descending]').count(), 1);
    } finally {
      await context.close();
    }
    const noJs = await open({ javaScriptEnabled: false });
    try {
      assert.equal(await noJs.page.locator('#findings-table tbody tr', { hasNotText: 'known-signature' }).count(), 2);
      assert.ok((await noJs.page.locator('svg.chart rect.bar').count()) > 0);
      assert.ok(await noJs.page.locator('.incident .headline').isVisible());
    } finally {
      await noJs.context.close();
    }
  });

  it('fits the window at 800 and 1400 px: nothing wider than the page, no raw JSON in evidence', async () => {
    for (const [report, width] of all.flatMap((f) => [800, 1400].map((w) => [f, w] as const))) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const where = `${path.basename(report)} at ${width} px`;
      try {
        const page = await context.newPage();
        await page.goto(`file://${report}`);
        const overflow = await page.evaluate<{ page: number; client: number; wide: string[] }>(`(() => {
          const client = document.documentElement.clientWidth;
          const wide = [...document.querySelectorAll('main *')]
            .filter((e) => !e.closest('.scroll') && e.getBoundingClientRect().right > client + 0.5)
            .map((e) => e.tagName + '.' + e.className);
          return { page: document.documentElement.scrollWidth, client, wide };
        })()`);
        assert.ok(overflow.page <= overflow.client, `${where}: page is ${overflow.page} px wide in a ${overflow.client} px window`);
        assert.deepEqual(overflow.wide, [], `${where}: elements past the right edge`);
        const cells = await page.locator('article.finding td').allInnerTexts();
        assert.ok(cells.length > 0, where);
        assert.deepEqual(
          cells.filter((t) => /^\s*[[{]"/.test(t)),
          [],
          `${where}: an evidence cell prints JSON`,
        );
        // Prose renders code spans as code: no Markdown backticks left in the text.
        const prose = await page.locator('.action, article.finding p, article.finding li').allInnerTexts();
        assert.deepEqual(
          prose.filter((t) => t.includes('`')),
          [],
          `${where}: literal backticks`,
        );
        // The findings table's one-word cells are never broken inside the word.
        const severityHeight = await page
          .locator('#findings-table thead th')
          .first()
          .evaluate((th) => th.getBoundingClientRect().height);
        const rowHeight = await page
          .locator('#findings-table thead th')
          .last()
          .evaluate((th) => th.getBoundingClientRect().height);
        assert.ok(severityHeight <= rowHeight, `${where}: "Severity" wraps`);
        if (report === file) {
          // The retry-gap histogram is a table of buckets with bars on one scale.
          assert.ok((await page.locator('article.finding table.mini.hist .hbar').count()) > 0);
        }
      } finally {
        await context.close();
      }
    }
  });

  it('draws each incident signal as its own labelled chart with its peak, and each top-N list once', async () => {
    const { page, context } = await open();
    try {
      const charts = page.locator('.incident figure.multiples svg.chart.timeline');
      assert.ok((await charts.count()) >= 2);
      const labels = await charts.evaluateAll((svgs) => svgs.map((s) => s.getAttribute('aria-label') ?? ''));
      assert.ok(
        labels.every((l) => /, peak [\d,]+$/.test(l)),
        labels.join(' | '),
      );
      // One y scale for all of them, so bar heights compare across signals: the same top label.
      const tops = await charts.evaluateAll((svgs) => svgs.map((s) => s.querySelector('text[text-anchor=end]')?.textContent ?? ''));
      assert.equal(new Set(tops).size, 1, tops.join(' | '));
      assert.match(await page.locator('.incident figure.multiples figcaption').first().innerText(), /all on one (logarithmic )?scale/);
      for (const article of await page.locator('article.finding').all()) {
        const own = (await article.locator('figcaption, table.list caption').allInnerTexts()).map((c) => c.replace(/\s*\(.*$/, '').trim());
        assert.equal(new Set(own).size, own.length, `a list drawn twice: ${own.join(', ')}`);
      }
    } finally {
      await context.close();
    }
  });

  it('follows the system theme', async () => {
    const background = async (colorScheme: 'light' | 'dark') => {
      const { page, context } = await open({ colorScheme });
      try {
        if (process.env.UPDATE_SCREENSHOT && colorScheme === 'light') {
          const docs = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'html-report.png');
          await page.screenshot({ path: docs });
        }
        return await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
      } finally {
        await context.close();
      }
    };
    const light = await background('light');
    const dark = await background('dark');
    assert.equal(light, 'rgb(255, 255, 255)');
    assert.notEqual(dark, light);
  });
});
