/**
 * The span view's readers: lostFacts (dropped events, dropped attributes of
 * an attempt or tool span, dropped attributes of a fact event) and the typed
 * attribute readers, which return undefined (or []) for any other type.
 */
import { describe, expect, it } from 'vitest';
import type { EventView } from '../../src/conventions/span-view.js';
import { booleanAttr, lostFacts, numberAttr, stringArrayAttr, stringAttr } from '../../src/conventions/span-view.js';

const event = (name: string, droppedAttributesCount?: number): EventView => ({
  name,
  timeMillis: 1,
  droppedAttributesCount,
});

describe('lostFacts', () => {
  it.each<[string, Parameters<typeof lostFacts>[0], boolean, boolean]>([
    ['nothing dropped', { events: [event('agent_incidents.retry')] }, true, false],
    ['dropped events', { droppedEventsCount: 1, events: [] }, false, true],
    ['dropped span attributes, attributes counted', { droppedAttributesCount: 2, events: [] }, true, true],
    ['dropped span attributes, attributes not counted', { droppedAttributesCount: 2, events: [] }, false, false],
    ['a fact event that lost attributes', { events: [event('agent_incidents.tool.start', 1)] }, false, true],
    ['another event that lost attributes', { events: [event('exception', 3)] }, false, false],
    [
      'zero counts',
      { droppedEventsCount: 0, droppedAttributesCount: 0, events: [event('agent_incidents.x', 0)] },
      true,
      false,
    ],
  ])('%s → attributes=%s gives %s', (_what, view, attributes, expected) => {
    expect(lostFacts(view, attributes)).toBe(expected);
  });

  it('ignores an event whose name is not a string', () => {
    expect(
      lostFacts({ events: [{ name: 42 as unknown as string, timeMillis: 1, droppedAttributesCount: 1 }] }, true),
    ).toBe(false);
  });
});

describe('attribute readers', () => {
  const attributes = {
    s: 'text',
    n: 3.5,
    inf: Number.POSITIVE_INFINITY,
    nan: Number.NaN,
    b: false,
    arr: ['a', 1, 'b', null],
    numeric: '7',
  };

  it.each([
    ['s', 'text', undefined, undefined],
    ['n', undefined, 3.5, undefined],
    ['inf', undefined, undefined, undefined],
    ['nan', undefined, undefined, undefined],
    ['b', undefined, undefined, false],
    ['numeric', '7', undefined, undefined],
    ['missing', undefined, undefined, undefined],
  ])('reads %s as string %j, finite number %j, boolean %j', (key, asString, asNumber, asBoolean) => {
    expect(stringAttr(attributes, key)).toBe(asString);
    expect(numberAttr(attributes, key)).toBe(asNumber);
    expect(booleanAttr(attributes, key)).toBe(asBoolean);
  });

  it('reads nothing from absent attributes', () => {
    expect([stringAttr(undefined, 'k'), numberAttr(undefined, 'k'), booleanAttr(undefined, 'k')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(stringArrayAttr(undefined, 'k')).toEqual([]);
  });

  it('keeps only the string members of an array, and [] for a non-array', () => {
    expect(stringArrayAttr(attributes, 'arr')).toEqual(['a', 'b']);
    expect(stringArrayAttr(attributes, 's')).toEqual([]);
  });

  it('reads at most the first 256 members of an array', () => {
    const long = Array.from({ length: 300 }, (_, i) => `v${i}`);
    const read = stringArrayAttr({ long }, 'long');
    expect(read).toHaveLength(256);
    expect(read.at(-1)).toBe('v255');
  });
});
