/**
 * docs/gateway.md states every configuration key with its real default.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_CONFIG, resolveGatewayConfig } from '../../src/gateway/index.js';

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'gateway.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('## What it answers'));
const rows = [...section.matchAll(/^\| `([a-zA-Z.]+)` \| ([^|]+) \|/gm)].map(
  (m) => [m[1] as string, (m[2] as string).trim()] as const,
);

function valueAt(config: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
}

describe('docs/gateway.md', () => {
  const defaults = resolveGatewayConfig({ upstream: { endpoint: 'http://127.0.0.1:4318/v1/traces' } });

  it('lists every configuration key', () => {
    // Walked from the schema, not the defaults: a key without a default (persistence.directory) is a key too.
    type Node = { _zod: { def: { type: string; innerType?: Node; shape?: Record<string, Node> } } };
    const unwrap = (node: Node): Node => (node._zod.def.innerType ? unwrap(node._zod.def.innerType) : node);
    const leaves: string[] = [];
    for (const [section, schema] of Object.entries(
      (GATEWAY_CONFIG as unknown as { shape: Record<string, Node> }).shape,
    )) {
      const inner = unwrap(schema);
      // `policy` and `sanitization` (open maps) are keys themselves.
      if (inner._zod.def.type === 'object' && inner._zod.def.shape)
        for (const key of Object.keys(inner._zod.def.shape)) leaves.push(`${section}.${key}`);
      else leaves.push(section);
    }
    expect(rows.map(([key]) => key).sort()).toEqual(leaves.sort());
  });

  it.each(rows.filter(([key]) => valueAt(defaults, key) === undefined))('says %s has no default', (_key, text) => {
    expect(text).toMatch(/^(unset|required)$/);
  });

  it.each(rows.filter(([, text]) => /^`[^`]*`$/.test(text)))('states the real default of %s', (key, text) => {
    const shown = text.slice(1, -1);
    expect(String(JSON.stringify(valueAt(defaults, key))).replace(/^"|"$/g, '')).toBe(shown);
  });
});
