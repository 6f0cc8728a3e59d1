import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/types.js';
import { asBars, formatHtml } from '../../src/report/formats/html.js';
import { buildReport } from '../../src/report/report.js';

function cardinality(over: Partial<Finding> = {}): Finding {
  return {
    ruleId: 'metric-cardinality',
    severity: 'error',
    kind: 'series-count',
    docsUrl: 'https://example.invalid/docs/metric-cardinality.md',
    title: 'Proxy holds 114,906 series',
    message: 'Too many series.',
    subject: { namespace: 'ingress', pod: 'traefik-7d9f8c6b5d-x2x8k', workload: 'traefik' },
    locations: [],
    remediation: '1. Drop labels.',
    keyFigure: { name: 'series', value: 114_906 },
    evidence: {
      series: 114_906,
      topFamilies: [
        { family: 'response_latency_ms_bucket', series: 231_842 },
        { family: 'request_total', series: 13_835 },
        { family: 'tcp_open_total', series: 11_174 },
      ],
      topLabels: [
        { label: 'dst_pod', values: 8_917 },
        { label: 'authority', values: 12 },
      ],
    },
    ...over,
  };
}

const render = (findings: Finding[]) => {
  const report = buildReport({ inputs: [], findings, skippedRules: [], ruleFailures: [], errors: [] }, 'error');
  return formatHtml(report, { color: false, findings: report.findings, failOn: 'error' });
};

describe('html report (static)', () => {
  it('draws a bar per top family and per top label of a cardinality finding', () => {
    const html = render([cardinality()]);
    const charts = html.match(/<svg class="chart bars"[\s\S]*?<\/svg>/g) ?? [];
    assert.equal(charts.length, 2);
    assert.equal((charts[0]!.match(/<rect class="bar/g) ?? []).length, 3);
    assert.match(charts[0]!, /response_latency_ms_bucket: 231,842/);
    assert.equal((charts[1]!.match(/<rect class="bar/g) ?? []).length, 2);
  });

  it('reads any list of {text, number} objects as bars, and nothing else', () => {
    assert.deepEqual(
      asBars([
        { pod: 'a', lines: 3 },
        { pod: 'b', lines: 1 },
      ]),
      [
        { label: 'a', value: 3 },
        { label: 'b', value: 1 },
      ],
    );
    assert.deepEqual(asBars([{ name: 'x', hash: 'abc', count: 2, share: 0.5 }]), [{ label: 'x', value: 2 }]);
    assert.equal(asBars(['a', 'b']), null);
    assert.equal(asBars([{ path: 'a', text: 'b' }]), null);
    assert.equal(asBars([]), null);
  });

  it('draws a top-N list once, as bars or as a table; nested objects as small tables, never JSON', () => {
    const html = render([
      cardinality({
        evidence: {
          series: 114_906,
          topFamilies: [{ family: 'a', series: 3 }],
          backoff: { verdict: 'at the cap', medianGapHistogram: { '≤0.5s': 4, '≤1s': 120 } },
        },
      }),
    ]);
    assert.equal((html.match(/<svg class="chart bars"/g) ?? []).length, 1);
    assert.doesNotMatch(html, /<caption>top families/);
    assert.doesNotMatch(html, /\{&quot;/);
    assert.match(html, /<table class="mini hist"><tbody><tr><th scope="row">≤0\.5s<\/th><td class="num">4<\/td>/);
  });

  it('renders code spans of fixes and the first action as <code>', () => {
    const html = render([cardinality({ remediation: '1. Set `nativeLB: true` on the service.' })]);
    assert.match(html, /Set <code>nativeLB: true<\/code> on the service\./);
    assert.doesNotMatch(html, /`nativeLB/);
  });

  it('escapes everything that came from the inputs', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const html = render([
      cardinality({ title: hostile, subject: { pod: hostile }, evidence: { topFamilies: [{ family: `</svg>${hostile}`, series: 5 }] }, remediation: hostile }),
    ]);
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });

  it('is self-contained: no external scripts, styles, fonts or images, and a CSP that forbids fetches', () => {
    const html = render([cardinality()]);
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+stylesheet|@import|url\(|<img|<iframe/i);
    assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
    // Links are for the reader to follow, not fetched: only the rule docs and in-page anchors.
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    assert.ok(
      hrefs.every((h) => h.startsWith('#') || h === 'data:,' || h.startsWith('https://example.invalid/')),
      hrefs.join(' '),
    );
  });

  it('renders an empty report: no findings in what was read, or nothing read at all', () => {
    const read = buildReport(
      {
        inputs: [{ path: 'proxy.log', kind: 'proxy-log', bytes: 10, records: 1, unparsed: 0, lines: 1 }],
        findings: [],
        skippedRules: [],
        ruleFailures: [],
        errors: [],
      },
      'error',
    );
    const html = formatHtml(read, { color: false, findings: [], failOn: 'error' });
    assert.match(html, /No findings\./);
    assert.match(html, /PASS/);
    assert.match(render([]), /<p>Nothing was analysed: no input could be read\.<\/p>/);
  });
});

// Third hostile-input audit, item 10: the page allowed any inline script; now only its own.
describe('HTML report content-security policy', () => {
  it("allows the page's one script by its SHA-256 and no other inline script", () => {
    const html = render([cardinality()]);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    const scriptSrc =
      csp
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('script-src')) ?? '';
    assert.doesNotMatch(scriptSrc, /unsafe-inline/);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    assert.equal(scripts.length, 1);
    assert.equal(scriptSrc, `script-src 'sha256-${createHash('sha256').update(scripts[0]!, 'utf8').digest('base64')}'`);
    assert.match(csp, /default-src 'none'/);
  });
});
