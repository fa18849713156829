/**
 * decodeExportTraceRequest: the same spans as the OTLP/JSON of the same
 * export, only ProtobufDecodeError on malformed input; and the response encoder.
 */
import type { Attributes, AttributeValue, Link, SpanContext } from '@opentelemetry/api';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanLimits } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeepingExporter } from '../support/keeping-exporter.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import {
  ProtobufDecodeError,
  decodeExportTraceRequest,
  encodeExportTraceResponse,
} from '../../src/otlp/otlp-protobuf.js';

// ---------------------------------------------------------------------------
// Real spans from the SDK.

const T0 = 1_700_000_000;

function pipeline(resource: Record<string, AttributeValue>, spanLimits?: SpanLimits) {
  const exporter = new KeepingExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits,
  });
  return {
    spans: exporter.spans,
    tracer: (name: string, version?: string, schemaUrl?: string) => provider.getTracer(name, version, { schemaUrl }),
  };
}

const everyType: Attributes = {
  str: 'value',
  'str.empty': '',
  'str.unicode': 'héllo ✓ 😀 中文',
  'str.long': 'x'.repeat(200),
  'str.long.unicode': 'é'.repeat(100),
  int: 42,
  'int.zero': 0,
  'int.negative': -7,
  'int.negative.min32': -2147483648,
  'int.max.u32': 4294967295,
  'int.two32': 2 ** 32,
  'int.negative.large': -(2 ** 53) + 1,
  'int.big': 2 ** 60,
  'int.min64': -(2 ** 63),
  double: 1.5,
  'double.negative': -0.25,
  'double.tiny': 5e-324,
  'double.huge': 1.7976931348623157e308,
  'bool.true': true,
  'bool.false': false,
  'array.string': ['a', 'b', ''],
  'array.int': [1, -2, 3],
  'array.double': [0.5, -1.5],
  'array.bool': [true, false],
  'array.empty': [],
  'array.with.null': ['a', null, 'b'],
};

function minimalSpan(): ReadableSpan[] {
  const p = pipeline({ 'service.name': 'minimal' });
  p.tracer('t')
    .startSpan('only', { startTime: [T0, 1] })
    .end([T0 + 1, 2]);
  return p.spans;
}

function everyAttributeType(): ReadableSpan[] {
  const p = pipeline({ 'service.name': 'types', ...everyType });
  const tracer = p.tracer('types', '1.0.0');
  tracer.startSpan('typed', { attributes: everyType, kind: SpanKind.CLIENT }).end();
  return p.spans;
}

function eventsLinksStatusAndParents(): ReadableSpan[] {
  const p = pipeline({ 'service.name': 'agent' });
  const tracer = p.tracer('agent', '2.3.4', 'https://opentelemetry.io/schemas/1.30.0');
  const remote: SpanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=opaque,other=1'),
  };
  const run = tracer.startSpan(
    'invoke_agent',
    { kind: SpanKind.SERVER, startTime: [T0, 0] },
    trace.setSpanContext(ROOT_CONTEXT, remote),
  );
  const inRun = trace.setSpan(ROOT_CONTEXT, run);
  const chat = tracer.startSpan(
    'chat',
    { kind: SpanKind.CLIENT, attributes: { 'gen_ai.request.model': 'gpt' } },
    inRun,
  );
  chat.addEvent('retry', { attempt: 2, 'error.type': 'socket' }, [T0, 500]);
  chat.addEvent('no attributes');
  chat.recordException(new Error('upstream 503'));
  chat.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 503' });
  chat.end();
  const links: Link[] = [
    { context: chat.spanContext(), attributes: { 'link.reason': 'retry of', n: -1 } },
    { context: remote },
  ];
  const tool = tracer.startSpan('execute_tool', { kind: SpanKind.INTERNAL, links }, inRun);
  tool.setStatus({ code: SpanStatusCode.OK });
  tool.end();
  tracer.startSpan('enqueue', { kind: SpanKind.PRODUCER }, inRun).end();
  tracer.startSpan('dequeue', { kind: SpanKind.CONSUMER }, inRun).end();
  run.end([T0 + 5, 999_999_999]);
  return p.spans;
}

function anOpenSpan(): ReadableSpan[] {
  const p = pipeline({ 'service.name': 'open' });
  const tracer = p.tracer('open');
  const open = tracer.startSpan('still running', { startTime: [T0, 7] });
  open.addEvent('progress');
  tracer.startSpan('done', {}, trace.setSpan(ROOT_CONTEXT, open)).end();
  // The SDK's span object is a ReadableSpan whose endTime stays [0, 0] until it ends.
  return [...p.spans, open as unknown as ReadableSpan];
}

function severalResourcesAndScopes(): ReadableSpan[] {
  const a = pipeline({ 'service.name': 'a', 'process.pid': 1234, 'deployment.environment': 'test' });
  const b = pipeline({ 'service.name': 'b', 'host.arch': ['arm64'] });
  for (const [i, [p, scope, version]] of (
    [
      [a, 'agent', '1'],
      [a, 'tools', undefined],
      [b, 'agent', '1'],
      [b, 'http', '0.1.0'],
    ] as const
  ).entries()) {
    const tracer = p.tracer(scope, version);
    tracer.startSpan(`${scope}-${i}`, { attributes: { i } }).end();
    tracer.startSpan(`${scope}-${i}-again`).end();
  }
  return [...a.spans, ...b.spans];
}

function droppedCounts(): ReadableSpan[] {
  const p = pipeline({ 'service.name': 'limits' }, { attributeCountLimit: 2, eventCountLimit: 1, linkCountLimit: 1 });
  const tracer = p.tracer('limits');
  const first = tracer.startSpan('first');
  first.end();
  const links: Link[] = [{ context: first.spanContext() }, { context: first.spanContext() }];
  const span = tracer.startSpan('limited', { attributes: { a: 1, b: 2, c: 3, d: 4 }, links });
  span.addEvent('one');
  span.addEvent('two');
  span.end();
  return p.spans;
}

/** The SDK refuses bytes and map attributes; the serializers do not, and OTLP has both. */
function bytesAndMaps(): ReadableSpan[] {
  const context: SpanContext = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
  };
  const attributes = {
    bytes: new Uint8Array([0, 1, 2, 250, 255]),
    'bytes.empty': new Uint8Array(0),
    map: { k: 'v', n: -3, inner: { list: [1, 2.5], ok: true } },
    'array.of.maps': [{ a: 'x' }, { b: 2 }],
  } as unknown as Attributes;
  const span: ReadableSpan = {
    name: 'raw',
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    startTime: [T0, 1],
    endTime: [T0, 2],
    status: { code: SpanStatusCode.UNSET },
    attributes,
    links: [],
    events: [{ name: 'with bytes', time: [T0, 1], attributes }],
    duration: [0, 1],
    ended: true,
    resource: resourceFromAttributes({ 'service.name': 'raw' }),
    instrumentationScope: { name: 'raw', version: '1' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
  return [span];
}

function manySpans(count: number): ReadableSpan[] {
  const p = pipeline({ 'service.name': 'many' });
  const tracer = p.tracer('many', '1.0.0');
  for (let t = 0; t < count / 8; t++) {
    const root = tracer.startSpan('invoke_agent', { attributes: { 'gen_ai.agent.name': 'coder', run: t } });
    const inRoot = trace.setSpan(ROOT_CONTEXT, root);
    for (let s = 0; s < 7; s++) {
      const child = tracer.startSpan(
        `execute_tool ${s}`,
        { attributes: { 'gen_ai.tool.name': `tool-${s}`, latency: s * 1.25, ok: s % 2 === 0 } },
        inRoot,
      );
      child.addEvent('chunk', { index: s });
      child.end();
    }
    root.end();
  }
  return p.spans;
}

const cases: [string, () => ReadableSpan[]][] = [
  ['a minimal span', minimalSpan],
  ['attributes of every type the SDK records', everyAttributeType],
  ['events, links, statuses, kinds, remote and local parents', eventsLinksStatusAndParents],
  ['an open span (end time 0) beside its ended child', anOpenSpan],
  ['several resources and scopes', severalResourcesAndScopes],
  ['spans with dropped attributes, events and links', droppedCounts],
  ['bytes and map values', bytesAndMaps],
  ['512 spans', () => manySpans(512)],
];

const serialize = (spans: ReadableSpan[]) => ({
  protobuf: ProtobufTraceSerializer.serializeRequest(spans)!,
  json: JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as unknown,
});

/**
 * otel-js OTLP/JSON with each `intValue` as the exact decimal string the protobuf
 * decoder gives. An integral number outside int64 (1.7976931348623157e308) is
 * `intValue` in otel-js JSON but `double_value` in its protobuf: compare as a double.
 */
function asProtobufDecodes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asProtobufDecodes);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => {
      if (name !== 'intValue' || typeof member !== 'number') return [name, asProtobufDecodes(member)];
      return member >= -(2 ** 63) && member < 2 ** 63 ? [name, BigInt(member).toString()] : ['doubleValue', member];
    }),
  );
}

/**
 * Decoded spans with each kept double (a boxed Number: the gateway keeps a whole double a double) as its
 * number: otel-js writes 1.7976931348623157e308 as a double in protobuf and as an (invalid) `intValue`
 * in JSON, and the decoder keeps each as it came; as numbers they agree.
 */
function asNumbers(value: unknown): unknown {
  if (value instanceof Number) return value.valueOf();
  if (Array.isArray(value)) return value.map(asNumbers);
  if (
    typeof value !== 'object' ||
    value === null ||
    value instanceof Uint8Array ||
    Object.getPrototypeOf(value) !== Object.prototype
  )
    return value;
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, asNumbers(member)]));
}

describe('decodeExportTraceRequest round trip', () => {
  it.each(cases)('decodes %s to the same spans as the OTLP/JSON of the same export', (_name, build) => {
    const spans = build();
    const { protobuf, json } = serialize(spans);
    const fromProtobuf = decodeOtlpJsonSpans(decodeExportTraceRequest(protobuf));
    expect(fromProtobuf).toHaveLength(spans.length);
    expect(asNumbers(fromProtobuf)).toEqual(asNumbers(decodeOtlpJsonSpans(json)));
  });

  it.each(cases)('keeps every OTLP/JSON field of %s, including those decodeOtlpJsonSpans ignores', (_name, build) => {
    const { protobuf, json } = serialize(build());
    expect(decodeExportTraceRequest(protobuf)).toMatchObject(asProtobufDecodes(json) as object);
  });

  it('keeps an open span open and an ERROR status with its message', () => {
    const open = decodeOtlpJsonSpans(decodeExportTraceRequest(serialize(anOpenSpan()).protobuf)).find(
      (s) => s.name === 'still running',
    );
    expect(open).toMatchObject({ startTimeUnixNano: BigInt(T0) * 1_000_000_000n + 7n, endTimeUnixNano: undefined });
    const chat = decodeOtlpJsonSpans(decodeExportTraceRequest(serialize(eventsLinksStatusAndParents()).protobuf)).find(
      (s) => s.name === 'chat',
    );
    expect(chat).toMatchObject({ statusCode: 2, statusMessage: 'upstream 503', kind: 3 });
  });
});

// ---------------------------------------------------------------------------
// Hand-built wire bytes.

const varint = (n: number | bigint): number[] => {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
const key = (field: number, wire: number) => varint((field << 3) | wire);
const len = (field: number, ...parts: number[][]) => {
  const body = parts.flat();
  return [...key(field, 2), ...varint(body.length), ...body];
};
const str = (field: number, s: string) => len(field, [...new TextEncoder().encode(s)]);
const u64 = (n: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, n), true);
  return [...b];
};
const f64 = (n: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, n, true);
  return [...b];
};
const fixed32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
const hexBytes = (hex: string) => hex.match(/../g)!.map((h) => parseInt(h, 16));

/** A request with one span whose fields are `span`; `extra` is appended to every enclosing message. */
const request = (span: number[][], extra: number[] = []) => {
  const keyValue = len(1, str(1, 'service.name'), len(2, str(1, 'svc'), extra), extra);
  const scopeSpans = len(2, len(1, str(1, 'scope'), extra), len(2, ...span), extra);
  return new Uint8Array([...len(1, len(1, keyValue, extra), scopeSpans, extra), ...extra]);
};

const spanWith = (...fields: number[][]) => [
  len(1, hexBytes('0af7651916cd43dd8448eb211c80319c')),
  len(2, hexBytes('b7ad6b7169203331')),
  key(7, 1),
  u64(1n),
  ...fields,
];

/** The first span of a decoded request, as a plain object. */
const firstSpan = (bytes: Uint8Array) =>
  (decodeExportTraceRequest(bytes) as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] })
    .resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
const attributeValue = (anyValue: number[]) =>
  (firstSpan(request(spanWith(len(9, str(1, 'a'), len(2, anyValue))))).attributes as { value: unknown }[])[0]!.value;

describe('decodeExportTraceRequest on hand-built messages', () => {
  it.each([
    ['a string', str(1, 'héllo'), { stringValue: 'héllo' }],
    ['a string keeping its byte-order mark', str(1, '\ufeffx'), { stringValue: '\ufeffx' }],
    ['invalid UTF-8 as U+FFFD', len(1, [0x61, 0xff]), { stringValue: 'a\ufffd' }],
    ['false', [...key(2, 0), 0], { boolValue: false }],
    ['-1 from a 10-byte varint', [...key(3, 0), ...varint(-1n)], { intValue: '-1' }],
    ['the int64 minimum', [...key(3, 0), ...varint(-(2n ** 63n))], { intValue: '-9223372036854775808' }],
    ['the int64 maximum', [...key(3, 0), ...varint(2n ** 63n - 1n)], { intValue: '9223372036854775807' }],
    ['2^53 + 1 exactly', [...key(3, 0), ...varint(2n ** 53n + 1n)], { intValue: '9007199254740993' }],
    ['-2^53 - 1 exactly', [...key(3, 0), ...varint(-(2n ** 53n) - 1n)], { intValue: '-9007199254740993' }],
    ['a double', [...key(4, 1), ...f64(-0.1)], { doubleValue: -0.1 }],
    ['bytes as base64', len(7, [0xfb, 0xff]), { bytesValue: '+/8=' }],
    [
      'an array',
      len(5, len(1, str(1, 'x')), len(1, [...key(2, 0), 1])),
      { arrayValue: { values: [{ stringValue: 'x' }, { boolValue: true }] } },
    ],
    [
      'a map',
      len(6, len(1, str(1, 'k'), len(2, str(1, 'v')))),
      { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } },
    ],
    ['an empty value', [], {}],
    ['the last member of the oneof', [...str(1, 'first'), ...key(3, 0), 5], { intValue: '5' }],
    [
      'a split array merged',
      [...len(5, len(1, str(1, 'a'))), ...len(5, len(1, str(1, 'b')))],
      { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } },
    ],
  ])('decodes an AnyValue holding %s', (_name, anyValue, expected) => {
    expect(attributeValue(anyValue)).toEqual(expected);
  });

  it('decodes uint64 times, enums, flags and defaults exactly', () => {
    const span = firstSpan(
      request([
        len(1, hexBytes('0AF7651916CD43DD8448EB211C80319C')),
        str(5, 'n'),
        [...key(6, 0), ...varint(-1n)],
        [...key(7, 1), ...u64(2n ** 64n - 1n)],
        [...key(8, 1), ...u64(2n ** 53n + 1n)],
        [...key(16, 5), ...fixed32(0xffffffff)],
        len(15, str(2, 'm'), [...key(3, 0), 2]),
      ]),
    );
    expect(span).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: '',
      traceState: '',
      parentSpanId: '',
      flags: 0xffffffff,
      name: 'n',
      kind: -1,
      startTimeUnixNano: '18446744073709551615',
      endTimeUnixNano: '9007199254740993',
      attributes: [],
      droppedAttributesCount: 0,
      events: [],
      droppedEventsCount: 0,
      links: [],
      droppedLinksCount: 0,
      status: { code: 2, message: 'm' },
    });
  });

  it('skips unknown fields of every wire type, at every level', () => {
    const unknown = [
      ...[...key(99, 0), ...varint(-1n)],
      ...[...key(99, 1), ...u64(7n)],
      ...len(1000, [1, 2, 3]),
      ...[...key(99, 3), ...key(1, 0), 1, ...key(5, 3), ...key(6, 2), 0, ...key(5, 4), ...key(99, 4)],
      ...[...key(99, 5), ...fixed32(9)],
    ];
    const fields = (tail: number[]) => [
      str(5, 'name'),
      len(9, str(1, 'a'), len(2, [...key(3, 0), 5], tail), tail),
      len(11, [...key(1, 1), ...u64(5n)], str(2, 'event'), tail),
      len(13, len(1, hexBytes('00')), tail),
      len(15, [...key(3, 0), 1], tail),
    ];
    const withUnknown = decodeExportTraceRequest(request(spanWith(...fields(unknown), unknown), unknown));
    expect(withUnknown).toEqual(decodeExportTraceRequest(request(spanWith(...fields([])))));
    expect(decodeOtlpJsonSpans(withUnknown)).toMatchObject([
      { name: 'name', attributes: { a: 5 }, events: [{ name: 'event' }], statusCode: 1 },
    ]);
  });

  it('treats a known field with the wrong wire type as unknown', () => {
    const span = firstSpan(request(spanWith([...key(5, 0), 3], [...key(6, 2), 0])));
    expect(span).toMatchObject({ name: '', kind: 0 });
  });
});

// ---------------------------------------------------------------------------
// Malformed input.

/** Runs the decoder; returns the ProtobufDecodeError it threw, or undefined. Any other throw fails the test. */
function decodeError(bytes: Uint8Array): ProtobufDecodeError | undefined {
  try {
    decodeExportTraceRequest(bytes);
    return undefined;
  } catch (error) {
    if (error instanceof ProtobufDecodeError) return error;
    throw error;
  }
}

/** An AnyValue nested `levels` deep in arrays around `core`, built inside out so it costs linear time. */
function nestedArrays(levels: number, core: number[]): number[] {
  const prefixes: number[][] = [];
  let size = core.length;
  for (let i = 0; i < levels; i++) {
    const item = [...key(1, 2), ...varint(size)];
    const array = [...key(5, 2), ...varint(size + item.length)];
    prefixes.push([...array, ...item]);
    size += item.length + array.length;
  }
  return [...prefixes.reverse().flat(), ...core];
}

function nestedMaps(levels: number, core: number[]): number[] {
  let value = core;
  for (let i = 0; i < levels; i++) value = len(6, len(1, str(1, 'k'), len(2, value)));
  return value;
}

const attributeRequest = (anyValue: number[]) => request(spanWith(len(9, str(1, 'a'), len(2, anyValue))));

describe('decodeExportTraceRequest on malformed input', () => {
  it.each([
    ['a truncated varint', [...key(2, 0), 0x80], /^truncated varint at byte 1$/],
    ['a length beyond the input', [...key(1, 2), 5, 0], /^length 5 exceeds remaining 1 bytes at byte 1$/],
    [
      'a 64-bit length',
      [...key(1, 2), ...varint(2n ** 40n)],
      /^length 1099511627776 exceeds remaining 0 bytes at byte 1$/,
    ],
    [
      'a length past its enclosing message',
      [...len(1, [...key(2, 2), 9]), ...key(3, 2), 8, ...Array<number>(8).fill(0)],
      /^length 9 exceeds remaining 0 bytes at byte 3$/,
    ],
    [
      'a varint longer than 64 bits',
      [...key(2, 0), ...Array<number>(9).fill(0xff), 0x02],
      /^varint longer than 64 bits at byte 1$/,
    ],
    ['an 11-byte varint', [...key(2, 0), ...Array<number>(10).fill(0x80), 0], /^varint longer than 64 bits at byte 1$/],
    ['wire type 6', [...key(2, 6)], /^bad wire type 6 at byte 0$/],
    ['wire type 7 deep in an attribute', [...attributeRequest([...key(1, 7)])], /^bad wire type 7 at byte \d+$/],
    ['field number 0', [0x02, 0x00], /^field number 0 at byte 0$/],
    ['a tag longer than 32 bits', [...varint(2n ** 35n)], /^tag longer than 32 bits at byte 0$/],
    ['an end-group without start-group', [...key(2, 4)], /^end-group without start-group at byte 0$/],
    ['a group never closed', [...key(2, 3), ...key(1, 0), 1], /^truncated group \(field 2\) at byte 3$/],
    [
      'a mismatched end-group',
      [...key(2, 3), ...key(3, 4)],
      /^end-group for field 3 does not match its start-group at byte 1$/,
    ],
    [
      'a truncated fixed64 deep in a span',
      [...len(1, len(2, len(2, [...key(7, 1), 1, 2, 3])))],
      /^truncated fixed64 at byte 7$/,
    ],
    ['a truncated fixed32 flags', [...len(1, len(2, len(2, [...key(16, 5), 1, 2])))], /^truncated fixed32 at byte 8$/],
    ['a truncated double', [...attributeRequest([...key(4, 1), 1])], /^truncated double at byte \d+$/],
    [
      'AnyValue arrays nested 33 deep',
      attributeRequest(nestedArrays(32, str(1, 'x'))),
      /^AnyValue nested deeper than 32 at byte \d+$/,
    ],
    [
      'AnyValue maps nested 33 deep',
      attributeRequest(nestedMaps(32, str(1, 'x'))),
      /^AnyValue nested deeper than 32 at byte \d+$/,
    ],
    [
      'AnyValue arrays nested 100,000 deep',
      attributeRequest(nestedArrays(100_000, str(1, 'x'))),
      /^AnyValue nested deeper than 32 at byte \d+$/,
    ],
    [
      '100,000 nested unknown groups',
      [...Array<number>(100_000).fill(0x1b)],
      /^truncated group \(field 3\) at byte 100000$/,
    ],
  ])('rejects %s with a ProtobufDecodeError naming where', (_name, bytes, message) => {
    const error = decodeError(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
    expect(error).toBeInstanceOf(ProtobufDecodeError);
    expect(error?.message).toMatch(message);
    expect(error?.offset).toBe(Number(/at byte (\d+)$/.exec(error!.message)![1]));
  });

  it('accepts AnyValue nested exactly 32 deep', () => {
    expect(decodeError(attributeRequest(nestedArrays(31, str(1, 'x'))))).toBeUndefined();
    expect(decodeError(attributeRequest(nestedMaps(31, str(1, 'x'))))).toBeUndefined();
  });

  it('rejects input that is not a Uint8Array with a ProtobufDecodeError', () => {
    expect(() => decodeExportTraceRequest('not bytes' as unknown as Uint8Array)).toThrow(ProtobufDecodeError);
  });

  it.each([
    ['events, links and statuses', eventsLinksStatusAndParents],
    ['every attribute type', everyAttributeType],
    ['bytes and maps', bytesAndMaps],
  ])('throws only ProtobufDecodeError for a request of %s truncated at every byte offset', (_name, build) => {
    const bytes = ProtobufTraceSerializer.serializeRequest(build())!;
    // One resource, so the request is one top-level field: every proper, non-empty prefix is malformed.
    expect((decodeExportTraceRequest(bytes) as { resourceSpans: unknown[] }).resourceSpans).toHaveLength(1);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(decodeError(bytes.subarray(0, cut)), `cut at ${cut}`).toBeInstanceOf(ProtobufDecodeError);
    }
    expect(decodeExportTraceRequest(bytes.subarray(0, 0))).toEqual({ resourceSpans: [] });
  });

  it('throws only ProtobufDecodeError on 1,000 random inputs, without hanging', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        decodeError(bytes);
      }),
      { numRuns: 1000 },
    );
  }, 10_000);

  it('throws only ProtobufDecodeError on 1,000 corruptions of a real request, without hanging', () => {
    const valid = ProtobufTraceSerializer.serializeRequest([...eventsLinksStatusAndParents(), ...bytesAndMaps()])!;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        }),
        (edits) => {
          const bytes = valid.slice();
          for (const [at, byte] of edits) bytes[at] = byte;
          decodeError(bytes);
        },
      ),
      { numRuns: 1000 },
    );
  }, 10_000);
});

// ---------------------------------------------------------------------------
// Response.

describe('encodeExportTraceResponse', () => {
  it.each([
    ['full success: the empty message', undefined, [], {}],
    ['0 rejected and no message: the empty message', { rejectedSpans: 0 }, [], {}],
    ['3 rejected', { rejectedSpans: 3 }, [0x0a, 0x02, 0x08, 0x03], { partialSuccess: { rejectedSpans: 3 } }],
    [
      '300 rejected with a reason',
      { rejectedSpans: 300, errorMessage: 'bad' },
      [0x0a, 0x08, 0x08, 0xac, 0x02, 0x12, 0x03, 0x62, 0x61, 0x64],
      { partialSuccess: { rejectedSpans: 300, errorMessage: 'bad' } },
    ],
    [
      'a warning: 0 rejected with a UTF-8 message',
      { rejectedSpans: 0, errorMessage: 'é' },
      [0x0a, 0x04, 0x12, 0x02, 0xc3, 0xa9],
      { partialSuccess: { errorMessage: 'é' } },
    ],
    [
      '2^40 rejected',
      { rejectedSpans: 2 ** 40 },
      [0x0a, 0x07, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20],
      { partialSuccess: { rejectedSpans: 2 ** 40 } },
    ],
  ])('encodes %s exactly, and the OTLP exporter reads it back', (_name, partial, bytes, decoded) => {
    const encoded = encodeExportTraceResponse(partial);
    expect([...encoded]).toEqual(bytes);
    expect(ProtobufTraceSerializer.deserializeResponse(encoded)).toEqual(decoded);
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 53])('refuses %s rejected spans with a RangeError', (rejectedSpans) => {
    expect(() => encodeExportTraceResponse({ rejectedSpans })).toThrow(RangeError);
  });
});
