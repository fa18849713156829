/**
 * The README quotes each option's default; these tests keep the quotes and
 * the code's defaults in step, and keep the two setup commands documented.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../src/derive/policy.js';
import { DEFAULTS, SANITIZATION_DEFAULTS } from '../src/sdk/options.js';

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

function quotedDefault(option: string): string | undefined {
  const row = readme.split('\n').find((line) => line.startsWith(`| \`${option}\` |`));
  return row?.split('|')[2]?.trim().replace(/^`|`$/g, '');
}

describe('README options table', () => {
  it.each(Object.entries(DEFAULTS))('quotes the default of %s', (option, value) => {
    expect(quotedDefault(option)).toBe(String(value));
  });

  it.each(Object.entries(DEFAULT_POLICY))('quotes the default of policy.%s', (option, value) => {
    const quoted = quotedDefault(`policy.${option}`);
    expect(quoted).toBe(
      Array.isArray(value) ? JSON.stringify(value) : typeof value === 'string' ? `'${value}'` : String(value),
    );
  });
});

describe('README sanitization options', () => {
  it.each(Object.entries(SANITIZATION_DEFAULTS))('quotes the default of sanitization.%s', (option, value) => {
    expect(quotedDefault(`sanitization.${option}`)).toBe(typeof value === 'string' ? `'${value}'` : String(value));
  });
});

describe('README setup commands', () => {
  it('gives the install-and-demo command and the test command CI runs', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toMatch(/```sh\nnpm test\n```/);
    expect(readFileSync(join(import.meta.dirname, '..', '.ci', 'run'), 'utf8')).toMatch(/^npm test$/m);
  });

  it('runs the demo from the clone with one build and no second install: `npm ci` runs no script of ours, `demo` builds once and runs dist/cli.js', () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // npx in a clone would install and build the package a second time (7–30 s); install-time scripts would run for installers too.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(manifest.scripts[hook], hook).toBeUndefined();
    expect(manifest.scripts.demo).toBe('npm run build --silent && node dist/cli.js demo');
    expect(readme).not.toMatch(/npm ci && npx /);
  });
});
