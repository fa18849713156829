/** The most recent incidents kept while the input streams by (src/report/recent-incidents.ts): order, the limit, the cutoff, removal. */
import { describe, expect, it } from 'vitest';
import { RecentIncidents } from '../../src/report/recent-incidents.js';
import type { ReportRun } from '../../src/report/report-model.js';

function run(traceId: string, spanId: string, startUnixMillis: number | undefined): ReportRun {
  return { outcome: 'failed', traceId, spanId, startUnixMillis, source: 'file', timeline: [] };
}

/** The trace:span ids of the kept incidents, in order. */
function ids(kept: RecentIncidents): { incidents: string[]; omitted: number } {
  const { incidents, omitted } = kept.result();
  return { incidents: incidents.map((r) => `${r.traceId}:${r.spanId}`), omitted };
}

describe('RecentIncidents', () => {
  it('keeps the most recent first, ties by trace id then span id, a missing start as 0', () => {
    const kept = new RecentIncidents(10);
    for (const r of [
      run('b', '1', 100),
      run('a', '2', 100),
      run('a', '1', 100),
      run('z', '1', 300),
      run('y', '1', undefined),
    ]) {
      kept.offer(r);
    }
    expect(ids(kept)).toEqual({ incidents: ['z:1', 'a:1', 'a:2', 'b:1', 'y:1'], omitted: 0 });
  });

  it('keeps at most the limit and counts the rest as omitted', () => {
    const kept = new RecentIncidents(2);
    for (const start of [5, 1, 9, 3, 7]) kept.offer(run(`t${start}`, 's', start));
    expect(ids(kept)).toEqual({ incidents: ['t9:s', 't7:s'], omitted: 3 });
  });

  it('counts an incident offered without a run (not wanted) as omitted', () => {
    const kept = new RecentIncidents(3);
    kept.offer(run('a', 's', 1));
    kept.offer(undefined);
    kept.offer(undefined);
    expect(ids(kept)).toEqual({ incidents: ['a:s'], omitted: 2 });
  });

  it('wants nothing with a limit of 0', () => {
    const kept = new RecentIncidents(0);
    expect(kept.wants(1)).toBe(false);
    expect(kept.wants(undefined)).toBe(false);
  });

  it('wants anything until full, then only incidents no older than the oldest kept', () => {
    const kept = new RecentIncidents(2);
    expect(kept.wants(Number.MIN_SAFE_INTEGER)).toBe(true);
    // A trim happens at twice the limit: then the cutoff is the start of the 2nd most recent.
    for (const start of [10, 40, 20, 30]) kept.offer(run(`t${start}`, 's', start));
    expect([kept.wants(29), kept.wants(30), kept.wants(99), kept.wants(undefined)]).toEqual([false, true, true, false]);
  });

  it('takes back an incident whether it was kept or not', () => {
    const kept = new RecentIncidents(5);
    kept.offer(run('a', '1', 1));
    kept.offer(run('b', '1', 2));
    kept.offer(undefined);
    kept.remove('a', '1');
    kept.remove('never', 'kept');
    expect(ids(kept)).toEqual({ incidents: ['b:1'], omitted: 0 });
  });

  it('of many offered while they stream by, keeps the limit most recent', () => {
    const kept = new RecentIncidents(3);
    for (let i = 0; i < 1000; i += 1) kept.offer(kept.wants(i) ? run('t', String(i).padStart(4, '0'), i) : undefined);
    expect(ids(kept)).toEqual({ incidents: ['t:0999', 't:0998', 't:0997'], omitted: 997 });
  });

  it('gives a copy: changing the result does not change what is kept', () => {
    const kept = new RecentIncidents(2);
    kept.offer(run('a', '1', 1));
    kept.result().incidents.length = 0;
    expect(ids(kept).incidents).toEqual(['a:1']);
  });
});
