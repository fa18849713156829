/**
 * RunFold (src/runtime/run-fold.ts), a run's place in its fold session, on real OpenTelemetry spans of a
 * BasicTracerProvider: the verdict is final only once the run ends, and is the fold core's over the views the run
 * keeps (docs/conventions.md, "Fact events"); events reach the view of the span they were written on while it is
 * tracked; the run's end cuts off every child still open at that time, and a child ending after the cut changes
 * nothing; a run started under another run's context joins its session, under the span it was started in, and is
 * cut off when its parent ends first; its side effects reach its parent's facts; tool activity is news to the
 * attempts still open.
 */
import type { Context, Span } from '@opentelemetry/api';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/derive/policy.js';
import { NATIVE_ATTR } from '../../src/model/native-convention.js';
import type { FactEvent } from '../../src/runtime/fact-events.js';
import {
  attemptFinishedEvent,
  sideEffectBoundaryEvent,
  textOutputStartedEvent,
} from '../../src/runtime/fact-events.js';
import { attemptAttributesOf, runSpanOf, toolAttributesOf, toolNameOf } from '../../src/runtime/genai-spans.js';
import type { OpenSpan } from '../../src/runtime/run-channel.js';
import { RunFold } from '../../src/runtime/run-fold.js';

const T0 = 1_700_000_000_000;
const tracer = new BasicTracerProvider().getTracer('unit');

/** A run started under `parent`; the times its parent cut it off at are kept in `cuts`. */
function startRun(parent: Context = ROOT_CONTEXT) {
  const { name, attributes } = runSpanOf({ agentName: 'unit', providerName: 'openai', model: 'm' });
  const cuts: number[] = [];
  const fold = new RunFold({
    startSpan: () => tracer.startSpan(name, { attributes }, parent),
    links: [],
    name,
    attributes,
    startMillis: T0,
    parent,
    policy: DEFAULT_POLICY,
    cutByParent: (endMillis) => cuts.push(endMillis),
  });
  const span = fold.span;
  let seq = 0;
  /** Writes `event` on `span` at `timeMillis`, numbered as the run numbers its facts. */
  const write = (on: Span, event: FactEvent, timeMillis: number) =>
    fold.eventWritten(on, {
      name: event.name,
      timeMillis,
      attributes: { ...event.attributes, [NATIVE_ATTR.SEQ]: (seq += 1) },
    });
  return { fold, span, cuts, write };
}

/** A child span of `fold` (an attempt, or a tool with `tool`), tracked and open; `cuts` and `news` record its calls. */
function child(fold: RunFold, startMillis: number, tool?: { name: string; sideEffects: 'unsafe' | 'read_only' }) {
  const attributes = tool
    ? toolAttributesOf({ name: tool.name, sideEffects: tool.sideEffects })
    : attemptAttributesOf({ number: 1, providerName: 'openai', model: 'm' });
  const name = tool ? toolNameOf(tool.name) : 'chat m';
  const span = tracer.startSpan(name, { attributes }, fold.context);
  const view = fold.track(span, name, attributes, startMillis);
  const cuts: number[] = [];
  const news: number[] = [];
  const handle: OpenSpan = {
    span,
    view,
    isTool: tool !== undefined,
    cutAt: (endMillis) => cuts.push(endMillis),
    toolActivity: () => news.push(1),
  };
  fold.opened(handle);
  return { span, view, handle, cuts, news };
}

/** An attempt that streamed text and finished normally, ended at `endMillis`. */
function finishedAttempt(run: ReturnType<typeof startRun>, endMillis: number) {
  const attempt = child(run.fold, T0 + 1);
  run.write(attempt.span, sideEffectBoundaryEvent({ tools: [] }), T0 + 1);
  run.write(attempt.span, textOutputStartedEvent(), T0 + 2);
  run.write(attempt.span, attemptFinishedEvent(), T0 + 3);
  attempt.view.attributes['gen_ai.response.finish_reasons'] = ['stop'];
  run.fold.spanEnded(attempt.handle, endMillis);
  return attempt;
}

describe('the verdict', () => {
  it('is final only once the run ends: before, facts are the fold’s as they stand', () => {
    const run = startRun();
    expect(run.fold.facts()).toMatchObject({ facts: [], attempts: [] });
    finishedAttempt(run, T0 + 4);
    expect(run.fold.final).toBeUndefined();
    expect(run.fold.facts().attempts).toHaveLength(1);
    run.fold.cutOpen(T0 + 5);
    run.fold.endRun(T0 + 5);
    expect(run.fold.final?.incident.outcome).toBe('success');
    expect(run.fold.view.endMillis).toBe(T0 + 5);
    expect(run.fold.facts()).toBe(run.fold.final?.facts);
  });

  it('an attempt still open at the run’s end is cut off there: never a success', () => {
    const run = startRun();
    const attempt = child(run.fold, T0 + 1);
    run.write(attempt.span, textOutputStartedEvent(), T0 + 2);
    run.fold.cutOpen(T0 + 9);
    run.fold.endRun(T0 + 9);
    expect([attempt.cuts, attempt.view.endMillis]).toEqual([[T0 + 9], T0 + 9]);
    expect(run.fold.final?.facts.openChildren).toBe(true);
    expect(run.fold.final?.incident.outcome).not.toBe('success');
    // The attempt's own end, after the cut, changes nothing.
    run.fold.spanEnded(attempt.handle, T0 + 20);
    expect(attempt.view.endMillis).toBe(T0 + 9);
  });
});

describe('events', () => {
  it('reach the view of the span they were written on while it is tracked, and no other', () => {
    const run = startRun();
    const attempt = child(run.fold, T0 + 1);
    run.write(run.span, sideEffectBoundaryEvent({ tools: [] }), T0 + 1);
    run.write(attempt.span, textOutputStartedEvent(), T0 + 2);
    run.fold.spanEnded(attempt.handle, T0 + 3);
    run.write(attempt.span, attemptFinishedEvent(), T0 + 4);
    run.write(tracer.startSpan('elsewhere'), attemptFinishedEvent(), T0 + 4);
    expect(run.fold.view.recorded.map((e) => e.name)).toEqual([sideEffectBoundaryEvent({ tools: [] }).name]);
    expect(attempt.view.recorded.map((e) => e.name)).toEqual([textOutputStartedEvent().name]);
  });
});

describe('tool activity', () => {
  it('a tool that ends, or toolActivity(), is news to every child still open', () => {
    const run = startRun();
    const attempt = child(run.fold, T0 + 1);
    const tool = child(run.fold, T0 + 2, { name: 'read', sideEffects: 'read_only' });
    run.fold.toolActivity();
    expect([attempt.news.length, tool.news.length]).toEqual([1, 1]);
    // The tool that ended is no longer open: the news is the others'.
    run.fold.spanEnded(tool.handle, T0 + 3);
    expect([attempt.news.length, tool.news.length]).toEqual([2, 1]);
    run.fold.spanEnded(attempt.handle, T0 + 4);
    run.fold.toolActivity();
    expect([attempt.news.length, tool.news.length]).toEqual([2, 1]);
  });
});

describe('nested runs', () => {
  it('a run started outside any run has a session of its own; one started under it joins it, under its run span', () => {
    const parent = startRun();
    const nested = startRun(parent.fold.context);
    expect([parent.fold.view.spanId, parent.fold.view.parentSpanId]).toEqual(['s1', undefined]);
    expect([nested.fold.view.spanId, nested.fold.view.parentSpanId]).toEqual(['s2', 's1']);
    expect(startRun().fold.view.spanId).toBe('s1');
  });

  it('a run started in a span of another run hangs under that span', () => {
    const parent = startRun();
    const tool = child(parent.fold, T0 + 1, { name: 'delegate', sideEffects: 'unsafe' });
    const nested = startRun(trace.setSpan(parent.fold.context, tool.span));
    expect(nested.fold.view.parentSpanId).toBe(tool.view.spanId);
  });

  it('is cut off when its parent ends first, at the parent’s end', () => {
    const parent = startRun();
    const nested = startRun(parent.fold.context);
    parent.fold.cutOpen(T0 + 7);
    parent.fold.endRun(T0 + 7);
    expect(nested.cuts).toEqual([T0 + 7]);
    expect(parent.cuts).toEqual([]);
  });

  it('its side effects reach its parent’s facts', () => {
    const parent = startRun();
    const nested = startRun(parent.fold.context);
    const bash = child(nested.fold, T0 + 1, { name: 'bash', sideEffects: 'unsafe' });
    nested.fold.spanEnded(bash.handle, T0 + 2);
    nested.fold.cutOpen(T0 + 3);
    nested.fold.endRun(T0 + 3);
    expect(parent.fold.facts().facts).toContainEqual(
      expect.objectContaining({ kind: 'child_run_side_effects', sideEffects: 'unsafe' }),
    );
    // An ended nested run is not cut again by its parent.
    parent.fold.cutOpen(T0 + 4);
    expect(nested.cuts).toEqual([]);
  });
});
