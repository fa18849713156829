/**
 * The registry between a recorder and the SDK processor (docs/attributes.md#fold-once): while a
 * recorder starts a span, the processor's onStart learns how it will be folded; once the recorder
 * records it, the span's record is found by the span object.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/conventions/index.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import type { RecordedSpan, Recording } from '../../src/fold/recorded-spans.js';
import {
  recordedSpanOf,
  recordingStarting,
  registerRecordedSpan,
  startRecorded,
} from '../../src/fold/recorded-spans.js';

const recording = (top: boolean): Recording => ({ session: {}, policy: DEFAULT_POLICY, adapters: ADAPTERS, top });

describe('startRecorded', () => {
  it('tells who asks during the start how the span will be folded, and nobody after it', () => {
    const outer = recording(true);
    let seen: Recording | undefined;
    const result = startRecorded(outer, () => {
      seen = recordingStarting();
      return 42;
    });
    expect([result, seen, recordingStarting()]).toEqual([42, outer, undefined]);
  });

  it('restores the outer recording after a nested start and after a start that throws', () => {
    const outer = recording(true);
    const inner = recording(false);
    const seen: (Recording | undefined)[] = [];
    startRecorded(outer, () => {
      startRecorded(inner, () => seen.push(recordingStarting()));
      seen.push(recordingStarting());
      expect(() =>
        startRecorded(inner, () => {
          throw new Error('the tracer failed');
        }),
      ).toThrow('the tracer failed');
      seen.push(recordingStarting());
    });
    expect(seen).toEqual([inner, outer, outer]);
    expect(recordingStarting()).toBeUndefined();
  });
});

describe('the registry', () => {
  it('finds a registered span by the span object, and nothing for another', () => {
    const span = {};
    const record: RecordedSpan = {
      view: { spanId: 's1', name: 'chat', startMillis: 0, attributes: {}, events: [], links: [], statusCode: 0 },
      session: {},
      endFolded: false,
      folded: undefined,
    };
    registerRecordedSpan(span, record);
    expect(recordedSpanOf(span)).toBe(record);
    expect(recordedSpanOf({})).toBeUndefined();
  });
});
