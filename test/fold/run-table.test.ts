/**
 * RunTable's promises (src/fold/run-table.ts): open runs in start order with
 * an index from every open span to its nearest run, a nested run registered
 * as an open span of its parent, removal that leaves no index entry behind,
 * and eviction of the oldest run, counted.
 */
import { describe, expect, it } from 'vitest';
import { genAiAdapter } from '../../src/conventions/gen-ai.js';
import type { RunState } from '../../src/fold/open-run-state.js';
import { SEQ_BASE } from '../../src/fold/open-run-state.js';
import { RunTable } from '../../src/fold/run-table.js';

/** A fresh run state of span `spanId`, its handle the span id. */
function runState(spanId: string, parent?: RunState<string>, startMillis = 0): RunState<string> {
  return {
    spanId,
    handle: spanId,
    adapter: genAiAdapter,
    parent,
    parentSpanId: parent ? `${parent.spanId}-tool` : undefined,
    startMillis,
    trackedMillis: startMillis,
    facts: [],
    attempts: [],
    attemptParents: new Map(),
    open: new Map(),
    nextSeq: SEQ_BASE,
    progressUnknown: false,
    progressUnknownAttempts: [],
    openChildren: false,
    truncatedAttempts: [],
    neverEnded: false,
    evidenceTruncated: false,
    usage: undefined,
  };
}

const child = (spanId: string) => ({ handle: spanId, role: 'tool' as const, startMillis: 1, truncated: false });

describe('RunTable', () => {
  it('finds a run by its span, and the owner of any open span (a run owns itself)', () => {
    const table = new RunTable<string>();
    const run = runState('r');
    table.addRun(run);
    table.addSpan(run, 'tool', child('tool'));
    expect([table.size, table.indexedSpans]).toEqual([1, 2]);
    expect([table.run('r'), table.run('tool'), table.owner('tool'), table.owner('r')]).toEqual([
      run,
      undefined,
      run,
      run,
    ]);
    expect([table.owner(undefined), table.owner('unknown')]).toEqual([undefined, undefined]);
  });

  it('lists runs oldest first, as a snapshot', () => {
    const table = new RunTable<string>();
    const [a, b] = [runState('a'), runState('b')];
    table.addRun(a);
    table.addRun(b);
    const all = table.all();
    table.removeRun(a);
    expect(all).toEqual([a, b]);
    expect(table.oldest()).toBe(b);
    expect(new RunTable<string>().oldest()).toBeUndefined();
  });

  it('registers a nested run as an open span of its parent, and removing it unregisters it', () => {
    const table = new RunTable<string>();
    const parent = runState('p');
    const nested = runState('n', parent, 5);
    table.addRun(parent);
    table.addRun(nested);
    expect(parent.open.get('n')).toEqual({
      handle: 'n',
      parentSpanId: 'p-tool',
      role: 'run',
      adapter: genAiAdapter,
      startMillis: 5,
      truncated: false,
    });
    table.removeRun(nested);
    expect(parent.open.has('n')).toBe(false);
  });

  it("removeSpan returns the span's entry and drops its index; removeRun drops every entry pointing at the run", () => {
    const table = new RunTable<string>();
    const run = runState('r');
    table.addRun(run);
    table.addSpan(run, 'a', child('a'));
    table.addSpan(run, 'b', child('b'));
    expect(table.removeSpan(run, 'a')).toEqual(child('a'));
    expect(table.removeSpan(run, 'a')).toBeUndefined();
    expect(table.indexedSpans).toBe(2);
    table.removeRun(run);
    expect([table.size, table.indexedSpans, table.owner('b')]).toEqual([0, 0, undefined]);
  });

  it('evictOldest drops the oldest run and counts it; on an empty table it does nothing', () => {
    const table = new RunTable<string>();
    table.evictOldest();
    table.addRun(runState('a'));
    table.addRun(runState('b'));
    table.evictOldest();
    expect([table.evicted, table.size, table.run('a'), table.oldest()?.spanId]).toEqual([1, 1, undefined, 'b']);
  });
});
