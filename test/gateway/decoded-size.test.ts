/**
 * The decoded-size estimates (src/gateway/decoded-size.ts): a span's bytes
 * grow with its name, status message, attributes, events and links, and a
 * request counts each shared resource once.
 */
import { describe, expect, it } from 'vitest';
import { decodedRequestBytes, decodedSpanBytes } from '../../src/gateway/decoded-size.js';
import { wireDouble } from '../../src/otlp/wire-double.js';
import { decodedSpan } from '../support/decoded-span.js';

const BARE = decodedSpan('t', 's', { name: '' });
/** The estimate of a bare span with no name: the record and its empty attribute map. */
const BARE_BYTES = 1_200 + 56;

describe('decodedSpanBytes', () => {
  it.each([
    ['a bare span', {}, BARE_BYTES],
    ['its name, two bytes a character', { name: 'abcd' }, BARE_BYTES + 8],
    ['its status message', { statusMessage: 'ab' }, BARE_BYTES + 4],
    ['a string attribute: entry, key and characters', { attributes: { k: 'abc' } }, BARE_BYTES + 64 + 2 + 24 + 6],
    [
      'a number, boolean or boxed double: one slot',
      { attributes: { k: 1, b: true, d: wireDouble(2) } },
      BARE_BYTES + 3 * (64 + 2 + 16),
    ],
    ['bytes', { attributes: { k: new Uint8Array(10) } }, BARE_BYTES + 64 + 2 + 96 + 10],
    ['an array, item by item', { attributes: { k: ['a', 1] } }, BARE_BYTES + 64 + 2 + 32 + (8 + 26) + (8 + 16)],
    ['a kvlist, as a map', { attributes: { k: { x: 1 } } }, BARE_BYTES + 64 + 2 + 56 + 64 + 2 + 16],
    [
      'an event with its name and attributes',
      { events: [{ name: 'ev', timeUnixNano: 0n, attributes: {} }] },
      BARE_BYTES + 200 + 4 + 56,
    ],
    ['a link with its attributes', { links: [{ traceId: 't', spanId: 'x', attributes: {} }] }, BARE_BYTES + 200 + 56],
  ])('counts %s', (_case, fields, bytes) => {
    expect(decodedSpanBytes({ ...BARE, ...fields } as typeof BARE)).toBe(bytes);
  });
});

describe('decodedRequestBytes', () => {
  it('adds the spans and each distinct resource once', () => {
    const shared = { 'service.name': 'a' };
    const other = { 'service.name': 'b' };
    const spans = [
      { ...BARE, resource: shared },
      { ...BARE, resource: shared },
      { ...BARE, resource: other },
    ];
    const resourceBytes = 56 + 64 + 'service.name'.length * 2 + 24 + 2;
    expect(decodedRequestBytes(spans)).toBe(3 * BARE_BYTES + 2 * resourceBytes);
    expect(decodedRequestBytes([])).toBe(0);
  });
});
