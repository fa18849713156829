/**
 * The fold session a run recorder shares with its nested runs: span views that follow the live
 * SDK span's dropped counts (and its kept events once it dropped some), fresh ids, span
 * bindings, registered runs, and finding the session through the OpenTelemetry context.
 */
import type { Span } from '@opentelemetry/api';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { recordedSpanOf } from '../../src/fold/recorded-spans.js';
import { FoldSession, RecordedView, sessionIn, withSession } from '../../src/runtime/fold-session.js';

const T0 = 1_700_000_000_000;
const PLACE = new FoldSession();
const tracerWith = (eventCountLimit: number, attributeCountLimit = 128) =>
  new BasicTracerProvider({ spanLimits: { eventCountLimit, attributeCountLimit } }).getTracer('unit');
const bare = (): Span =>
  trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7', traceFlags: 1 });

describe('RecordedView', () => {
  it('keeps its own copy of the attributes and starts open with an unset status', () => {
    const attributes = { a: 1 };
    const view = new RecordedView(PLACE, bare(), { spanId: 's1', parentSpanId: undefined }, 'chat', attributes, T0);
    attributes.a = 2;
    expect(view).toMatchObject({ spanId: 's1', name: 'chat', attributes: { a: 1 }, startMillis: T0, statusCode: 0 });
    expect([view.endMillis, view.statusMessage, view.parentSpanId]).toEqual([undefined, undefined, undefined]);
  });

  it('reads an SDK span’s attributes live: what others set on it too, and not what its limits dropped', () => {
    const span = tracerWith(128, 2).startSpan('chat', { attributes: { a: 1 } });
    const view = new RecordedView(PLACE, span, { spanId: 's1', parentSpanId: undefined }, 'chat', { a: 1 }, T0);
    span.setAttribute('error.type', 'rate_limit');
    view.setAttribute('b', 2);
    expect(view.attributes).toEqual({ a: 1, 'error.type': 'rate_limit' });
  });

  it('reads the events the recorder wrote while the span dropped none', () => {
    const span = tracerWith(5).startSpan('s');
    const view = new RecordedView(PLACE, span, { spanId: 's1', parentSpanId: 's0' }, 'chat', {}, T0);
    view.recorded.push({ name: 'mine', timeMillis: T0 + 1, attributes: {} });
    span.addEvent('sdk-only', {}, T0 + 2);
    expect(view.events.map((e) => e.name)).toEqual(['mine']);
    expect(view.droppedEventsCount).toBe(0);
  });

  it('reads what the SDK span kept once its event limit dropped some, with their times', () => {
    const span = tracerWith(2).startSpan('s');
    const view = new RecordedView(PLACE, span, { spanId: 's1', parentSpanId: 's0' }, 'chat', {}, T0);
    for (const [n, name] of ['a', 'b', 'c'].entries()) {
      span.addEvent(name, { n }, T0 + n);
      view.recorded.push({ name, timeMillis: T0 + n, attributes: { n } });
    }
    expect(view.droppedEventsCount).toBe(1);
    expect(view.events).toEqual([
      { name: 'b', timeMillis: T0 + 1, attributes: { n: 1 }, droppedAttributesCount: 0 },
      { name: 'c', timeMillis: T0 + 2, attributes: { n: 2 }, droppedAttributesCount: 0 },
    ]);
  });

  it('reads the SDK span’s dropped attribute count', () => {
    const span = tracerWith(5, 1).startSpan('s');
    span.setAttribute('a', 1);
    span.setAttribute('b', 2);
    expect(
      new RecordedView(PLACE, span, { spanId: 's1', parentSpanId: undefined }, 'x', {}, T0).droppedAttributesCount,
    ).toBe(1);
  });

  it('counts nothing dropped on a span of no SDK', () => {
    const view = new RecordedView(PLACE, bare(), { spanId: 's1', parentSpanId: undefined }, 'x', {}, T0);
    expect([view.droppedEventsCount, view.droppedAttributesCount, view.events]).toEqual([0, 0, []]);
  });
});

describe('RecordedView as the span’s record for the SDK processor', () => {
  it('registers the span it records, with its session and its scope name', () => {
    const span = tracerWith(128).startSpan('chat');
    const view = new RecordedView(PLACE, span, { spanId: 's1', parentSpanId: undefined }, 'chat', {}, T0);
    expect(recordedSpanOf(span)).toBe(view);
    expect([view.session, view.scopeName]).toEqual([PLACE, 'unit']);
  });

  it('is not folded until the fold ended it, and then keeps what the fold gave (undefined included)', () => {
    const view = new RecordedView(PLACE, bare(), { spanId: 's1', parentSpanId: undefined }, 'x', {}, T0);
    expect([view.endFolded, view.folded]).toEqual([false, undefined]);
    view.foldedAs(undefined);
    expect([view.endFolded, view.folded]).toEqual([true, undefined]);
  });
});

describe('FoldSession', () => {
  it('hands out fresh ids s1, s2, … per session', () => {
    const one = new FoldSession();
    const two = new FoldSession();
    expect([one.nextId(), one.nextId(), two.nextId()]).toEqual(['s1', 's2', 's1']);
  });

  it('remembers which id a span is recorded under', () => {
    const session = new FoldSession();
    const span = bare();
    expect(session.idOf(span)).toBeUndefined();
    session.bind(span, 's7');
    expect([session.idOf(span), session.idOf(bare()), session.idOf(undefined)]).toEqual(['s7', undefined, undefined]);
  });

  it('keeps the registered runs until they are removed', () => {
    const session = new FoldSession();
    const cuts: number[] = [];
    session.addRun('s1', { cut: (at) => cuts.push(at) });
    session.run('s1')?.cut(42);
    session.removeRun('s1');
    expect([cuts, session.run('s1')]).toEqual([[42], undefined]);
  });
});

describe('sessionIn / withSession', () => {
  it('finds the place set on a context and on contexts derived from it, and none elsewhere', () => {
    const place = { session: new FoldSession(), runId: 's1' };
    const context = withSession(ROOT_CONTEXT, place);
    expect(sessionIn(context)).toBe(place);
    expect(sessionIn(trace.setSpan(context, bare()))).toBe(place);
    expect(sessionIn(ROOT_CONTEXT)).toBeUndefined();
  });
});
