/**
 * What a runtime says about a run when it starts one: who runs it, on which
 * provider and model, under which policy and clock, and which failed run it
 * continues.
 */
import type { Context, SpanContext, Tracer } from '@opentelemetry/api';
import type { PolicyInput } from '../derive/policy.js';

/** Options of `RunRecorder.start`. */
export interface RunRecorderOptions {
  /** @default trace.getTracer('agent-incidents') */
  readonly tracer?: Tracer;
  /** `gen_ai.agent.name`; also names the run span `invoke_agent <name>`. */
  readonly agentName?: string;
  /** `gen_ai.provider.name` of the run and its attempts. */
  readonly providerName?: string;
  /** `gen_ai.request.model` default for attempts. */
  readonly model?: string;
  /** `gen_ai.conversation.id`. */
  readonly conversationId?: string;
  /** Parent context of the run span. @default the active context */
  readonly parentContext?: Context;
  /** Policy of the in-process verdict; see `Policy` for defaults. */
  readonly policy?: PolicyInput;
  /**
   * The run this one continues after a failure: a resume from a checkpoint
   * or a reassigned task. The run span links to it. @default none
   */
  readonly continues?: ContinuedRun;
  /** Clock in epoch milliseconds (sub-millisecond precision). @default `Date.now()` at the run start, advanced by `performance.now()`, as the OpenTelemetry SDK times spans */
  readonly clock?: () => number;
}

/** The failed run a new run continues ({@link RunRecorderOptions.continues}). */
export interface ContinuedRun {
  /** Span context of the failed run's span (persist `run.span.spanContext()` with the checkpoint). */
  readonly spanContext: SpanContext;
  /** How this run continues it. */
  readonly as: 'resume' | 'reassign';
  /** 1-based number of this resume (`agent_incidents.resume.attempt`). */
  readonly resumeAttempt?: number;
  /** Reassignment cycles before this execution (`agent_incidents.task.retry_count`). */
  readonly taskRetryCount?: number;
}
