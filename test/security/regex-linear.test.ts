// Every regex that meets untrusted text runs in time linear in that text, measured, not reviewed.
//
// Collected, not listed: (1) every regex literal and `new RegExp('…')` in src/, found by parsing
// the sources with the TypeScript compiler; (2) every string exported by a rule's patterns.ts
// (compiled by the rules with `new RegExp`); (3) what is built at run time: each rule's interest
// regex from the registry, the union of all of them, --redact's pattern, and every catalogue
// signature as the known-signature rule compiles it. Each is run against pump strings built from its own literals
// and classes (a prefix that walks into the pattern, then one token repeated, then a rejecting
// character), first at 16 KiB, then the slowest pumps at 256 KiB; CPU per MiB must stay under
// MAX_CPU_MS_PER_MIB at both sizes. A backtracking pattern costs seconds per MiB at 16 KiB
// already (the landed LOGFMT_PAIR: 30 s/MiB), a linear one a few milliseconds.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import ts from 'typescript';
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { RULES } from '../../src/rules/index.js';
import { SIGNATURES, compileSignaturePattern } from '../../src/rules/known-signature/index.js';
import { literalRegex } from '../../src/util/literal-regex.js';
import { Redactor } from '../../src/report/redact.js';

const SRC = join(import.meta.dirname, '../../src');
const MAX_CPU_MS_PER_MIB = 2_000;
const SCREEN_BYTES = 16 * 1024;
const CONFIRM_BYTES = 256 * 1024;
/** Pumps per pattern re-run at CONFIRM_BYTES: the slowest at the screen size. */
const CONFIRMED_PUMPS = 2;

interface Subject {
  name: string;
  source: string;
  flags: string;
  /** Runs the pattern the way its caller can: every match of a global scan, or one test. */
  run(text: string): void;
}

function globalScan(source: string, flags: string): (text: string) => void {
  const re = new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
  return (text) => {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) if (m[0] === '') re.lastIndex++;
  };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Regex literals and `new RegExp('literal', 'flags')` in every source file. */
function staticRegexes(): Subject[] {
  const found: Subject[] = [];
  for (const file of sourceFiles(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) => `${relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        const slash = node.text.lastIndexOf('/');
        const source = node.text.slice(1, slash);
        const flags = node.text.slice(slash + 1);
        found.push({ name: where(node), source, flags, run: globalScan(source, flags) });
      } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
        const [pattern, flagsArg] = node.arguments ?? [];
        if (pattern && ts.isStringLiteralLike(pattern)) {
          const flags = flagsArg && ts.isStringLiteralLike(flagsArg) ? flagsArg.text : '';
          found.push({ name: where(node), source: pattern.text, flags, run: globalScan(pattern.text, flags) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

/** Exported strings of the rules' patterns.ts modules: regex sources the rules compile. */
async function patternModuleRegexes(): Promise<Subject[]> {
  const found: Subject[] = [];
  for (const file of sourceFiles(join(SRC, 'rules')).filter((f) => f.endsWith('/patterns.ts'))) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      for (const source of typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : []) {
        found.push({ name: `${relative(SRC, file)} ${name}`, source, flags: '', run: globalScan(source, '') });
      }
    }
  }
  return found;
}

/** What the engine builds at run time from the registry and the catalogue. */
function runtimeRegexes(): Subject[] {
  const found: Subject[] = [];
  const everyLiteral = new Set<string>();
  for (const rule of RULES) {
    for (const [kind, literals] of Object.entries(rule.meta.lineInterest ?? {})) {
      if (!literals || literals.length === 0) continue;
      literals.forEach((l) => everyLiteral.add(l));
      for (const re of [literalRegex(literals), literalRegex(literals, { longest: true, flags: 'g' })]) {
        found.push({ name: `${rule.meta.id} interest (${kind})`, source: re.source, flags: re.flags, run: globalScan(re.source, re.flags) });
      }
    }
  }
  const union = literalRegex([...everyLiteral], { longest: true, flags: 'g' });
  found.push({ name: 'interest union of every rule', source: union.source, flags: union.flags, run: globalScan(union.source, union.flags) });
  // --redact runs one built pattern over every string of the report (sample lines included).
  const redactor = new Redactor();
  redactor.learn({ pod: 'web-7d4f9c6b8d-x2x9z', namespace: 'shop', workload: 'web' });
  redactor.redactText('');
  const redactPattern = (redactor as unknown as { pattern: RegExp }).pattern;
  found.push({ name: 'redact pattern', source: redactPattern.source, flags: redactPattern.flags, run: (text) => void redactor.redactText(text) });
  for (const s of SIGNATURES) {
    const matcher = compileSignaturePattern(s.match.pattern);
    found.push({ name: `signature ${s.id}`, source: s.match.pattern, flags: '', run: (text) => void matcher.test(text) });
  }
  return found;
}

// Pump strings -----------------------------------------------------------------------------------

const CANDIDATE_CHARS = ['a', 'A', '0', ' ', '-', '.', '_', ':', '/', '\\', '@', '=', '"', '{', '}', '(', ')', '[', '#', '$', '~', ',', '\t', 'é'];

/** A character the element matches, or '' when it matches none of the candidates. */
function sampleOf(raw: string, flags: string, extra: readonly string[]): string {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${raw})$`, flags.replace(/[gy]/g, ''));
  } catch {
    return '';
  }
  return [...extra, ...CANDIDATE_CHARS].find((c) => re.test(c)) ?? '';
}

interface Walk {
  /** Strings that follow the pattern some way in, after each element of the first path. */
  prefixes: string[];
  /** Pieces to repeat: literal runs, one character per class, pairs of neighbouring elements. */
  tokens: Set<string>;
}

function pumpsFor(subject: Subject): string[] {
  let pattern: AST.Pattern;
  try {
    pattern = new RegExpParser({ ecmaVersion: 2025 }).parsePattern(subject.source, 0, subject.source.length, {
      unicode: subject.flags.includes('u'),
      unicodeSets: subject.flags.includes('v'),
    });
  } catch {
    return ['a'];
  }
  const literalChars = [...new Set(subject.source.replace(/\\./g, '').split(''))];
  const walk: Walk = { prefixes: [''], tokens: new Set() };
  const sampleElement = (e: AST.Element): string => {
    switch (e.type) {
      case 'Character':
        return String.fromCodePoint(e.value);
      case 'CharacterClass':
      case 'CharacterSet':
      case 'ExpressionCharacterClass':
        return sampleOf(e.raw, subject.flags, literalChars);
      case 'Group':
      case 'CapturingGroup':
        return e.alternatives.map(sampleAlternative)[0] ?? '';
      case 'Quantifier': {
        const one = sampleElement(e.element);
        walk.tokens.add(one);
        return one.repeat(Math.max(1, Math.min(e.min, 3)));
      }
      default:
        return '';
    }
  };
  function sampleAlternative(alt: AST.Alternative): string {
    let text = '';
    let run = '';
    let previous = '';
    for (const e of alt.elements) {
      const sample = sampleElement(e);
      if (e.type === 'Character') run += sample;
      else {
        if (run) walk.tokens.add(run);
        run = '';
        if (sample) walk.tokens.add(sample);
      }
      if (previous && sample) walk.tokens.add(previous + sample);
      previous = sample;
      text += sample;
    }
    if (run) walk.tokens.add(run);
    return text;
  }
  for (const alt of pattern.alternatives) {
    let text = '';
    alt.elements.forEach((e, i) => {
      text += sampleElement(e);
      // After each literal run and each other element, not after every character of a literal.
      if (e.type !== 'Character' || alt.elements[i + 1]?.type !== 'Character') walk.prefixes.push(text);
    });
    sampleAlternative(alt);
  }
  const prefixes = [...new Set(walk.prefixes)].slice(0, 12);
  const tokens = [...walk.tokens].filter((t) => t !== '').slice(0, 24);
  // Whole prefixes repeated too: many starts of the pattern, each running to the end of the line.
  const pumps = new Set<string>();
  for (const prefix of prefixes) {
    if (prefix !== '') pumps.add(`\u0000${prefix}`);
    for (const token of tokens) pumps.add(`${prefix}\u0000${token}`);
  }
  return [...pumps];
}

/** `prefix` once, `token` repeated to `bytes`, one rejecting character (NUL splits prefix|token; no prefix: the whole walk repeated). */
function build(pump: string, bytes: number): string {
  const cut = pump.indexOf('\u0000');
  const prefix = pump.slice(0, cut);
  const token = pump.slice(cut + 1);
  return prefix + token.repeat(Math.ceil(bytes / token.length)) + '\u0001';
}

function cpuMsOf(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export interface Verdict {
  worstMsPerMiB: number;
  pump: string;
}

/** The worst CPU per MiB over the subject's pumps; stops at the first pump over the bound. */
export function measure(subject: Subject, screenBytes = SCREEN_BYTES, confirmBytes = CONFIRM_BYTES): Verdict {
  const timed: { pump: string; ms: number }[] = [];
  const perMiB = (ms: number, bytes: number) => (ms * 1024 * 1024) / bytes;
  for (const pump of pumpsFor(subject)) {
    const text = build(pump, screenBytes);
    // The better of two runs: a GC pause on a shared machine is not the pattern's cost.
    let ms = cpuMsOf(() => subject.run(text));
    if (perMiB(ms, text.length) > MAX_CPU_MS_PER_MIB)
      ms = Math.min(
        ms,
        cpuMsOf(() => subject.run(text)),
      );
    if (perMiB(ms, text.length) > MAX_CPU_MS_PER_MIB) return { worstMsPerMiB: perMiB(ms, text.length), pump };
    timed.push({ pump, ms });
  }
  let worst: Verdict = { worstMsPerMiB: 0, pump: '' };
  for (const { pump } of timed.sort((a, b) => b.ms - a.ms).slice(0, CONFIRMED_PUMPS)) {
    const text = build(pump, confirmBytes);
    const ms = Math.min(
      cpuMsOf(() => subject.run(text)),
      cpuMsOf(() => subject.run(text)),
    );
    if (perMiB(ms, text.length) > worst.worstMsPerMiB) worst = { worstMsPerMiB: perMiB(ms, text.length), pump };
  }
  return worst;
}

test('every regex on untrusted text stays under 2 s CPU per MiB on pumps built for it (16 KiB, 256 KiB)', async () => {
  const subjects = [...staticRegexes(), ...(await patternModuleRegexes()), ...runtimeRegexes()];
  // The collection itself is checked, so a refactor that hides regexes from it cannot pass quietly.
  assert.ok(subjects.filter((s) => s.name.startsWith('signature ')).length === SIGNATURES.length);
  assert.ok(
    subjects.some((s) => s.name.startsWith('parsers/pasted.ts')),
    'the sniffer patterns are collected',
  );
  assert.ok(
    subjects.some((s) => s.name.startsWith('parsers/proxy-log-structured.ts')),
    'LOGFMT_PAIR is collected',
  );
  assert.ok(
    subjects.some((s) => s.name.startsWith('util/path-meta.ts')),
    'the path metadata patterns are collected',
  );
  assert.ok(
    subjects.some((s) => s.name.startsWith('input/discover.ts')),
    'the input layer is collected',
  );
  assert.ok(
    subjects.some((s) => s.name.startsWith('parsers/dig.ts')),
    'the sniff patterns declared beside the parsers are collected',
  );
  assert.ok(
    subjects.some((s) => s.name.includes('/patterns.ts ')),
    'the rules\u2019 pattern sources are collected',
  );
  assert.ok(subjects.length > 150, `only ${subjects.length} regexes collected`);
  const unique = [...new Map(subjects.map((s) => [`${s.name.startsWith('signature ') ? 're2 ' : ''}/${s.source}/${s.flags}`, s])).values()];
  const slow = unique
    .map((s) => ({ s, verdict: measure(s) }))
    .filter(({ verdict }) => verdict.worstMsPerMiB > MAX_CPU_MS_PER_MIB)
    .map(
      ({ s, verdict }) => `${s.name} /${s.source}/${s.flags}: ${Math.round(verdict.worstMsPerMiB)} ms CPU/MiB on ${JSON.stringify(verdict.pump.slice(0, 60))}`,
    );
  assert.deepEqual(slow, []);
});

test('the detector flags the backtracking patterns this project shipped before', () => {
  // As they were landed (issue 27): each must be caught, or the test above proves nothing.
  const landed = [
    ['known-signature', 'controller\\{addr=[^}]*\\}.*Failed to connect.*Connection refused', ''],
    ['sniffer kubectl prompt', '^(?:[$#%]\\s*|:;\\s*|\\S+@\\S+[:~][^$#]*[$#]\\s*)?(?:sudo\\s+)?(?:kubectl|oc|stern|kubetail)(?:\\s|$)', ''],
    ['LOGFMT_PAIR', '([\\w.-]+)=(?:"((?:[^"\\\\]|\\\\.)*)"|(\\S*))', 'g'],
    ['path-meta colon', '[\\\\/]|:(?=[^/\\\\]*[/\\\\])', 'g'],
  ] as const;
  for (const [name, source, flags] of landed) {
    // Smaller than the sizes above: these patterns cost minutes at 256 KiB.
    const verdict = measure({ name, source, flags, run: globalScan(source, flags) }, 8 * 1024, 64 * 1024);
    assert.ok(verdict.worstMsPerMiB > MAX_CPU_MS_PER_MIB, `${name}: only ${Math.round(verdict.worstMsPerMiB)} ms/MiB`);
  }
});
