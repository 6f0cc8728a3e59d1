// The layers (issue 32) are law through .dependency-cruiser.json, which `npm run lint` runs over the
// whole tree. This test does not cruise the tree again: it cruises a small throw-away tree laid out
// like src/, with the project's own forbidden rules, and checks that each rule reports the imports
// it is meant to forbid and that the imports a rule folder is allowed raise nothing.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const config = JSON.parse(readFileSync(path.join(root, '.dependency-cruiser.json'), 'utf8')) as {
  forbidden: IForbiddenRuleType[];
  options: Record<string, unknown>;
};

/** Module → the modules it imports (paths under src/, without the extension). */
const TREE: Record<string, string[]> = {
  // Legal: a rule imports the floor, knowledge, the kit and its own folder; the registry lists it
  // (its one wrong-way import, of a parser, is among the expected violations below).
  'core/types': [],
  'util/stats': ['core/types'],
  'knowledge/fixes': ['core/types'],
  'kit/log-signal': ['util/stats', 'knowledge/fixes'],
  'rules/demo/patterns': [],
  'rules/demo/index': ['core/types', 'util/stats', 'knowledge/fixes', 'kit/log-signal', 'rules/demo/patterns'],
  'rules/other/index': ['core/types'],
  'rules/index': ['rules/demo/index', 'rules/other/index', 'kit/log-signal', 'parsers/proxy-log'],
  'input/open': ['core/types'],
  'parsers/proxy-log': ['core/types'],
  'engine/engine': ['input/open', 'parsers/proxy-log', 'util/stats'],
  'incident/correlate': ['rules/index'],
  'report/report': ['incident/correlate', 'rules/index'],
  'config/config': ['report/report', 'rules/index'],
  'cli/argv': ['config/config', 'engine/engine'],
  'commands/analyze': ['cli/argv'],

  // Each of these breaks a layer.
  'rules/bad/index': ['cli/argv', 'rules/other/index', 'rules/index', 'engine/engine', 'parsers/proxy-log'],
  'kit/bad': ['parsers/proxy-log'],
  'knowledge/bad': ['kit/log-signal'],
  'util/bad': ['input/open'],
  'input/bad': ['parsers/proxy-log'],
  'parsers/bad': ['engine/engine'],
  'engine/bad': ['rules/other/index', 'incident/correlate', 'report/report'],
  'incident/bad': ['report/report'],
  'report/bad': ['config/config'],
  'config/bad': ['cli/argv'],
  'cli/bad': ['rules/demo/index', 'commands/analyze'],
};

const EXPECTED = [
  'commands-are-entry-points: cli/bad → commands/analyze',
  'engine-runs-what-it-is-given: engine/bad → incident/correlate',
  'engine-runs-what-it-is-given: engine/bad → report/report',
  'engine-runs-what-it-is-given: engine/bad → rules/other/index',
  'floor-imports-only-floor: util/bad → input/open',
  'incident-below-report: incident/bad → report/report',
  'input-reads-bytes: input/bad → parsers/proxy-log',
  'kit-below-rules: kit/bad → parsers/proxy-log',
  'knowledge-imports-only-floor: knowledge/bad → kit/log-signal',
  'nothing-below-cli-imports-cli: config/bad → cli/argv',
  'nothing-below-cli-imports-cli: rules/bad/index → cli/argv',
  'only-the-registry-imports-rule-folders: cli/bad → rules/demo/index',
  'only-the-registry-imports-rule-folders: engine/bad → rules/other/index',
  'parsers-below-engine: parsers/bad → engine/engine',
  'registry-lists-rules: rules/index → parsers/proxy-log',
  'report-below-config-and-cli: report/bad → config/config',
  'rule-imports-only-kit: rules/bad/index → cli/argv',
  'rule-imports-only-kit: rules/bad/index → engine/engine',
  'rule-imports-only-kit: rules/bad/index → parsers/proxy-log',
  'rule-imports-only-kit: rules/bad/index → rules/index',
  'rule-imports-only-kit: rules/bad/index → rules/other/index',
];

describe('dependency-cruiser enforces the layers', () => {
  let dir = '';
  let violations: string[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ld-layers-'));
    for (const [module, imports] of Object.entries(TREE)) {
      const file = path.join(dir, 'src', `${module}.ts`);
      mkdirSync(path.dirname(file), { recursive: true });
      const lines = imports.map((target, i) => `import { value as v${i} } from '${relativeSpecifier(module, target)}';`);
      writeFileSync(file, [...lines, `export const value = ${imports.map((_, i) => `v${i}`).join(' + ') || '1'};`, ''].join('\n'));
    }
    // The project's options without its tsconfig (the throw-away tree has none); the rules unchanged.
    const { tsConfig: _tsConfig, ...options } = config.options;
    const { output } = await cruise(['src'], { ...options, baseDir: dir, validate: true, ruleSet: { forbidden: config.forbidden } });
    violations = (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${short(v.from)} → ${short(v.to)}`).sort();
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every forbidden rule carries a comment saying why', () => {
    for (const rule of config.forbidden) assert.ok((rule.comment ?? '').length > 40, `${rule.name} has no comment`);
  });

  it('reports each wrong-way import under the rule that forbids it, and nothing that is allowed', () => {
    assert.deepEqual(violations, EXPECTED);
  });

  it('every layer rule is exercised here (no-circular has its own test in structure.test.ts)', () => {
    const exercised = new Set(violations.map((v) => v.split(':')[0]));
    const untested = config.forbidden.map((r) => r.name).filter((name) => name !== 'no-circular' && !exercised.has(name));
    assert.deepEqual(untested, [], 'add a wrong-way import for these rules to TREE and EXPECTED');
  });
});

function relativeSpecifier(from: string, to: string): string {
  const relative = path.posix.relative(path.posix.dirname(from), to);
  return `${relative.startsWith('.') ? relative : `./${relative}`}.js`;
}

function short(file: string): string {
  return file.replace(/^src\//, '').replace(/\.ts$/, '');
}
