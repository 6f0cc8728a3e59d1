import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

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
    rules: { 'max-lines': ['error', { max: MAX_SOURCE_LINES, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js', '*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
