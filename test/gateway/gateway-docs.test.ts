/**
 * docs/gateway.md states every configuration key with its real default.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveGatewayConfig } from '../../src/gateway/index.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'gateway.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('## What it answers'));
const rows = [...section.matchAll(/^\| `([a-zA-Z.]+)` \| ([^|]+) \|/gm)].map((m) => [m[1] as string, (m[2] as string).trim()] as const);

function valueAt(config: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
}

describe('docs/gateway.md', () => {
  const defaults = resolveGatewayConfig({ upstream: { endpoint: 'http://127.0.0.1:4318/v1/traces' } });

  it('lists every configuration key', () => {
    const leaves: string[] = [];
    const walk = (node: unknown, prefix: string): void => {
      // Sections are walked one level deep; `policy` and `sanitization` (open maps) are keys themselves.
      if (node && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length > 0 && prefix.split('.').length < 2) {
        for (const [key, value] of Object.entries(node)) walk(value, prefix ? `${prefix}.${key}` : key);
      } else leaves.push(prefix);
    };
    walk(defaults, '');
    expect(rows.map(([key]) => key).sort()).toEqual(leaves.sort());
  });

  it.each(rows.filter(([, text]) => /^`[^`]*`$/.test(text)))('states the real default of %s', (key, text) => {
    const shown = text.slice(1, -1);
    expect(String(JSON.stringify(valueAt(defaults, key))).replace(/^"|"$/g, '')).toBe(shown);
  });
});
