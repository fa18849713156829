// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.cache/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A hook must never leave a rejection unhandled (otel-js rule).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration[exported=null]', message: 'Export names explicitly: exports are public API.' }],
    },
  },
  {
    files: ['**/*.{js,mjs}'],
    // Node's globals that scripts (bench, examples, recorders) use.
    languageOptions: {
      globals: {
        console: 'readonly', process: 'readonly', performance: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', global: 'readonly', URL: 'readonly', fetch: 'readonly', Buffer: 'readonly',
        AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly',
      },
    },
  },
);
