// ESLint: typescript-eslint's strict type-checked rules over src/ and test/; formatting is Prettier's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The no-unsafe rules, off where values are untyped on purpose (see each use). */
const UNTYPED_VALUES_ALLOWED = Object.fromEntries(
  ['no-unsafe-assignment', 'no-unsafe-member-access', 'no-unsafe-return', 'no-unsafe-argument', 'no-unsafe-call'].map((rule) => [
    `@typescript-eslint/${rule}`,
    'off',
  ]),
);

export default tseslint.config(
  // test/fixtures holds data and the scripts that made it (run with Python and SheetJS, not part of the project's build), as .prettierignore has it.
  { ignores: ['dist/**', 'node_modules/**', 'test/bench/**', 'test/fixtures/**', 'bin/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.json', './test/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Template literals with numbers are how messages are written here.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // With noUncheckedIndexedAccess, `rows[i]!` states what the loop bound already guarantees.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `(x) => void sideEffect(x)` and `() => list.push(x)` as callbacks read well and do no harm.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // `_meta` and similar: destructured only to leave them out.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // One privacy style: ECMAScript `#` fields, never TypeScript's `private`.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSParameterProperty, PropertyDefinition[accessibility="private"], MethodDefinition[accessibility="private"]',
          message: 'use a #private member',
        },
      ],
    },
  },
  {
    // A rule's result is the schema-shaped JSON the schema walk fills in, typed `any` on purpose
    // (`Generated`, rules/rule.ts): the contract tests check the shapes, not the compiler.
    files: ['src/sandbox/generate/rules/**'],
    rules: UNTYPED_VALUES_ALLOWED,
  },
  {
    // Tests read what the CLI printed (JSON.parse, CSV rows) and assert on it: the values are
    // `any` by nature, and the assertions are the type check.
    files: ['test/**'],
    rules: {
      ...UNTYPED_VALUES_ALLOWED,
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/restrict-plus-operands': 'off',
    },
  },
);
