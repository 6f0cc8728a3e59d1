// Rule ids are the joins between the registry and everything written about the rules: docs pages,
// the README table, docs/fleet.md, the incident and fix tables, literals in the source and lists in
// tests. Each of those is read here and every id in it must be registered, so a renamed, retired or
// misspelt rule fails the build instead of drifting (as `metric-duplicate-series` did). The second
// half holds each live log filter to the lines its offline rule counts.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildRuleGroups } from '../../src/export/build.js';
import { DEFAULT_SETTINGS } from '../../src/kit/export/types.js';
import { CAUSAL_LINKS } from '../../src/incident/correlate.js';
import { KNOWN_FIXES } from '../../src/knowledge/fixes.js';
import { EXPORTERS, REGISTRY, RULES } from '../../src/rules/index.js';
import { NO_OVERRIDES } from '../support/export-rules.js';
import { runPipeline } from '../support/loki-ruler.js';
import type { RuleCases } from '../support/rule-cases.js';
import { runRule } from '../support/rule-tester.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REGISTERED: ReadonlySet<string> = new Set(RULES.map((r) => r.meta.id));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return rel.startsWith('test/golden') ? [] : filesUnder(rel, ext);
    return rel.endsWith(ext) ? [rel] : [];
  });
}

/** `where: id` for each id that is not registered. */
function unregistered(where: string, ids: Iterable<string>): string[] {
  return [...ids].filter((id) => !REGISTERED.has(id)).map((id) => `${where}: ${id}`);
}

/** Links to a rule's page: `docs/rules/<id>.md`, `rules/<id>.md`. */
function linkedRuleIds(text: string): string[] {
  return [...text.matchAll(/\brules\/([a-z0-9-]+)\.md\b/g)].map((m) => m[1]!);
}

/**
 * Rule ids in the columns of Markdown tables headed `cause`, `effect` or `rules`: each cell is a
 * comma-separated list of ids, each optionally followed by a parenthesised condition.
 */
function tableRuleIds(markdown: string): string[] {
  const ids: string[] = [];
  let columns: number[] = [];
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      columns = [];
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (/^\|[-| :]+\|$/.test(line)) continue;
    if (columns.length === 0 && cells.some((c) => /^(cause|effect|rules)$/.test(c))) {
      columns = cells.flatMap((c, i) => (/^(cause|effect|rules)$/.test(c) ? [i] : []));
      continue;
    }
    for (const i of columns) {
      for (const part of (cells[i] ?? '').replace(/\([^)]*\)/g, '').split(',')) {
        const id = part.trim().replace(/`/g, '');
        if (id) ids.push(id);
      }
    }
  }
  return ids;
}

/** Rule ids in source literals: `ruleId: 'x'`, `absorbs: [{ rule: 'x' }]`, `coveredBy: [...]`, `foldsInto: [...]`, `ruleIds: [...]`, `disabledRules: [...]`, `linkerd-doctor.<id>` groups. */
function literalRuleIds(source: string): string[] {
  const ids: string[] = [];
  for (const m of source.matchAll(/\bruleId:\s*'([^']+)'/g)) ids.push(m[1]!);
  for (const m of source.matchAll(/\b(?:coveredBy|foldsInto|ruleIds|disabledRules):\s*\[([^\]]*)\]/g))
    for (const s of m[1]!.matchAll(/'([^']+)'/g)) ids.push(s[1]!);
  for (const m of source.matchAll(/\babsorbs:\s*\[([^\]]*)\]/g)) for (const r of m[1]!.matchAll(/\brule:\s*'([^']+)'/g)) ids.push(r[1]!);
  for (const m of source.matchAll(/'linkerd-doctor\.([a-z0-9-]+)'/g)) if (!REPORT_EXTENSIONS.has(m[1]!)) ids.push(m[1]!);
  return ids;
}

/** `linkerd-doctor.sarif` and the like are report files, not rule groups. */
const REPORT_EXTENSIONS = new Set(['sarif', 'md', 'xml', 'json', 'html', 'txt', 'yaml', 'yml']);

/** Ids that tests use on purpose because no rule has them (unknown-rule handling, models of other branches). */
const DELIBERATELY_UNREGISTERED = new Set(['x', 'r', 'other-rule', 'no-such-rule', 'future-rule', 'twin', 'Reconnect_Storm']);
/** This file, whose self-check quotes a retired id on purpose. */
const SELF = 'test/meta/rule-references.test.ts';

describe('every rule id referenced anywhere is registered', () => {
  it('the registry: each live twin is for its own rule, each causal link ends at a rule', () => {
    for (const entry of REGISTRY) if (entry.live) assert.equal(entry.live.ruleId, entry.rule.meta.id);
    assert.deepEqual(
      unregistered(
        'causal link',
        CAUSAL_LINKS.flatMap((l) => [l.cause, l.effect]),
      ),
      [],
    );
  });

  it('docs/rules has one page per rule, and no page for a rule that does not exist', () => {
    const pages = readdirSync(path.join(ROOT, 'docs/rules'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3));
    assert.deepEqual(pages.sort(), [...REGISTERED].sort());
  });

  it('links to rule pages in the README and docs', () => {
    const problems = ['README.md', ...filesUnder('docs', '.md')].flatMap((file) => unregistered(file, linkedRuleIds(read(file))));
    assert.deepEqual(problems, []);
  });

  it('the README rules table lists every rule once', () => {
    const rows = [...read('README.md').matchAll(/^\| \[`([a-z0-9-]+)`\]\(docs\/rules\/\1\.md\) \|/gm)].map((m) => m[1]!);
    assert.deepEqual([...rows].sort(), [...REGISTERED].sort());
  });

  it('docs/fleet.md has one section per rule with a live twin', () => {
    const sections = [...read('docs/fleet.md').matchAll(/^### ([a-z0-9-]+) — /gm)].map((m) => m[1]!);
    assert.deepEqual([...sections].sort(), EXPORTERS.map((e) => e.ruleId).sort());
  });

  it('the cause, effect and rules columns of docs/incidents.md, which describe every link and fix the code knows', () => {
    const incidents = read('docs/incidents.md');
    assert.deepEqual(unregistered('docs/incidents.md', tableRuleIds(incidents)), []);
    for (const link of CAUSAL_LINKS) {
      assert.match(incidents, new RegExp(`^\\| ${link.cause} \\| ${link.effect}\\b`, 'm'), `docs/incidents.md has no row for ${link.cause} → ${link.effect}`);
    }
    for (const fix of KNOWN_FIXES) {
      const row = new RegExp(`^\\| \`${fix.id}\` \\|.*\\| ([^|]*) \\|$`, 'm').exec(incidents);
      assert.ok(row, `docs/incidents.md has no row for fix ${fix.id}`);
      const documented = tableRuleIds(`| rules |\n|---|\n| ${row[1]} |`).sort();
      const linked = REGISTRY.filter((r) => r.incident?.fixes?.some((l) => l.fix === fix.id))
        .map((r) => r.rule.meta.id)
        .sort();
      assert.deepEqual(documented, linked, `the rules of fix ${fix.id} in docs/incidents.md`);
    }
  });

  it('rule id literals in the source', () => {
    assert.deepEqual(
      filesUnder('src', '.ts').flatMap((file) => unregistered(file, literalRuleIds(read(file)))),
      [],
    );
  });

  it('rule id lists and literals in the tests', () => {
    const problems = filesUnder('test', '.ts')
      .filter((file) => file !== SELF)
      .flatMap((file) =>
        unregistered(
          file,
          literalRuleIds(read(file)).filter((id) => !DELIBERATELY_UNREGISTERED.has(id)),
        ),
      );
    assert.deepEqual(problems, []);
  });

  it('catch a retired id in a table, a link and a literal', () => {
    const table =
      '| fix id | symptom | rules |\n|---|---|---|\n| `duplicate-series` | twice | metric-cardinality (duplicates counted), metric-duplicate-series |';
    assert.deepEqual(unregistered('t', tableRuleIds(table)), ['t: metric-duplicate-series']);
    assert.deepEqual(unregistered('t', linkedRuleIds('see [it](docs/rules/metric-duplicate-series.md)')), ['t: metric-duplicate-series']);
    assert.deepEqual(unregistered('t', literalRuleIds("rules: x, foldsInto: ['failfast', 'metric-duplicate-series']")), ['t: metric-duplicate-series']);
  });
});

/**
 * The line filters of a LogQL query (`|= "…"`, `|~ "…"`, `!= "…"`, `!~ "…"`), without its parser
 * stages and label matchers: those narrow by uptime or target, which the offline rule judges as
 * thresholds over the lines it counts, not by leaving lines out.
 */
function lineFilters(expr: string): string {
  return [...expr.matchAll(/(?:\|=|\|~|!=|!~) "(?:[^"\\]|\\.)*"/g)].map((m) => m[0]).join(' ');
}

describe('each live log filter accepts the lines its offline rule counts', () => {
  const LOG_KINDS = new Set(['proxy-log', 'coredns-log']);
  for (const entry of REGISTRY) {
    const id = entry.rule.meta.id;
    const live = entry.live;
    if (!live?.loki || !entry.rule.meta.inputs.some((k) => LOG_KINDS.has(k))) continue;
    it(`${id}: every sample line of its firing cases passes one of its Loki alerts`, async () => {
      const groups = buildRuleGroups({
        target: 'loki',
        settings: DEFAULT_SETTINGS,
        overrides: NO_OVERRIDES,
        notice: () => {},
        exporters: [live],
        registered: [],
      });
      const alerts = groups.flatMap((g) => g.rules);
      const { cases } = (await import(pathToFileURL(path.join(ROOT, 'src/rules', id, 'cases.ts')).href)) as { cases: RuleCases };
      let checked = 0;
      for (const c of cases.fires) {
        const run = await runRule(entry.rule, c.inputs, c.options);
        const logPaths = new Set(run.inputs.filter((i) => LOG_KINDS.has(i.kind)).map((i) => i.path));
        for (const sample of run.findings.flatMap((f) => f.evidence.samples ?? [])) {
          if (!logPaths.has(sample.path)) continue;
          checked++;
          assert.ok(
            alerts.some((a) => runPipeline(lineFilters(a.expr), sample.text) !== null),
            `"${c.name}": no Loki alert of ${id} accepts the line it counted:\n${sample.text}`,
          );
        }
      }
      assert.ok(checked > 0, `${id}: its firing cases quote no log line to check the live filter against`);
    });
  }
});
