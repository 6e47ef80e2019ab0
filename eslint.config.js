// ESLint 9 flat config: JavaScript's and typescript-eslint's recommended rules (syntax-level, no
// type information: fast enough for every `npm test`). Rules the codebase does not follow on
// purpose are turned off here with the reason.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.demo/', 'test/fixtures/', 'test/fixtures-clients/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // DuckDB rows, parsed JSON trees and driver results are untyped at the edges
      '@typescript-eslint/no-explicit-any': 'off',
      // unused names: tsc's noUnusedLocals decides (one authority); `_`-prefixed arguments stay
      '@typescript-eslint/no-unused-vars': 'off',
      'no-unused-vars': 'off',
      // prom-client's collect() callbacks get their own `this`: the gauge owner is `self`
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self', 'repo'] }],
      // `cond && act()` and `a ? f() : g()` as statements are this codebase's short forms
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  {
    // protocol tests match raw message bytes (control characters) in expressions
    files: ['test/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
);
