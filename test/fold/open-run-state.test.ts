/**
 * startedRunState: a run that has just started holds what its start fixes
 * and nothing else: no facts, no attempts, no open spans, fresh collections
 * of its own, and sequence numbers from SEQ_BASE.
 */
import { describe, expect, it } from 'vitest';
import { genAiAdapter } from '../../src/conventions/gen-ai.js';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { SEQ_BASE, startedRunState } from '../../src/fold/open-run-state.js';

describe('startedRunState', () => {
  const start = {
    spanId: 'run',
    handle: { name: 'invoke_agent', attributes: {} },
    adapter: genAiAdapter,
    parentSpanId: 'p',
    startMillis: 10,
    trackedMillis: 20,
    policy: DEFAULT_POLICY,
  };

  it('keeps what the start fixes and starts empty', () => {
    const run = startedRunState(start);
    expect(run).toEqual({
      ...start,
      parent: undefined,
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
    });
    expect(run.handle).toBe(start.handle);
  });

  it('links a nested run to its parent', () => {
    const parent = startedRunState(start);
    const child = startedRunState({ ...start, spanId: 'child', parent });
    expect(child.parent).toBe(parent);
  });

  it('gives each run collections of its own', () => {
    const a = startedRunState(start);
    const b = startedRunState(start);
    a.attempts.push({ key: 'x', number: 1, startMillis: 1 });
    a.open.set('s', { handle: start.handle, role: 'tool', startMillis: 1, truncated: false });
    expect([b.attempts, b.open.size, b.facts]).toEqual([[], 0, []]);
  });

  it('numbers span facts after any recorder-assigned sequence', () => {
    expect(SEQ_BASE).toBe(1_000_000_000);
  });
});
