// Every piece of module-level mutable state in src/ is either owned by the run (registered with
// ownedByRun, so the engine empties it when a run starts and ends) or listed below with the
// reason it is not a run's; and parsers, kit and rules hold none at all (issue 30). A new module-level `let`, or a module-level Map, Set,
// array or object that the module mutates, or an instance of one of the module's classes with a
// field that is not readonly, fails here until it is one or the other.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `file:name` → why this module-level state does not belong to a run. */
const NOT_A_RUNS_STATE: Record<string, string> = {
  'src/util/body-memo.ts:derivations': 'numbers the perBody() derivations as their modules load: it counts code, not input',
  'src/input/open.ts:runTotals': 'the decompression ledger, replaced at the start of every run (startDecompressionLedger) and joined by its workers',
  'src/incident/correlate.ts:LINKS_BY_RULES': 'built once, as the module loads, from the constant CAUSAL_LINKS table',
  'src/cli/output.ts:pendingTemporaries': "the process's temporary output files, removed when it exits",
  'src/cli/output.ts:stdoutClosed': "the process's stdout",
  'src/cli/output.ts:exitWhenStdoutCloses': "the process's stdout",
  'src/cli/output.ts:noteCutReport': "the process's stdout",
  'src/cli/output.ts:guardsInstalled': "the process's signal and stdout handlers",
  'src/cli/output.ts:interruptCleanups': "the process's signal handlers: what runs before it ends on one",
  'src/cli/stderr.ts:rawWrite': "the process's stderr",
  'src/cli/explain-pages.ts:builtPagesOnce': 'the explain pages shipped in the package, read once; no input changes them',
  'src/util/run-caches.ts:runClears': 'the register of run-owned caches itself, one entry per module, added as it loads',
};

/**
 * Issue 30: no rule or parser module holds mutable state. The parsers' caches are the run's
 * ParseContext, a rule's memos live in its state. Below the parsers, in src/input and src/util,
 * only these remain, each registered with ownedByRun or listed above. `file:name` → what it is.
 */
const BELOW_THE_PARSERS: Record<string, string> = {
  'src/input/file-range.ts:spareBuffers': 'a pool of free read buffers, reused across files and emptied with the run',
  'src/input/open.ts:runTotals': 'the decompression ledger of the run',
  'src/util/body-memo.ts:derivations': 'the perBody() derivation numbers (code, not input)',
  'src/util/run-caches.ts:runClears': 'the register of run-owned caches',
};

const MUTABLE_INITIALISERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** Module-level `let` names, and `const` names bound to a new collection or literal that the module changes. */
function moduleState(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  // Classes of the module with a field that is not readonly (declared, or a constructor parameter
  // property such as `private count = 0` or `constructor(private count: number)`): an instance made
  // at module level holds state that every run of the process shares (a scratch buffer, a counter).
  const readonly = (node: ts.HasModifiers) => ts.getModifiers(node)?.some((mod) => mod.kind === ts.SyntaxKind.ReadonlyKeyword) === true;
  const isParameterProperty = (p: ts.ParameterDeclaration) => (ts.getModifiers(p) ?? []).length > 0;
  const mutableClasses = new Set(
    source.statements
      .filter(ts.isClassDeclaration)
      .filter((c) =>
        c.members.some(
          (m) =>
            (ts.isPropertyDeclaration(m) && !readonly(m)) ||
            (ts.isConstructorDeclaration(m) && m.parameters.some((p) => isParameterProperty(p) && !readonly(p))),
        ),
      )
      .map((c) => c.name?.text),
  );
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const isLet = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name)) continue;
      const name = declaration.name.text;
      if (isLet) {
        names.push(name);
        continue;
      }
      const init = declaration.initializer;
      if (init !== undefined && ts.isNewExpression(init) && ts.isIdentifier(init.expression) && mutableClasses.has(init.expression.text)) {
        names.push(name);
        continue;
      }
      const collection =
        init !== undefined &&
        ((ts.isNewExpression(init) && ts.isIdentifier(init.expression) && MUTABLE_INITIALISERS.has(init.expression.text)) ||
          ts.isArrayLiteralExpression(init) ||
          ts.isObjectLiteralExpression(init));
      if (collection && isMutated(name, text)) names.push(name);
    }
  }
  return names;
}

function isMutated(name: string, text: string): boolean {
  const at = `\\b${name}`;
  return new RegExp(
    `${at}\\.(?:set|add|push|pop|shift|unshift|splice|delete|clear|sort|reverse|fill)\\(|${at}(?:\\.\\w+|\\[[^\\]]+\\])\\s*(?:=(?!=)|\\+\\+|--|[-+*/|&]=)`,
  ).test(text);
}

/** The names an `ownedByRun(() => …)` call of the module mentions: one line, or up to a line `});`. */
function ownedNames(text: string): Set<string> {
  const owned = new Set<string>();
  for (const call of text.matchAll(/ownedByRun\(([^\n]*\);\n|[\s\S]*?\n\}\);\n)/g))
    for (const word of call[1]!.matchAll(/\b[A-Za-z_$][\w$]*\b/g)) owned.add(word[0]);
  return owned;
}

describe('module-level state', () => {
  const files = fg.sync('src/**/*.ts', { cwd: root }).sort();

  it('is owned by the run, or says why it is not', () => {
    const unowned: string[] = [];
    const seen = new Set<string>();
    for (const file of files) {
      const text = readFileSync(path.join(root, file), 'utf8');
      const owned = ownedNames(text);
      for (const name of moduleState(file, text)) {
        const key = `${file}:${name}`;
        seen.add(key);
        if (!owned.has(name) && !(key in NOT_A_RUNS_STATE)) unowned.push(key);
      }
    }
    assert.deepEqual(unowned, [], 'register these with ownedByRun (src/util/run-caches.ts) or list them in NOT_A_RUNS_STATE with the reason');
    const stale = Object.keys(NOT_A_RUNS_STATE).filter((key) => !seen.has(key));
    assert.deepEqual(stale, [], 'these NOT_A_RUNS_STATE entries name state that no longer exists');
  });

  it('parsers, kit and rules hold no module-level state; input and util only what is listed (issue 30)', () => {
    const found: string[] = [];
    for (const file of files.filter((f) => /^src\/(?:parsers|input|util|kit|rules)\//.test(f))) {
      for (const name of moduleState(file, readFileSync(path.join(root, file), 'utf8'))) found.push(`${file}:${name}`);
    }
    assert.deepEqual(
      found.filter((key) => !(key in BELOW_THE_PARSERS)),
      [],
      'keep this state in the parser instance, the ParseContext or the rule state, not at module level',
    );
    assert.deepEqual(
      Object.keys(BELOW_THE_PARSERS).filter((key) => !found.includes(key)),
      [],
      'moved out of module level: remove these from BELOW_THE_PARSERS',
    );
  });

  it('the scan finds what it is meant to find', () => {
    const text = [
      'let last = 0;',
      'const memo = new Map<string, number>();',
      'const TABLE = new Set([1, 2]);',
      'const seen: string[] = [];',
      'export function f(k: string) { memo.set(k, 1); seen.push(k); return TABLE.has(1); }',
    ].join('\n');
    assert.deepEqual(moduleState('probe.ts', text), ['last', 'memo', 'seen']);
    const probeNames = (owner: string) => [...ownedNames(owner)].filter((w) => ['last', 'memo', 'seen'].includes(w));
    assert.deepEqual(probeNames('ownedByRun(() => {\n  memo = new Map();\n  last = 0;\n});\nseen.push(1);\n'), ['memo', 'last']);
    assert.deepEqual(probeNames('ownedByRun(() => memo.clear());\nlast = seen;\n'), ['memo']);
    assert.ok(
      Object.keys(BELOW_THE_PARSERS).every((key) => /^src\/(?:input|util)\//.test(key)),
      'nothing is excused in parsers, kit or rules',
    );
  });
});
