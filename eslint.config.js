import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Source files longer than MAX_SOURCE_LINES when the limit came in, each waiting to be split
 * along its own seams. This list must only shrink: a file leaves it once split, and no file joins
 * it (test/meta/structure.test.ts fails on an entry that no longer exceeds the limit).
 */
const OVERSIZED_SOURCE_FILES = [
  'src/incident/correlate.ts',
  'src/rules/reconnect-storm/index.ts',
];
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
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', { max: MAX_SOURCE_LINES, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: OVERSIZED_SOURCE_FILES,
    rules: { 'max-lines': 'off' },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js', '*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
