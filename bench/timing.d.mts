/** The shortest of `runs` wall-clock timings of `work`, in milliseconds. */
export declare function bestMillis(runs: number, work: () => unknown): number;
