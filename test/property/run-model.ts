/**
 * An agent run as a runtime drives it, generated: attempts that finish, drop,
 * fail with an HTTP error, time out or stay open; text, reasoning, tool input
 * and complete tool calls before that; tools of each side-effect class that
 * complete, fail, are interrupted or stay open, some running a sub-agent; a
 * user stop, a host close, a process exit or a setup failure; a run that ends
 * or crashes; and the odd attempt with more parallel tool calls than a span
 * keeps events. A finish carries the finish reasons a runtime passes on
 * ({@link finishReasonOf}); a failed tool has a failure kind ({@link toolFailureOf})
 * and a stop its detail ({@link stopOf}), all drawn from the run's seed.
 * A seed gives each exported span its own clock offset of up to ±2 ms.
 * {@link GENERATED_CAUSES} says which causes and details the runs end with.
 */
import fc from 'fast-check';
import type { Cause, CauseDetail } from '../../src/index.js';
import { CAUSE_DETAILS } from '../../src/index.js';

export type ToolClass = 'read_only' | 'unsafe' | 'unknown';
export type ErrorKind = 'socket' | 'http503' | 'http429' | 'http400' | 'http401';
export type WatchdogPhase = 'connect' | 'silent_stream' | 'total';

/** One piece of streamed output, in order. */
export type Output =
  | { readonly kind: 'text' }
  | { readonly kind: 'reasoning' }
  | { readonly kind: 'input'; readonly cls: ToolClass }
  | { readonly kind: 'call'; readonly cls: ToolClass; readonly providerExecuted: boolean };

/** A tool the runtime ran for an attempt. */
export interface ToolModel {
  readonly cls: ToolClass;
  readonly end: 'complete' | 'fail' | 'interrupt' | 'open';
  /** A sub-agent the tool runs (a nested run, never nested further). */
  readonly nested?: RunModel;
}

/** How an attempt ended. */
export type AttemptEnd =
  | { readonly kind: 'finish' }
  | { readonly kind: 'fail'; readonly error: ErrorKind }
  | { readonly kind: 'watchdog'; readonly phase: WatchdogPhase }
  | { readonly kind: 'open' };

/** One provider request. */
export interface AttemptModel {
  /** The tools the request exposed: none recorded, the local ones, or with a provider-executed one. */
  readonly boundary: 'none' | 'local' | 'remote';
  readonly outputs: readonly Output[];
  /** Read-only tool calls streamed in parallel after the outputs (0 for most attempts). */
  readonly parallelCalls: number;
  readonly tools: readonly ToolModel[];
  readonly end: AttemptEnd;
  /** After a failure, the runtime issues an automatic retry (`retryIssued`) before the next attempt. */
  readonly retry: boolean;
}

/**
 * What stopped the run, after which attempt (`after`: its index; -1 for before
 * any attempt), with the detail the runtime recorded. A setup failure happens
 * only before any attempt.
 */
export type StopModel =
  | { readonly kind: 'user_cancel'; readonly after: number; readonly origin: CauseDetail<'user_cancel'> }
  | {
      readonly kind: 'lifecycle_close';
      readonly after: number;
      readonly lifecycle: CauseDetail<'local_lifecycle_close'>;
    }
  | { readonly kind: 'process_exit'; readonly after: number; readonly reason: CauseDetail<'process_exit'> }
  | { readonly kind: 'setup_failure'; readonly after: -1 };

/** One run. */
export interface RunModel {
  readonly attempts: readonly AttemptModel[];
  readonly stop?: StopModel;
  /** `crash`: the run span never ends (the process died, or was shut down with the run open). */
  readonly ending: 'end' | 'crash';
  /** Seed of the ±2 ms clock offset of each exported span (test/property/edges.ts). */
  readonly jitterSeed: number;
}

const toolClass = fc.constantFrom<ToolClass>('read_only', 'unsafe', 'unknown');
const output: fc.Arbitrary<Output> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'text' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reasoning' } as const) },
  { weight: 1, arbitrary: toolClass.map((cls) => ({ kind: 'input', cls }) as const) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      cls: toolClass,
      providerExecuted: fc.oneof(
        { weight: 4, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    }),
  },
);
const attemptEnd: fc.Arbitrary<AttemptEnd> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'finish' } as const) },
  {
    weight: 4,
    arbitrary: fc
      .constantFrom<ErrorKind>('socket', 'http503', 'http429', 'http400', 'http401')
      .map((error) => ({ kind: 'fail', error }) as const),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<WatchdogPhase>('connect', 'silent_stream', 'total')
      .map((phase) => ({ kind: 'watchdog', phase }) as const),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'open' } as const) },
);

function attempt(tool: fc.Arbitrary<ToolModel>): fc.Arbitrary<AttemptModel> {
  return fc.record({
    boundary: fc.constantFrom('none', 'local', 'local', 'local', 'remote'),
    outputs: fc.array(output, { maxLength: 4 }),
    parallelCalls: fc.oneof(
      { weight: 30, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.constantFrom(45, 70, 130) },
    ),
    tools: fc.array(tool, { maxLength: 3 }),
    end: attemptEnd,
    retry: fc.boolean(),
  });
}

const plainTool: fc.Arbitrary<ToolModel> = fc.record({
  cls: toolClass,
  end: fc.constantFrom('complete', 'complete', 'complete', 'fail', 'interrupt', 'open'),
});

/** A run's attempts, stop and ending, with `tool` for its tools. */
function run(tool: fc.Arbitrary<ToolModel>, maxAttempts: number): fc.Arbitrary<RunModel> {
  return fc
    .record({
      attempts: fc.array(attempt(tool), { minLength: 0, maxLength: maxAttempts }),
      stop: fc.option(
        fc.record({
          kind: fc.constantFrom('user_cancel', 'lifecycle_close', 'process_exit'),
          after: fc.integer({ min: -1, max: maxAttempts - 1 }),
        }),
        { nil: undefined, freq: 4 },
      ),
      ending: fc.constantFrom<'end' | 'crash'>('end', 'end', 'end', 'end', 'crash'),
      jitterSeed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    })
    .map((r) => {
      // A stop ends the run's attempts: none comes after it.
      const drawn = r.stop && r.stop.after < r.attempts.length ? r.stop : undefined;
      const stop = drawn ? stopOf(drawn.kind, drawn.after, r.jitterSeed) : undefined;
      const attempts = stop ? r.attempts.slice(0, stop.after + 1) : r.attempts;
      return { ...r, attempts, ...(stop ? { stop } : { stop: undefined }) };
    });
}

/**
 * A number below `n` drawn from `seed` and `salt` rather than generated, so the
 * generated shapes, and the seeds kept in REGRESSIONS, stay what they were.
 */
function fromSeed(seed: number, salt: number, n: number): number {
  const mixed = Math.imul(seed ^ Math.imul(salt, 0x9e3779b1), 0x85ebca6b) >>> 0;
  return (mixed >>> 7) % n;
}

/**
 * The stop of a run, its detail drawn from the run's seed: every origin of a
 * cancel, kind of lifecycle close and close reason of a process. One stop
 * before any attempt in three is a setup failure instead.
 */
function stopOf(kind: 'user_cancel' | 'lifecycle_close' | 'process_exit', after: number, seed: number): StopModel {
  if (after === -1 && fromSeed(seed, 0x5e7, 3) === 0) return { kind: 'setup_failure', after: -1 };
  const pick = <T>(list: readonly T[]): T => list[fromSeed(seed, 0x570, list.length)] as T;
  if (kind === 'user_cancel') return { kind, after, origin: pick(CAUSE_DETAILS.user_cancel) };
  if (kind === 'lifecycle_close') return { kind, after, lifecycle: pick(CAUSE_DETAILS.local_lifecycle_close) };
  return { kind, after, reason: pick(CAUSE_DETAILS.process_exit) };
}

/**
 * The finish reasons a runtime passes with a finish (`attempt.finish({ finishReasons })`),
 * none for most: the known values of each meaning (docs/conventions.md#finish-reasons-by-meaning)
 * and one the table does not know.
 */
export const FINISH_REASONS = [
  undefined,
  undefined,
  undefined,
  undefined,
  'stop',
  'tool_calls',
  'length',
  'eos_token',
  'content_filter',
  'interrupted',
  'other',
  'error',
] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/**
 * The finish reason of attempt `index` of `model` when it finishes. Drawn from
 * the run's seed rather than generated, so the generated shapes, and the
 * seeds kept in REGRESSIONS, stay what they were.
 */
export function finishReasonOf(model: RunModel, index: number): FinishReason {
  const mixed = Math.imul(model.jitterSeed ^ Math.imul(index + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;
  return FINISH_REASONS[(mixed >>> 7) % FINISH_REASONS.length];
}

/** What an attempt reports of its usage: the figures it gives (any may be absent), reported mid-stream or at its finish. */
export interface UsageModel {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly reasoningTokens?: number;
  readonly cachedInputTokens?: number;
  /** A multiple of 1/1024 dollar, so sums are exact in any order. */
  readonly costUsd?: number;
  /** Reported with `finish({ usage })` when the attempt finishes, else with `usage()` before it ends. */
  readonly atFinish: boolean;
}

/**
 * The usage attempt `index` of `model` reports, drawn from the run's seed like
 * {@link finishReasonOf}: none (a stream cut before its usage), the input
 * only (reported at the start of the stream), input and output, or every
 * figure with a cost.
 */
export function usageOf(model: RunModel, index: number): UsageModel | undefined {
  const shape = fromSeed(model.jitterSeed, 0x5a00 + index, 4);
  const size = fromSeed(model.jitterSeed, 0x5b00 + index, 4096);
  const atFinish = fromSeed(model.jitterSeed, 0x5c00 + index, 2) === 0;
  if (shape === 0) return undefined;
  if (shape === 1) return { inputTokens: 1000 + size, atFinish: false };
  if (shape === 2) return { inputTokens: 800 + size, outputTokens: 1 + (size % 400), atFinish };
  return {
    inputTokens: 2000 + size,
    outputTokens: 50 + (size % 300),
    reasoningTokens: size % 50,
    cachedInputTokens: 1024,
    costUsd: (1 + (size % 64)) / 1024,
    atFinish,
  };
}

/**
 * How tool `tool` of attempt `attempt` of `model` fails when it fails: each
 * tool failure kind, drawn from the run's seed like {@link finishReasonOf}.
 */
export function toolFailureOf(model: RunModel, attempt: number, tool: number): CauseDetail<'tool_execution_failure'> {
  const kinds = CAUSE_DETAILS.tool_execution_failure;
  return kinds[fromSeed(model.jitterSeed, 0x7001 + attempt * 16 + tool, kinds.length)]!;
}

/** A sub-agent: one or two attempts, plain tools, ended or left open. */
const nestedRun = run(plainTool, 2);

/** A tool that sometimes runs a sub-agent. */
const toolWithNested: fc.Arbitrary<ToolModel> = fc.oneof(
  { weight: 8, arbitrary: plainTool },
  {
    weight: 1,
    arbitrary: fc.record({ cls: toolClass, end: fc.constantFrom('complete', 'fail', 'open'), nested: nestedRun }),
  },
);

/** The generator of top-level runs: 0 to 4 attempts. */
export const runModel: fc.Arbitrary<RunModel> = run(toolWithNested, 4);

/**
 * The causes and details the generator's runs end with (by the oracle), and
 * how. Keyed by cause, so a new cause fails typecheck here until the generator
 * can end a run with it; test/property/generator-reaches-every-cause.test.ts
 * checks that it does, with exactly these details.
 */
export const GENERATED_CAUSES: { readonly [C in Cause]: readonly CauseDetail<C>[] } = {
  // An attempt fails on a dropped socket (ErrorKind `socket`).
  provider_transport_disconnect: ['socket_closed'],
  // An attempt fails with HTTP 503, 429, 400 or 401, or finishes on `content_filter` or `error`.
  provider_api_error: ['server_overload', 'rate_limit', 'invalid_request', 'auth', 'content_filter', 'unknown'],
  // A watchdog fires in each phase.
  watchdog_timeout: ['connect', 'silent_stream', 'total'],
  // A stop of kind `user_cancel`, its origin drawn from the seed (stopOf).
  user_cancel: CAUSE_DETAILS.user_cancel,
  // A stop of kind `lifecycle_close`, its kind drawn from the seed.
  local_lifecycle_close: CAUSE_DETAILS.local_lifecycle_close,
  // A stop before any attempt is, one in three, a setup failure.
  request_setup_failure: [],
  // A tool of the last attempt fails, its kind drawn from the seed (toolFailureOf).
  tool_execution_failure: CAUSE_DETAILS.tool_execution_failure,
  // A tool is interrupted.
  tool_execution_interrupted: [],
  // A stop of kind `process_exit`, its close reason drawn from the seed.
  process_exit: CAUSE_DETAILS.process_exit,
  // The run span never ends (`ending: 'crash'`); nothing writes `restart_detected`.
  crash_or_restart_incomplete: ['run_never_ended'],
  // The last attempt is left open, or finishes as `interrupted` or `other`.
  unknown_interruption: [],
};
