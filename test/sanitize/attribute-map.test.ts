/**
 * The attribute walk (src/sanitize/attribute-map.ts): each key decided, each
 * kept value scrubbed by its type, each value read once, and what cannot be
 * shown to hold no text replaced by a marker.
 */
import { describe, expect, it } from 'vitest';
import { sanitizeAttributeMap, UNSANITIZABLE } from '../../src/sanitize/attribute-map.js';
import { createSanitizer } from '../../src/sanitize/sanitizer.js';
import { createTally } from '../../src/sanitize/scrubber.js';

const KEY = 'Xk9QvT2mLp7RwZ4aBn8cYd3e';
const SECRET = '[redacted:secret]';

function sanitize(attributes: Record<string, unknown>, mode: 'standard' | 'strict' = 'standard') {
  const tally = createTally();
  const out = sanitizeAttributeMap(attributes, createSanitizer({ mode }), tally);
  return { out, changed: tally.changed, byKind: Object.fromEntries(tally.byKind) };
}

describe('sanitizeAttributeMap', () => {
  it.each([
    ['a string', { note: 'password=hunter2' }, { note: `password=${SECRET}` }],
    ['a value under a credential name', { 'db.password': 'hunter2' }, { 'db.password': SECRET }],
    [
      'a stack trace',
      { 'exception.stacktrace': '    at f (/srv/app/x.js:1:1)' },
      { 'exception.stacktrace': '    at f (x.js:1:1)' },
    ],
    ['an array of strings', { tags: ['ok', 'password=hunter2'] }, { tags: ['ok', `password=${SECRET}`] }],
    [
      'an argv value after a credential flag',
      { 'process.command_args': ['tool', '--api-key', KEY] },
      { 'process.command_args': ['tool', '--api-key', SECRET] },
    ],
    [
      'an argv password glued to its flag',
      { 'process.command_args': ['mysql', '-u', 'app', '-pS3cr3t'] },
      { 'process.command_args': ['mysql', '-u', 'app', `-p${SECRET}`] },
    ],
    [
      'an argv password after a login verb',
      { 'process.command_args': ['docker', 'login', '-p', 'S3cr3tPw'] },
      { 'process.command_args': ['docker', 'login', '-p', SECRET] },
    ],
    [
      'a nested map',
      { meta: { inner: 'password=hunter2', 'gen_ai.input.messages': 'x' } },
      { meta: { inner: `password=${SECRET}` } },
    ],
  ])('scrubs %s', (_, attributes, expected) => {
    expect(sanitize(attributes).out).toEqual(expected);
  });

  it('scrubs bytes as UTF-8 and keeps them bytes', () => {
    const { out } = sanitize({ blob: new TextEncoder().encode('password=hunter2') });
    expect(out.blob).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(out.blob as Uint8Array)).toBe(`password=${SECRET}`);
  });

  it('keeps numbers, booleans, bigints, null and boxed numbers as they are', () => {
    const boxed = new Number(3);
    const attributes = { n: 1, b: true, i: 10n, z: null, u: undefined, boxed };
    const { out, changed } = sanitize(attributes);
    expect(out).toBe(attributes);
    expect(out.boxed).toBe(boxed);
    expect(changed).toBe(0);
  });

  it.each([
    [
      'strings, numbers and lists',
      { 'gen_ai.request.model': 'gpt-4o', steps: 3, 'gen_ai.response.finish_reasons': ['stop'] },
    ],
    ['an argv list', { 'process.command_args': ['git', 'status', '--short'] }],
    ['nothing at all', {}],
  ])('proves a clean map clean, counting nothing: %s', (_, attributes) => {
    expect(sanitize(attributes)).toEqual({ out: attributes, changed: 0, byKind: {} });
    expect(sanitize(attributes).out).toBe(attributes);
  });

  it('walks the whole map again when one value is not clean, whichever it is', () => {
    const attributes = { a: 'x', b: ['y', `key=${KEY}`], c: 'z' };
    const { out, changed } = sanitize(attributes);
    expect(out).not.toBe(attributes);
    expect(out.a).toBe('x');
    expect(out.c).toBe('z');
    expect(changed).toBe(1);
  });

  it('returns the very map when nothing changed', () => {
    const attributes = { 'gen_ai.request.model': 'gpt-4o', steps: 3 };
    expect(sanitize(attributes).out).toBe(attributes);
  });

  it('removes keys by decision and counts each by its kind', () => {
    expect(
      sanitize({ 'gen_ai.input.messages': 'hi', 'user.note': 'x', 'gen_ai.request.model': 'm' }, 'strict'),
    ).toEqual({
      out: { 'gen_ai.request.model': 'm' },
      changed: 2,
      byKind: { not_allowed: 2 },
    });
  });

  it.each([
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
    ['a class instance', new Date(0)],
  ])('replaces %s by the marker', (_, value) => {
    expect(sanitize({ v: value })).toEqual({ out: { v: UNSANITIZABLE }, changed: 1, byKind: { unsanitizable: 1 } });
  });

  it('replaces a value nested deeper than 8 maps by the marker', () => {
    const nest = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { m: nest(depth - 1, leaf) });
    const { out, byKind } = sanitize({ v: nest(8, { w: 'x' }) });
    expect(out).toEqual({ v: nest(8, UNSANITIZABLE) });
    expect(byKind).toEqual({ unsanitizable: 1 });
    expect(sanitize({ v: nest(7, { w: 'x' }) }).out).toEqual({ v: nest(7, { w: 'x' }) });
  });

  it('replaces a value whose getter throws by the marker, and reads each value once', () => {
    let reads = 0;
    const attributes = {
      get bad(): string {
        throw new Error('no');
      },
      get note(): string {
        reads += 1;
        return reads === 1 ? 'password=hunter2' : 'password=other';
      },
    };
    expect(sanitize(attributes).out).toEqual({ bad: UNSANITIZABLE, note: `password=${SECRET}` });
    expect(reads).toBe(1);
  });

  it('keeps a __proto__ key a key', () => {
    const attributes = JSON.parse('{"__proto__": "password=hunter2", "a": 1}') as Record<string, unknown>;
    const { out } = sanitize(attributes);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe(`password=${SECRET}`);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('keeps every kept key when it rebuilds a large map without removed ones', () => {
    const attributes: Record<string, unknown> = { 'gen_ai.input.messages': 'x' };
    for (let i = 0; i < 20; i += 1) attributes[`k${i}`] = i;
    const { out } = sanitize(attributes);
    expect(Object.keys(out)).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`));
  });
});
