// ESLint: typescript-eslint's strict type-checked rules over src/ and test/; formatting is Prettier's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/bench/**', 'bin/**', 'eslint.config.js'] },
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
      'no-restricted-syntax': ['error', { selector: 'TSParameterProperty, PropertyDefinition[accessibility="private"], MethodDefinition[accessibility="private"]', message: 'use a #private member' }],
    },
  },
  {
    // A rule's result is the schema-shaped JSON the schema walk fills in, typed `any` on purpose
    // (`Generated`, rules/rule.ts): the contract tests check the shapes, not the compiler.
    files: ['src/sandbox/generate/rules/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // Tests read what the CLI printed (JSON.parse, CSV rows) and assert on it: the values are
    // `any` by nature, and the assertions are the type check.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/restrict-plus-operands': 'off',
    },
  },
);
