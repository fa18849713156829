/**
 * grouped: spans grouped by their shared resource object, then scope object,
 * in first-seen order, so each is written under one ResourceSpans/ScopeSpans.
 */
import { describe, expect, it } from 'vitest';
import type { EncodableResource, EncodableScope, EncodableSpan } from '../../src/otlp/encodable-span.js';
import { grouped } from '../../src/otlp/encodable-span.js';

const span = (spanId: string, otlpResource: EncodableResource, otlpScope: EncodableScope): EncodableSpan => ({
  traceId: 't',
  spanId,
  name: spanId,
  otlpKind: 1,
  startTimeUnixNano: 0n,
  endTimeUnixNano: 0n,
  attributes: {},
  events: [],
  links: [],
  status: { code: 0 },
  otlpResource,
  otlpScope,
});

/** The grouping as names: resource → scope → span ids. */
const shape = (groups: ReturnType<typeof grouped>) =>
  [...groups].map(([resource, scopes]) => [
    resource.attributes['service.name'],
    [...scopes].map(([scope, spans]) => [scope.name, spans.map((s) => s.spanId)]),
  ]);

describe('grouped', () => {
  const r1: EncodableResource = { attributes: { 'service.name': 'r1' } };
  const r2: EncodableResource = { attributes: { 'service.name': 'r2' } };
  const sa: EncodableScope = { name: 'a' };
  const sb: EncodableScope = { name: 'b' };

  it('groups by resource then scope, each in first-seen order, spans in input order', () => {
    const groups = grouped([span('1', r2, sb), span('2', r1, sa), span('3', r2, sa), span('4', r2, sb)]);
    expect(shape(groups)).toEqual([
      [
        'r2',
        [
          ['b', ['1', '4']],
          ['a', ['3']],
        ],
      ],
      ['r1', [['a', ['2']]]],
    ]);
  });

  it('keys by object identity: equal-looking resources or scopes stay apart', () => {
    const twin: EncodableResource = { attributes: { 'service.name': 'r1' } };
    const scopeTwin: EncodableScope = { name: 'a' };
    const groups = grouped([span('1', r1, sa), span('2', twin, sa), span('3', r1, scopeTwin)]);
    expect(shape(groups)).toEqual([
      [
        'r1',
        [
          ['a', ['1']],
          ['a', ['3']],
        ],
      ],
      ['r1', [['a', ['2']]]],
    ]);
    expect([...groups.keys()]).toEqual([r1, twin]);
  });

  it('returns an empty map for no spans', () => {
    expect(grouped([]).size).toBe(0);
  });
});
