// The best of `runs` timings of `work`, in milliseconds: the least disturbed
// run, for comparing inputs by their cost rather than by what else ran.
// Used by bench/sanitize.mjs and test/sanitize/linear-time.test.ts.

/** The shortest of `runs` wall-clock timings of `work`, in milliseconds. */
export function bestMillis(runs, work) {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    work();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}
