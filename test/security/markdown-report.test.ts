// The markdown report is posted as a PR comment or job summary: a value from the inputs must render
// as text, never as a link, image, HTML, mention or the end of a code block (issue 21), and the
// report must stay under GitHub's 65,536-character comment limit however many pods are affected
// (issue 18). The findings are real ones (the CLI's JSON on fixtures/storm and
// fixtures/traefik-cardinality) with hostile text put into every string field.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { marked } from 'marked';
import { InputError } from '../../src/core/errors.js';
import type { Finding, InputStats } from '../../src/core/types.js';
import { FORMATTERS } from '../../src/report/formats/index.js';
import { MARKDOWN_COMMENT_LIMIT } from '../../src/report/formats/markdown.js';
import { buildReport, visibleFindings, type Report } from '../../src/report/report.js';
import { cli, scratch, stormPodsNamed } from './hostile.js';

const MD_ATTACK =
  '![pixel](https://evil.example/p.png) [click](https://evil.example/x) <img src=x onerror=alert(1)> <script>alert(1)</script> </details> @octocat https://evil.example/bare www.evil.example ``` ~~~ `` ` | &lt;b&gt; [ref]: https://evil.example/ref';
const ATTACK_LINES = `${MD_ATTACK}\n\n</details>\n\n<img src=y>\n# heading\n    indented`;

let real: { inputs: InputStats[]; findings: Finding[] };

before(() => {
  const run = cli(['analyze', 'fixtures/storm', 'fixtures/traefik-cardinality', '--format', 'json', '--no-progress']);
  assert.equal(run.status, 1, run.stderr);
  const report = JSON.parse(run.stdout) as { inputs: InputStats[]; findings: Finding[] };
  real = { inputs: report.inputs, findings: report.findings };
  assert.ok(real.findings.length >= 5);
});

const OURS = new Set(['ruleId', 'severity', 'docsUrl', 'fingerprint', 'state']);

/** Every string field of a finding (and an extra evidence key) carries the attack. */
function poisoned<T>(value: T, key?: string): T {
  // Timestamps stay parseable: the incident correlation reads them.
  if (typeof value === 'string')
    return (
      (key && OURS.has(key)) || /^\d{4}-\d\d-\d\dT/.test(value) ? value : `${value} ${key === 'message' || key === 'remediation' ? ATTACK_LINES : MD_ATTACK}`
    ) as T;
  if (Array.isArray(value)) return value.map((v) => poisoned(v, key)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = poisoned(v, k);
  if (key === 'evidence') out[`hostile ${MD_ATTACK}`] = MD_ATTACK;
  return out as T;
}

function markdown(report: Report): string {
  return FORMATTERS.markdown(report, {
    color: false,
    findings: visibleFindings(report, 'info'),
    failOn: report.failOn,
    minSeverity: 'info',
    cwd: process.cwd(),
  });
}

/** What GitHub would render, checked on marked's GFM HTML (raw HTML passes through it unchanged). */
export function assertInert(md: string, detailed: number): void {
  if (process.env.LD_DUMP_MD) writeFileSync(process.env.LD_DUMP_MD, md);
  const html = marked.parse(md, { gfm: true, async: false }) as string;
  assert.doesNotMatch(html, /<img/i, 'no image');
  assert.doesNotMatch(html, /<script/i, 'no script');
  for (const href of html.match(/href="[^"]*"/g) ?? [])
    assert.match(
      href,
      /^href="https:\/\/(github\.com\/linkerd-doctor\/|github\.com\/linkerd\/|linkerd\.io\/)/,
      `only our docs and Linkerd's are linked: ${href}`,
    );
  assert.equal((html.match(/<details>/g) ?? []).length, detailed, 'one <details> per detailed finding');
  assert.equal((html.match(/<\/details>/g) ?? []).length, detailed, 'no </details> from the inputs');
  assert.doesNotMatch(html, /<h[1-6][^>]*>heading/, 'no heading from the inputs');
  // GitHub links mentions and bare URLs in rendered text; a zero-width space breaks both.
  // (Not inside code, where GitHub does neither.) Code is found by the Markdown parser, not by
  // pairing backticks with a regex: a code span whose text holds shorter backtick runs (the
  // attack's ``` and ``) paired wrongly and left code text looking like prose.
  const outsideCode = html.replace(/<pre>[\s\S]*?<\/pre>/g, '').replace(/<code>[\s\S]*?<\/code>/g, '');
  assert.doesNotMatch(outsideCode, /@octocat/, 'no mention');
  assert.doesNotMatch(outsideCode, /https:\/\/evil|www\.evil/, 'no autolink');
  // Code blocks: each opening fence is closed by the same fence.
  const fences = md.split('\n').filter((l) => /^`{3,}/.test(l));
  assert.equal(fences.length % 2, 0, 'balanced fences');
}

describe('markdown escaping', () => {
  it('renders hostile text in every field as text', () => {
    const findings = poisoned(real.findings);
    const report = buildReport(
      {
        inputs: real.inputs,
        findings,
        skippedRules: [{ ruleId: 'dns-ttl-zero', reason: MD_ATTACK }],
        ruleFailures: [],
        errors: [new InputError(`evil ${MD_ATTACK}.log`, MD_ATTACK, 3)],
      },
      'error',
      { suppressions: [{ rule: 'metric-cardinality', reason: MD_ATTACK, source: 'config' }] },
    );
    const md = markdown(report);
    // The hostile text makes every finding long: the size budget may leave some undetailed.
    const detailed = (md.match(/^<details>/gm) ?? []).length;
    assert.ok(detailed >= 3, `${detailed} detailed`);
    assertInert(md, detailed);
    assert.ok(md.includes('\\!\\[pixel\\]'), 'the attack text is still shown, as text');
  });

  it('the CLI escapes pod and path names the same way', () => {
    const dir = scratch('md');
    const bundle = stormPodsNamed(dir, '-x<img src=x>@octocat`', 2);
    const run = cli(['analyze', bundle, '--format', 'markdown', '--no-progress']);
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const detailed = (run.stdout.match(/^<details>/gm) ?? []).length;
    assert.ok(detailed > 0);
    assertInert(run.stdout, detailed);
  });

  it('a baseline entry without a title does not crash it', () => {
    const report = buildReport({ inputs: real.inputs, findings: real.findings, skippedRules: [], ruleFailures: [], errors: [] }, 'error', {
      ruleIds: [...new Set(real.findings.map((f) => f.ruleId))],
      baseline: {
        file: 'b.json',
        tolerancePercent: 10,
        data: {
          schemaVersion: 1,
          tool: { name: 'x', version: '1' },
          findings: [{ fingerprint: 'gone', ruleId: 'reconnect-storm', severity: 'error' } as never],
        },
      },
    });
    assert.match(markdown(report), /1 fixed \(reconnect-storm/);
  });
});

describe('markdown size', () => {
  it('40 pods of findings stay under the comment limit, folded, with a pointer to the full report', () => {
    // Each real finding repeated for 40 pods, as 40 Traefik pods with the same dump give.
    const findings = Array.from({ length: 40 }, (_, i) =>
      real.findings.map((f) => ({
        ...f,
        subject: { ...f.subject, pod: `traefik-7d9f8c6b5-pod${i}` },
        message: `${f.message} (pod ${i})`,
        evidence: { ...f.evidence, pod: `traefik-7d9f8c6b5-pod${i}` },
      })),
    ).flat();
    const report = buildReport(
      {
        inputs: real.inputs,
        findings,
        skippedRules: [],
        ruleFailures: [],
        errors: Array.from({ length: 500 }, (_, i) => new InputError(`bundle/pod-${i}.log`, 'nothing recognisable')),
      },
      'error',
      {
        // Unfolded, as 240 findings of distinct causes would be; folded they make one per cause.
        fold: false,
      },
    );
    const md = markdown(report);
    assert.ok(md.length < MARKDOWN_COMMENT_LIMIT, `${md.length} characters`);
    assert.ok(md.length > 20_000, 'the budget is used, not thrown away');
    assert.match(md, /Not shown here to stay within GitHub's 65,536-character comment limit/);
    assert.match(md, /full report is in the JSON, SARIF or HTML output/);
    assert.match(md, /… and 480 more input error\(s\)/);
    const detailed = (md.match(/^<details>/gm) ?? []).length;
    assert.ok(detailed >= 1);
    assertInert(md, detailed);
  });

  it('a small report is not truncated', () => {
    const md = markdown(buildReport({ inputs: real.inputs, findings: real.findings, skippedRules: [], ruleFailures: [], errors: [] }, 'error'));
    assert.doesNotMatch(md, /Not shown here/);
    assert.equal((md.match(/^<details>/gm) ?? []).length, real.findings.length);
  });
});

describe('links the rules write themselves', () => {
  it("stay clickable for Linkerd's own docs, while an outside host in the same prose does not link", () => {
    const ingress = real.findings.find((f) => f.remediation.includes('https://linkerd.io/'));
    assert.ok(ingress, 'a finding whose fix points at linkerd.io');
    const md = markdown(
      buildReport(
        {
          inputs: real.inputs,
          findings: [{ ...ingress, message: `${ingress.message} see https://evil.example/x` }],
          skippedRules: [],
          ruleFailures: [],
          errors: [],
        },
        'error',
      ),
    );
    assert.match(md, /https:\/\/linkerd\.io\/2-edge\/tasks\/using-ingress\//, 'the docs URL is intact, with no invisible character');
    assert.doesNotMatch(md, /https:\/\/evil/, 'the outside URL is not autolinked');
  });
});
