import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

/**
 * Local rules. `no-plain-dict`: a plain object literal typed `Record<string, …>` (or with a string
 * index signature) inherits `constructor`, `toString` and `__proto__`, so a name from the input
 * that happens to be one of them finds an entry it never had (a container named `constructor` was
 * taken for a Linkerd controller; `level=__proto__` read as the level `{}`; issue 44). Such tables
 * are built with src/util/dict.ts (no prototype) or are a Map. Tables whose keys are a closed union
 * (`Record<Severity, …>`) are not flagged: only a string key can carry an input's name.
 */
const isStringKeyedType = (t) => {
  if (!t) return false;
  if (t.type === 'TSTypeReference' && t.typeName.type === 'Identifier') {
    const args = (t.typeArguments ?? t.typeParameters)?.params ?? [];
    if (t.typeName.name === 'Readonly') return isStringKeyedType(args[0]);
    if (t.typeName.name === 'Record') return args[0]?.type === 'TSStringKeyword';
  }
  if (t.type === 'TSTypeLiteral')
    return t.members.some((m) => m.type === 'TSIndexSignature' && m.parameters[0]?.typeAnnotation?.typeAnnotation?.type === 'TSStringKeyword');
  return false;
};
const unwrapTs = (e) => (e && (e.type === 'TSAsExpression' || e.type === 'TSSatisfiesExpression') ? unwrapTs(e.expression) : e);
const doctorRules = {
  rules: {
    'no-plain-dict': {
      meta: {
        type: 'problem',
        schema: [],
        messages: {
          plain:
            'A plain object keyed by strings inherits `constructor`/`__proto__`: use dict() or lookupTable() from src/util/dict.ts, or a Map, so a name from the input is only ever its own entry.',
        },
      },
      create(context) {
        const check = (node, type, init) => {
          const value = unwrapTs(init);
          if (value?.type !== 'ObjectExpression') return;
          if (isStringKeyedType(type) || (init.type === 'TSAsExpression' && isStringKeyedType(init.typeAnnotation)))
            context.report({ node, messageId: 'plain' });
        };
        return {
          VariableDeclarator: (node) => check(node, node.id.typeAnnotation?.typeAnnotation, node.init),
          PropertyDefinition: (node) => check(node, node.typeAnnotation?.typeAnnotation, node.value),
        };
      },
    },
  },
};

/** Every line counts, as `wc -l` counts them: the measure is how much one file asks a reader to hold. */
const MAX_SOURCE_LINES = 500;

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'fixtures/', 'coverage/', 'bench/.data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Every regex in src/ meets untrusted lines (1 MiB each at most): a pattern that backtracks
    // super-linearly turns one hostile line into hours of CPU. No exemptions here; patterns built
    // at run time are covered by test/security/regex-linear.test.ts instead.
    files: ['src/**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': ['error', { ignoreSticky: false, ignorePartial: false }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { doctor: doctorRules },
    rules: { 'doctor/no-plain-dict': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: MAX_SOURCE_LINES, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js', '*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
