// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/ and what each may import (docs: CONTRIBUTING.md, issue
 * "one fold"): dependencies point inward, so the pure core never imports an
 * edge and the gateway never imports the SDK processor. The order, inner to outer:
 *
 *   model ← derive ← conventions / sanitize ← fold
 *         ← sdk, runtime, gateway, recovery, presentation ← cli, demo, report
 *
 * Folders of one tier do not import each other (conventions ↔ sanitize, sdk ↔
 * runtime ↔ gateway ↔ recovery ↔ presentation), except in the outer tier: demo
 * imports report, and cli imports demo and report (known, listed in
 * CONTRIBUTING.md). Some layers are stricter than their tier: sanitize sees
 * only model, presentation only model and derive, report no edge but presentation.
 * Folders beyond that order keep their place: otlp (the OTLP decoder) sits beside
 * fold, above conventions, and feeds gateway and report; ai-sdk (the AI SDK
 * integration) sits above runtime, which it drives; testing (the fake provider
 * of `agent-incidents/testing`) imports nothing in src and nothing imports it.
 */
export const LAYERS = {
  model: [],
  derive: ['model'],
  sanitize: ['model'],
  conventions: ['model', 'derive'],
  fold: ['model', 'derive', 'conventions', 'sanitize'],
  otlp: ['model', 'conventions'],
  sdk: ['model', 'derive', 'conventions', 'sanitize', 'fold'],
  runtime: ['model', 'derive', 'conventions', 'sanitize', 'fold'],
  recovery: ['model', 'derive', 'conventions', 'sanitize', 'fold'],
  presentation: ['model', 'derive'],
  gateway: ['model', 'derive', 'conventions', 'sanitize', 'fold', 'otlp'],
  'ai-sdk': ['model', 'derive', 'conventions', 'sanitize', 'fold', 'runtime'],
  report: ['model', 'derive', 'conventions', 'sanitize', 'fold', 'otlp', 'presentation'],
  testing: [],
  demo: [
    'model',
    'derive',
    'conventions',
    'sanitize',
    'fold',
    'otlp',
    'sdk',
    'runtime',
    'recovery',
    'presentation',
    'report',
  ],
  cli: [
    'model',
    'derive',
    'conventions',
    'sanitize',
    'fold',
    'otlp',
    'sdk',
    'runtime',
    'gateway',
    'recovery',
    'presentation',
    'report',
    'demo',
  ],
};
const FOLDERS = Object.keys(LAYERS);

/** One config per layer: importing a folder it may not see is a lint error naming the rule. */
const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => {
  const forbidden = FOLDERS.filter((folder) => folder !== layer && !allowed.includes(folder));
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
              message: `src/${layer} may import only ${allowed.length ? allowed.join(', ') : 'nothing else in src'} (layers point inward: see CONTRIBUTING.md).`,
            },
            {
              regex: '^(\\.\\./)+(index|cli)\\.js$',
              message: 'the entry points import the layers, never the other way round.',
            },
            // The package runs on both SDK lines (2.x sdk-trace-base, 3.x sdk-trace) and on none (the CLI, the
            // gateway): src/ imports the API only, SDK shapes are structural (src/sdk/sdk-span.ts), and the
            // demo finds the installed SDK at run time (src/demo/tracing-sdk.ts). docs/compatibility.md.
            {
              regex: '^@opentelemetry/(?!api$)',
              message:
                'src/ imports no OpenTelemetry package but @opentelemetry/api: declare the shape structurally (src/sdk/sdk-span.ts) or import() it at run time (docs/compatibility.md).',
            },
          ],
        },
      ],
    },
  };
});

export default tseslint.config(
  // Generated code (test/support/otlp-decoders/generate.sh) is linted by no one.
  // The blind corpora's generators are fixtures as their writers left them (see each README), not project code.
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      '.cache/',
      'test/support/otlp-decoders/protobufjs/',
      'test/support/otlp-decoders/bufbuild/',
      'test/fixtures/sanitize/blind-corpus*/',
    ],
  },
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
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration[exported=null]',
          message: 'Export names explicitly: exports are public API.',
        },
      ],
    },
  },
  ...layerRules,
  {
    files: ['**/*.{js,mjs}'],
    // Node's globals that scripts (bench, examples, recorders) use.
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        global: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
      },
    },
  },
);
