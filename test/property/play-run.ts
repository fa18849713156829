/**
 * Plays a generated run through the public RunRecorder API, as a runtime
 * would, on a monotonic clock that advances 10 ms per action (and a
 * microsecond per reading within one). A run ends in the same action as its
 * last child, so a per-span clock offset of a couple of milliseconds (added
 * to the exported spans by test/property/edges.ts) makes a child end "after"
 * its run, as two clocks in one process do. No assertions here.
 */
import type { Context, Tracer } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { AttemptRecorder, CauseDetail, Incident, ToolRecorder } from '../../src/index.js';
import { RunRecorder } from '../../src/index.js';
import type { AttemptModel, ErrorKind, FinishReason, Output, RunModel, ToolModel, UsageModel } from './run-model.js';
import { finishReasonOf, toolFailureOf, usageOf } from './run-model.js';

/** The tools a boundary exposes. */
export const BOUNDARIES = {
  local: {
    tools: [
      { name: 'read', sideEffects: 'read_only' },
      { name: 'grep', sideEffects: 'read_only' },
      { name: 'bash', sideEffects: 'unsafe' },
    ],
  },
  remote: {
    tools: [
      { name: 'read', sideEffects: 'read_only' },
      { name: 'web_search', sideEffects: 'read_only', providerExecuted: true },
    ],
  },
} as const;

const TOOL_NAMES = { read_only: 'read', unsafe: 'bash', unknown: 'mcp_tool' } as const;

/** The error a runtime sees for each kind. */
export function errorOf(kind: ErrorKind): Error {
  if (kind === 'socket')
    return new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' }),
    });
  const status = { http503: 503, http429: 429, http400: 400, http401: 401 }[kind];
  return Object.assign(new Error(`HTTP ${status}`), { name: 'AI_APICallError', statusCode: status });
}

/** What building a provider request throws: a model name the runtime does not know (code `model_not_found`). */
export const SETUP_ERROR = Object.assign(new Error('unknown model'), { code: 'model_not_found' });

/** A monotonic clock: `tick()` moves 10 ms on; each reading moves a microsecond. */
export function actionClock(start: number) {
  let base = start;
  let within = 0;
  const clock = (): number => base + (within += 0.001);
  return Object.assign(clock, {
    tick: () => {
      base += 10;
      within = 0;
    },
  });
}

/** What playing a run left behind. */
export interface Played {
  /** The recorder's verdict: `end()`'s, or `incident()` for a crashed run. */
  readonly verdict: Incident;
  /** Verdicts of the nested runs that ended, by their agent name. */
  readonly nested: ReadonlyMap<string, Incident>;
}

interface Driver {
  readonly tracer: Tracer;
  readonly clock: ReturnType<typeof actionClock>;
  readonly nested: Map<string, Incident>;
  counter: number;
}

function playOutput(attempt: AttemptRecorder, output: Output): void {
  switch (output.kind) {
    case 'text':
      attempt.textOutput();
      break;
    case 'reasoning':
      attempt.reasoningOutput();
      break;
    case 'input':
      attempt.toolInputStarted(TOOL_NAMES[output.cls]);
      attempt.toolInputCompleted(TOOL_NAMES[output.cls]);
      break;
    case 'call':
      attempt.toolCallMaterialized({
        name: TOOL_NAMES[output.cls],
        sideEffects: output.cls,
        providerExecuted: output.providerExecuted,
      });
      break;
  }
}

/** The error a tool throws for each failure kind (classifyToolError reads it back as that kind). */
export const TOOL_ERRORS: { readonly [K in CauseDetail<'tool_execution_failure'>]: () => Error } = {
  invalid_arguments: () =>
    Object.assign(new Error('Invalid arguments for tool read'), { name: 'AI_InvalidToolArgumentsError' }),
  permission_denied: () => Object.assign(new Error('permission denied'), { code: 'EACCES' }),
  environment: () => Object.assign(new Error('no such file'), { code: 'ENOENT' }),
  timeout: () => Object.assign(new Error('tool timed out'), { code: 'ETIMEDOUT' }),
  provider: () => Object.assign(new Error('Bad gateway'), { name: 'AI_APICallError', statusCode: 502 }),
  unknown: () => new Error('boom'),
};

function playTool(
  driver: Driver,
  run: RunRecorder,
  attempt: AttemptRecorder,
  model: ToolModel,
  failure: CauseDetail<'tool_execution_failure'>,
): void {
  const tool: ToolRecorder = run.startTool({ name: TOOL_NAMES[model.cls], sideEffects: model.cls, attempt });
  driver.clock.tick();
  if (model.nested) playRun(driver, model.nested, trace.setSpan(run.context, tool.span), `nested-${driver.counter++}`);
  driver.clock.tick();
  if (model.end === 'complete') tool.complete();
  else if (model.end === 'fail') tool.fail(TOOL_ERRORS[failure]());
  else if (model.end === 'interrupt') tool.interrupt();
}

function playAttempt(
  driver: Driver,
  run: RunRecorder,
  model: AttemptModel,
  reason: FinishReason,
  failureOf: (tool: number) => CauseDetail<'tool_execution_failure'>,
  reported: UsageModel | undefined,
): AttemptRecorder {
  const attempt = run.startAttempt(model.boundary === 'none' ? {} : { boundary: BOUNDARIES[model.boundary] });
  for (const output of model.outputs) {
    driver.clock.tick();
    playOutput(attempt, output);
  }
  for (let i = 0; i < model.parallelCalls; i += 1) {
    driver.clock.tick();
    attempt.toolInputStarted('read');
    attempt.toolInputCompleted('read');
    attempt.toolCallMaterialized({ name: 'read', callId: `call_${i}`, sideEffects: 'read_only' });
  }
  for (const [index, tool] of model.tools.entries()) {
    driver.clock.tick();
    playTool(driver, run, attempt, tool, failureOf(index));
  }
  driver.clock.tick();
  const end = model.end;
  const { atFinish, ...usage } = reported ?? { atFinish: false };
  // Reported as a provider does: at the finish, or mid-stream (an attempt cut off later keeps it).
  if (reported && !(atFinish && end.kind === 'finish')) attempt.usage(usage);
  if (end.kind === 'finish')
    attempt.finish({
      ...(reason === undefined ? {} : { finishReasons: [reason] }),
      ...(reported && atFinish ? { usage } : {}),
    });
  else if (end.kind === 'fail') attempt.fail(errorOf(end.error));
  else if (end.kind === 'watchdog') attempt.watchdogFired({ phase: end.phase });
  return attempt;
}

function playRun(driver: Driver, model: RunModel, parentContext: Context | undefined, agentName: string): Incident {
  const run = RunRecorder.start({
    tracer: driver.tracer,
    clock: driver.clock,
    agentName,
    providerName: 'openai',
    ...(parentContext ? { parentContext } : {}),
  });
  const stopNow = (after: number, open: AttemptRecorder | undefined): boolean => {
    const stop = model.stop;
    if (!stop || stop.after !== after) return false;
    driver.clock.tick();
    if (stop.kind === 'user_cancel') run.userCancel(stop.origin);
    else if (stop.kind === 'lifecycle_close') run.lifecycleClose({ kind: stop.lifecycle });
    else if (stop.kind === 'setup_failure') run.setupFailure(SETUP_ERROR);
    else run.processExit({ closeReason: stop.reason, exitCode: 1 });
    // What the stop aborted ends with no fact of its own.
    if (open && !open.ended && stop.kind !== 'process_exit') open.close();
    return true;
  };
  if (!stopNow(-1, undefined)) {
    for (const [index, attemptModel] of model.attempts.entries()) {
      driver.clock.tick();
      const attempt = playAttempt(
        driver,
        run,
        attemptModel,
        finishReasonOf(model, index),
        (tool) => toolFailureOf(model, index, tool),
        usageOf(model, index),
      );
      const failed = attemptModel.end.kind === 'fail' || attemptModel.end.kind === 'watchdog';
      if (failed && attemptModel.retry && index + 1 < model.attempts.length) {
        driver.clock.tick();
        run.retryIssued(attempt);
      }
      if (stopNow(index, attempt)) break;
    }
  }
  if (model.ending === 'crash') return run.incident();
  // The run ends in the same action as its last child: jitter may put its end "before" the child's.
  const verdict = run.end();
  if (parentContext) driver.nested.set(agentName, verdict);
  return verdict;
}

/** Plays `model` as a top-level run named `run-<n>` on `tracer`. */
export function play(model: RunModel, tracer: Tracer, n: number, startMillis = Date.now()): Played {
  const driver: Driver = { tracer, clock: actionClock(startMillis), nested: new Map(), counter: 0 };
  const verdict = playRun(driver, model, undefined, `run-${n}`);
  return { verdict, nested: driver.nested };
}
