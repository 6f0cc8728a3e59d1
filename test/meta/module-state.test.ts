// Every piece of module-level mutable state in src/ is either owned by the run (registered with
// ownedByRun or ownedByTask, so the engine empties it when a run, or a task of it, starts and
// ends) or listed below with the reason it is not a run's. A new module-level `let`, or a module-level Map, Set,
// array or object that the module mutates, fails here until it is one or the other.

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
  'src/parsers/proxy-log-body.ts:fieldKeyEnd': "keyAt()'s second return value, written before every read",
  'src/parsers/proxy-log-payload.ts:uptimeEnd': "readUptime()'s second return value, written before every read",
  'src/input/open.ts:runTotals': 'the decompression ledger, replaced at the start of every run (startDecompressionLedger) and joined by its workers',
  'src/incident/correlate.ts:LINKS_BY_RULES': 'built once, as the module loads, from the constant CAUSAL_LINKS table',
  'src/cli/output.ts:pendingTemporaries': "the process's temporary output files, removed when it exits",
  'src/cli/output.ts:stdoutClosed': "the process's stdout",
  'src/cli/output.ts:exitWhenStdoutCloses': "the process's stdout",
  'src/cli/output.ts:noteCutReport': "the process's stdout",
  'src/cli/output.ts:guardsInstalled': "the process's signal and stdout handlers",
  'src/cli/stderr.ts:rawWrite': "the process's stderr",
  'src/cli/explain-pages.ts:builtPagesOnce': 'the explain pages shipped in the package, read once; no input changes them',
  'src/util/run-caches.ts:runClears': 'the register of run-owned caches itself, one entry per module, added as it loads',
  'src/util/run-caches.ts:taskClears': 'the register of task-owned caches itself, one entry per module, added as it loads',
};

/**
 * Issue 30: no rule or parser module is to hold mutable state; the hot-path memos are to move into
 * the run's own context once the engine hands one down (a rule's state is such a context, the
 * parsers get none yet). Until then these, and only these, remain in src/parsers, src/input,
 * src/util, src/kit and src/rules, each registered with ownedByRun/ownedByTask or listed above. A new one
 * fails here: put it in the parser instance or the rule state instead. `file:name` → what it is.
 */
const PENDING_RUN_CONTEXT: Record<string, string> = {
  'src/input/file-range.ts:spareBuffers': 'read buffers reused across files',
  'src/input/open.ts:runTotals': 'the decompression ledger of the run',
  'src/parsers/collector-prefix.ts:lastSecond': 'one-entry memo of the last collector timestamp',
  'src/parsers/proxy-log-body.ts:currentBodies': 'the body cache',
  'src/parsers/proxy-log-body.ts:previousBodies': 'the body cache',
  'src/parsers/proxy-log-body.ts:seenOnce': 'the body cache (hashes of bodies seen once)',
  'src/parsers/proxy-log-body.ts:cacheGate': 'the body cache hit-rate gate',
  'src/parsers/proxy-log-body.ts:fieldKeyEnd': "keyAt()'s second return value",
  'src/parsers/proxy-log-payload.ts:uptimeEnd': "readUptime()'s second return value",
  'src/parsers/proxy-log.ts:interestRegexes': 'the interest regexes, per set of rules',
  'src/util/body-memo.ts:derivations': 'the perBody() derivation numbers (code, not input)',
  'src/util/run-caches.ts:runClears': 'the register of run-owned caches',
  'src/util/run-caches.ts:taskClears': 'the register of task-owned caches',
};

const MUTABLE_INITIALISERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** Module-level `let` names, and `const` names bound to a new collection or literal that the module changes. */
function moduleState(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
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

/** The names an `ownedByRun(() => …)` or `ownedByTask(…)` call of the module mentions: one line, or up to a line `});`. */
function ownedNames(text: string): Set<string> {
  const owned = new Set<string>();
  for (const call of text.matchAll(/ownedBy(?:Run|Task)\(([^\n]*\);\n|[\s\S]*?\n\}\);\n)/g))
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
    assert.deepEqual(unowned, [], 'register these with ownedByRun or ownedByTask (src/util/run-caches.ts) or list them in NOT_A_RUNS_STATE with the reason');
    const stale = Object.keys(NOT_A_RUNS_STATE).filter((key) => !seen.has(key));
    assert.deepEqual(stale, [], 'these NOT_A_RUNS_STATE entries name state that no longer exists');
  });

  it('parsers, input, util, kit and rules hold no module-level state but the memos waiting for a run context (issue 30)', () => {
    const found: string[] = [];
    for (const file of files.filter((f) => /^src\/(?:parsers|input|util|kit|rules)\//.test(f))) {
      for (const name of moduleState(file, readFileSync(path.join(root, file), 'utf8'))) found.push(`${file}:${name}`);
    }
    assert.deepEqual(
      found.filter((key) => !(key in PENDING_RUN_CONTEXT)),
      [],
      'keep this state in the parser instance or the rule state, not at module level',
    );
    assert.deepEqual(
      Object.keys(PENDING_RUN_CONTEXT).filter((key) => !found.includes(key)),
      [],
      'moved out of module level: remove these from PENDING_RUN_CONTEXT',
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
  });
});
