/**
 * The hand-written OTLP/protobuf decoder (src/otlp/otlp-protobuf.ts) against
 * two maintained ones, protobufjs and @bufbuild/protobuf (code generated from
 * the opentelemetry-proto files: test/support/otlp-decoders/), on random
 * ExportTraceServiceRequests: every value must come out the same, in the
 * OTLP/JSON shape `decodeExportTraceRequest` returns (test/support/otlp-decoders/adapters.mjs
 * turns the libraries' messages into it).
 *
 * Three sources of bytes:
 * - requests generated as the OTLP/JSON shape they must decode to, encoded by
 *   protobufjs and by @bufbuild/protobuf, which can express every field: int64
 *   beyond 2^53 and negative, NaN/±Infinity/-0, bytes values, nested arrays and
 *   kvlists, trace state, scope attributes, schema URLs, dropped counts, flags,
 *   events, links, odd id lengths, negative enums, and unknown fields of every
 *   wire type (groups too) in every message. Decoded, they must equal the
 *   generated request, and both libraries' decoding of the same bytes.
 * - the same with a second occurrence of messages appended to their own
 *   encoding (protobuf's merge: a singular field's last value wins, repeated
 *   fields append, a singular message merges, a oneof takes its last member):
 *   no expected value here, the three decoders must agree.
 * - the SDK's own serializer (`ProtobufTraceSerializer`) on random ReadableSpans.
 *
 * 150 cases each by default (about 2 s); `npm run fuzz:otlp-decoder` runs
 * 20,000 each (DECODER_RUNS; about 5 minutes).
 */
import type { Attributes, HrTime, Link, SpanContext, SpanKind } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BufbuildMessage, BufbuildUnknownField, MessageName } from '../support/otlp-decoders/adapters.mjs';
import {
  ProtobufjsLong,
  bufbuildMessage,
  decodeWithBufbuild,
  decodeWithProtobufjs,
  encodeWithBufbuild,
  encodeWithProtobufjs,
} from '../support/otlp-decoders/adapters.mjs';
import { decodeExportTraceRequest } from '../../src/otlp/otlp-protobuf.js';

const RUNS = Number(process.env.DECODER_RUNS ?? 150);
/** Long runs need more than the suite's 30 s. */
const TIMEOUT = 30_000 + RUNS * 50;

let cases = 0;
/** Yields to the event loop every 50 cases, so a long run keeps vitest's worker answering its RPCs. */
async function breathe(): Promise<void> {
  cases += 1;
  if (cases % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
}

// ---------------------------------------------------------------------------
// Comparing: the first path where two decoded requests differ. Numbers are
// compared with Object.is, so NaN equals NaN and -0 differs from 0.

interface Difference {
  path: string;
  left: unknown;
  right: unknown;
}

function firstDifference(left: unknown, right: unknown, path = '$'): Difference | undefined {
  if (Object.is(left, right)) return undefined;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null)
    return { path, left, right };
  if (Array.isArray(left) !== Array.isArray(right)) return { path, left, right };
  if (Array.isArray(left) && Array.isArray(right)) {
    if (left.length !== right.length) return { path: `${path}.length`, left: left.length, right: right.length };
    for (let i = 0; i < left.length; i += 1) {
      const difference = firstDifference(left[i], right[i], `${path}[${i}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  const l = left as Record<string, unknown>;
  const r = right as Record<string, unknown>;
  for (const key of new Set([...Object.keys(l), ...Object.keys(r)])) {
    if (!(key in l) || !(key in r))
      return { path: `${path}.${key}`, left: key in l ? l[key] : '(absent)', right: key in r ? r[key] : '(absent)' };
    const difference = firstDifference(l[key], r[key], `${path}.${key}`);
    if (difference) return difference;
  }
  return undefined;
}

function show(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    if (Object.is(v, -0)) return '-0';
    return v;
  });
}

function outcome(decode: (bytes: Uint8Array) => unknown, bytes: Uint8Array): { value: unknown } | { error: string } {
  try {
    return { value: decode(bytes) };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/**
 * Decodes `bytes` with all three decoders and throws, naming the field and
 * each side's value, unless the hand-written one equals both libraries (and
 * `expected`, when the request is known).
 */
function agree(bytes: Uint8Array, expected: unknown, source: string): void {
  const hex = Buffer.from(bytes).toString('hex');
  const hand = outcome((b) => decodeExportTraceRequest(b), bytes);
  const others: [string, { value: unknown } | { error: string }][] = [
    ['@bufbuild/protobuf', outcome(decodeWithBufbuild, bytes)],
    ['protobufjs', outcome(decodeWithProtobufjs, bytes)],
  ];
  if (expected !== undefined) others.push(['the generated request', { value: expected }]);
  for (const [name, other] of others) {
    if ('error' in hand || 'error' in other) {
      if ('error' in hand && 'error' in other) continue;
      throw new Error(
        `${source}: hand-written ${'error' in hand ? `threw ${hand.error}` : 'decoded'}, ${name} ${'error' in other ? `threw ${other.error}` : 'decoded'}\nbytes: ${hex}`,
      );
    }
    const difference = firstDifference(hand.value, other.value);
    if (difference) {
      throw new Error(
        `${source}: hand-written and ${name} differ at ${difference.path}: hand-written ${show(difference.left)}, ${name} ${show(difference.right)}\nbytes: ${hex}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------
// The schema, as the hand-written decoder's OTLP/JSON shape names it.

type Kind =
  | 'string'
  | 'hex'
  | 'base64'
  | 'bool'
  | 'uint32'
  | 'int32'
  | 'fixed32'
  | 'fixed64'
  | 'int64'
  | 'double'
  | { message: MessageName }
  | { list: MessageName };

const FIELDS: Record<MessageName, Record<string, Kind>> = {
  ExportTraceServiceRequest: { resourceSpans: { list: 'ResourceSpans' } },
  ResourceSpans: { resource: { message: 'Resource' }, scopeSpans: { list: 'ScopeSpans' }, schemaUrl: 'string' },
  Resource: { attributes: { list: 'KeyValue' }, droppedAttributesCount: 'uint32' },
  ScopeSpans: { scope: { message: 'InstrumentationScope' }, spans: { list: 'Span' }, schemaUrl: 'string' },
  InstrumentationScope: {
    name: 'string',
    version: 'string',
    attributes: { list: 'KeyValue' },
    droppedAttributesCount: 'uint32',
  },
  Span: {
    traceId: 'hex',
    spanId: 'hex',
    traceState: 'string',
    parentSpanId: 'hex',
    flags: 'fixed32',
    name: 'string',
    kind: 'int32',
    startTimeUnixNano: 'fixed64',
    endTimeUnixNano: 'fixed64',
    attributes: { list: 'KeyValue' },
    droppedAttributesCount: 'uint32',
    events: { list: 'Event' },
    droppedEventsCount: 'uint32',
    links: { list: 'Link' },
    droppedLinksCount: 'uint32',
    status: { message: 'Status' },
  },
  Event: {
    timeUnixNano: 'fixed64',
    name: 'string',
    attributes: { list: 'KeyValue' },
    droppedAttributesCount: 'uint32',
  },
  Link: {
    traceId: 'hex',
    spanId: 'hex',
    traceState: 'string',
    attributes: { list: 'KeyValue' },
    droppedAttributesCount: 'uint32',
    flags: 'fixed32',
  },
  Status: { code: 'int32', message: 'string' },
  KeyValue: { key: 'string', value: { message: 'AnyValue' } },
  AnyValue: {
    stringValue: 'string',
    boolValue: 'bool',
    intValue: 'int64',
    doubleValue: 'double',
    arrayValue: { message: 'ArrayValue' },
    kvlistValue: { message: 'KeyValueList' },
    bytesValue: 'base64',
  },
  ArrayValue: { values: { list: 'AnyValue' } },
  KeyValueList: { values: { list: 'KeyValue' } },
};

/**
 * A generated message: the fields of its OTLP/JSON shape, plus, for encoding
 * only, unknown fields (`_u`) and a second occurrence to merge into it (`_m`).
 */
interface Model {
  [field: string]: unknown;
  _u?: UnknownField[];
  _m?: Model;
}

/** An unknown field: its number, wire type, and the bytes after its tag. */
type UnknownField = BufbuildUnknownField;

/** The OTLP/JSON shape a model must decode to: itself without the encoding-only parts. */
function expectedOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expectedOf);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (key !== '_u' && key !== '_m') out[key] = expectedOf(v);
  return out;
}

// ---------------------------------------------------------------------------
// Wire bytes for unknown fields.

function varint(value: bigint | number): number[] {
  let v = BigInt(value);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

const tagBytes = (no: number, wireType: number) => varint((BigInt(no) << 3n) | BigInt(wireType));

function rawField(field: UnknownField): Uint8Array {
  return Uint8Array.from([...tagBytes(field.no, field.wireType), ...field.data]);
}

// ---------------------------------------------------------------------------
// Building each library's message from a model.

function protobufjsValue(kind: Kind, value: unknown): unknown {
  if (typeof kind === 'object') {
    if ('list' in kind) return (value as Model[]).map((m) => protobufjsObject(kind.list, m));
    return protobufjsObject(kind.message, value as Model);
  }
  switch (kind) {
    case 'hex':
      return Buffer.from(value as string, 'hex');
    case 'base64':
      return Buffer.from(value as string, 'base64');
    case 'fixed64':
      return ProtobufjsLong.fromString(value as string, true);
    case 'int64':
      return ProtobufjsLong.fromString(value as string, false);
    default:
      return value;
  }
}

/** A plain object for protobufjs's encoder; `$unknowns` are raw bytes written after the known fields. */
function protobufjsObject(type: MessageName, model: Model): object {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(FIELDS[type])) {
    if (field in model) out[field] = protobufjsValue(kind, model[field]);
  }
  const raw = (model._u ?? []).map(rawField);
  if (model._m !== undefined) raw.push(encodeWithProtobufjs(type, protobufjsObject(type, model._m)));
  if (raw.length > 0) out.$unknowns = raw;
  return out;
}

function bufbuildValue(kind: Kind, value: unknown): unknown {
  if (typeof kind === 'object') {
    if ('list' in kind) return (value as Model[]).map((m) => bufbuildObject(kind.list, m));
    return bufbuildObject(kind.message, value as Model);
  }
  switch (kind) {
    case 'hex':
      return Uint8Array.from(Buffer.from(value as string, 'hex'));
    case 'base64':
      return Uint8Array.from(Buffer.from(value as string, 'base64'));
    case 'fixed64':
    case 'int64':
      return BigInt(value as string);
    default:
      return value;
  }
}

/** A @bufbuild/protobuf message (without `_m`, which its encoder cannot express). */
function bufbuildObject(type: MessageName, model: Model): BufbuildMessage {
  const init: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(FIELDS[type])) {
    if (!(field in model)) continue;
    const value = bufbuildValue(kind, model[field]);
    if (type === 'AnyValue') init.value = { case: field, value };
    else init[field] = value;
  }
  return bufbuildMessage(type, init, model._u);
}

// ---------------------------------------------------------------------------
// Generated requests.

const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;

const text = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).filter(wellFormed) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '\uFEFFbom first',
      'héllo ✓ 😀 中文',
      'a\u0000b',
      '\uFFFD',
      '\u{10FFFF}',
      'gen_ai.request.model',
      'x'.repeat(200),
    ),
  },
);

const INT64_EDGES = [
  0n,
  1n,
  -1n,
  2n ** 31n - 1n,
  -(2n ** 31n),
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n),
  -(2n ** 53n) - 1n,
  2n ** 63n - 1n,
  -(2n ** 63n),
];
const int64 = fc
  .oneof(
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.bigInt({ min: -(2n ** 36n), max: 2n ** 36n }),
    fc.constantFrom(...INT64_EDGES),
  )
  .map(String);

const UINT64_EDGES = [
  0n,
  1n,
  2n ** 32n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 63n,
  2n ** 64n - 1n,
  1_700_000_000_123_456_789n,
];
const fixed64 = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.constantFrom(...UINT64_EDGES)).map(String);

const uint32 = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 0, max: 300 }),
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.constant(0xffffffff),
);
/** An enum: the defined values, or any int32 (negative ones are 10 bytes on the wire). */
const enumValue = fc.oneof(
  fc.integer({ min: 0, max: 5 }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.constant(-1),
);
const double = fc.oneof(
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0, 5e-324, Number.MAX_VALUE, 2 ** 53 + 2, 0.1),
);

const bytesOf = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b).toString('hex'));
/** Trace and span ids: the right length mostly, any length (empty too) sometimes. */
const traceId = fc.oneof({ weight: 4, arbitrary: bytesOf(16, 16) }, { weight: 1, arbitrary: bytesOf(0, 20) });
const spanId = fc.oneof({ weight: 4, arbitrary: bytesOf(8, 8) }, { weight: 1, arbitrary: bytesOf(0, 20) });
const base64 = fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('base64'));

/** An unknown field of any wire type, groups (with a nested group) included. */
const unknownField = (minNo: number): fc.Arbitrary<UnknownField> =>
  fc
    .record({
      no: fc.oneof(
        fc.integer({ min: minNo, max: 40 }),
        fc.integer({ min: minNo, max: 2 ** 29 - 1 }),
        fc.constant(1000),
      ),
      wireType: fc.constantFrom(0, 1, 2, 3, 5),
      number: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      payload: fc.uint8Array({ maxLength: 8 }),
    })
    .map(({ no, wireType, number, payload }) => {
      const fixed = (n: number) => Uint8Array.from({ length: n }, (_, i) => payload[i] ?? i);
      switch (wireType) {
        case 0:
          return { no, wireType, data: Uint8Array.from(varint(number)) };
        case 1:
          return { no, wireType, data: fixed(8) };
        case 5:
          return { no, wireType, data: fixed(4) };
        case 2:
          return { no, wireType, data: Uint8Array.from([...varint(payload.length), ...payload]) };
        default:
          // A group: a varint field, an empty nested group (field 2), then the end tag.
          return {
            no,
            wireType,
            data: Uint8Array.from([
              ...tagBytes(1, 0),
              ...varint(number),
              ...tagBytes(2, 3),
              ...tagBytes(2, 4),
              ...tagBytes(no, 4),
            ]),
          };
      }
    });

/** Field numbers above any a message of OTLP traces defines (Span's last is 16). */
const unknownFields = fc.array(unknownField(17), { minLength: 1, maxLength: 3 });

interface Arbitraries {
  anyValue: fc.Arbitrary<Model>;
  keyValue: fc.Arbitrary<Model>;
  resource: fc.Arbitrary<Model>;
  scope: fc.Arbitrary<Model>;
  status: fc.Arbitrary<Model>;
  event: fc.Arbitrary<Model>;
  link: fc.Arbitrary<Model>;
  span: fc.Arbitrary<Model>;
  scopeSpans: fc.Arbitrary<Model>;
  resourceSpans: fc.Arbitrary<Model>;
  request: fc.Arbitrary<Model>;
}

/**
 * Arbitraries for each message. With `noise`, a message sometimes carries
 * unknown fields, and with `noise.merges` (the plain arbitraries) also a
 * second occurrence to merge into it.
 */
function arbitraries(noise?: { merges?: Arbitraries }): Arbitraries {
  const merges = noise?.merges;
  const noisy = (arb: fc.Arbitrary<Model>, second: fc.Arbitrary<Model> | undefined): fc.Arbitrary<Model> =>
    noise === undefined
      ? arb
      : fc
          .tuple(
            arb,
            fc.option(unknownFields, { freq: 4, nil: undefined }),
            second === undefined ? fc.constant(undefined) : fc.option(second, { freq: 4, nil: undefined }),
          )
          .map(([model, u, m]) => ({
            ...model,
            ...(u === undefined ? {} : { _u: u }),
            ...(m === undefined ? {} : { _m: m }),
          }));

  const { anyValue } = fc.letrec<{ anyValue: Model }>((tie) => ({
    anyValue: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      fc.constant({}),
      text.map((stringValue) => ({ stringValue })),
      fc.boolean().map((boolValue) => ({ boolValue })),
      int64.map((intValue) => ({ intValue })),
      double.map((doubleValue) => ({ doubleValue })),
      base64.map((bytesValue) => ({ bytesValue })),
      fc.array(tie('anyValue'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
      fc
        .array(fc.record({ key: text, value: tie('anyValue') }), { maxLength: 3 })
        .map((values) => ({ kvlistValue: { values } })),
    ),
  }));
  const value = noisy(anyValue, merges?.anyValue);
  const keyValue = noisy(fc.record({ key: text, value }), merges?.keyValue);
  const attributes = fc.array(keyValue, { maxLength: 4 });
  const resource = noisy(fc.record({ attributes, droppedAttributesCount: uint32 }), merges?.resource);
  const scope = noisy(
    fc.record({ name: text, version: text, attributes, droppedAttributesCount: uint32 }),
    merges?.scope,
  );
  const status = noisy(fc.record({ code: enumValue, message: text }), merges?.status);
  const event = noisy(
    fc.record({ timeUnixNano: fixed64, name: text, attributes, droppedAttributesCount: uint32 }),
    merges?.event,
  );
  const link = noisy(
    fc.record({ traceId, spanId, traceState: text, attributes, droppedAttributesCount: uint32, flags: uint32 }),
    merges?.link,
  );
  const span = noisy(
    fc.record({
      traceId,
      spanId,
      traceState: text,
      parentSpanId: fc.oneof(fc.constant(''), spanId),
      flags: uint32,
      name: text,
      kind: enumValue,
      startTimeUnixNano: fixed64,
      endTimeUnixNano: fixed64,
      attributes,
      droppedAttributesCount: uint32,
      events: fc.array(event, { maxLength: 2 }),
      droppedEventsCount: uint32,
      links: fc.array(link, { maxLength: 2 }),
      droppedLinksCount: uint32,
      status,
    }),
    merges?.span,
  );
  const scopeSpans = noisy(
    fc.record({ scope, spans: fc.array(span, { maxLength: 3 }), schemaUrl: text }),
    merges?.scopeSpans,
  );
  const resourceSpans = noisy(
    fc.record({ resource, scopeSpans: fc.array(scopeSpans, { maxLength: 2 }), schemaUrl: text }),
    merges?.resourceSpans,
  );
  const request = fc.record({ resourceSpans: fc.array(resourceSpans, { maxLength: 2 }) });
  return { anyValue: value, keyValue, resource, scope, status, event, link, span, scopeSpans, resourceSpans, request };
}

const plain = arbitraries();
const withUnknowns = arbitraries({});
const withMerges = arbitraries({ merges: plain });

describe('the hand-written OTLP/protobuf decoder agrees with protobufjs and @bufbuild/protobuf', () => {
  it(
    `on requests encoded by either library, unknown fields included (${RUNS} cases)`,
    { timeout: TIMEOUT },
    async () => {
      await fc.assert(
        fc.asyncProperty(withUnknowns.request, async (model) => {
          await breathe();
          const expected = expectedOf(model);
          agree(
            encodeWithProtobufjs('ExportTraceServiceRequest', protobufjsObject('ExportTraceServiceRequest', model)),
            expected,
            'encoded by protobufjs',
          );
          agree(
            encodeWithBufbuild(bufbuildObject('ExportTraceServiceRequest', model)),
            expected,
            'encoded by @bufbuild/protobuf',
          );
        }),
        { numRuns: RUNS },
      );
    },
  );

  it(`on messages that occur twice and merge (${RUNS} cases)`, { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(withMerges.request, async (model) => {
        await breathe();
        agree(
          encodeWithProtobufjs('ExportTraceServiceRequest', protobufjsObject('ExportTraceServiceRequest', model)),
          undefined,
          'merged',
        );
      }),
      { numRuns: RUNS },
    );
  });

  it(`on what the SDK's ProtobufTraceSerializer writes (${RUNS} cases)`, { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(readableSpan, { minLength: 1, maxLength: 4 }), async (spans) => {
        await breathe();
        const bytes = ProtobufTraceSerializer.serializeRequest(spans);
        expect(bytes).toBeDefined();
        agree(bytes!, undefined, 'ProtobufTraceSerializer');
      }),
      { numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------
// ReadableSpans for the SDK's serializer: what it can express (its attribute
// conversion also takes Uint8Arrays and nested objects, so bytes and kvlist
// values are reachable too).

const hexOf = (length: number) =>
  fc.uint8Array({ minLength: length, maxLength: length }).map((b) => Buffer.from(b).toString('hex'));

type SerializedValue =
  string | number | boolean | Uint8Array | SerializedValue[] | { [key: string]: SerializedValue } | null | undefined;
const { serializedValue } = fc.letrec<{ serializedValue: SerializedValue }>((tie) => ({
  serializedValue: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    text,
    double,
    fc.integer(),
    fc.constantFrom(2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 60, -(2 ** 63), 4294967295),
    fc.boolean(),
    fc.uint8Array({ maxLength: 8 }),
    fc.constant(null),
    fc.array(tie('serializedValue'), { maxLength: 3 }),
    fc.dictionary(text, tie('serializedValue'), { maxKeys: 3 }),
  ),
}));
const sdkAttributes = fc.dictionary(text, serializedValue, { maxKeys: 4 }).map((a) => a as Attributes);
const hrTime: fc.Arbitrary<HrTime> = fc.tuple(
  fc.integer({ min: 0, max: 2 ** 33 }),
  fc.integer({ min: 0, max: 999_999_999 }),
);
const traceState = fc.option(
  text.map((s) => ({ serialize: () => s })),
  { nil: undefined },
);
const spanContext: fc.Arbitrary<SpanContext> = fc.record({
  traceId: hexOf(16),
  spanId: hexOf(8),
  traceFlags: fc.integer({ min: 0, max: 255 }),
  isRemote: fc.option(fc.boolean(), { nil: undefined }),
  traceState,
}) as fc.Arbitrary<SpanContext>;
const sdkResource = fc
  .tuple(sdkAttributes, fc.option(text, { nil: undefined }))
  .map(([attributes, schemaUrl]) =>
    resourceFromAttributes(attributes, schemaUrl === undefined ? undefined : { schemaUrl }),
  );
const sdkScope = fc.record({
  name: text,
  version: fc.option(text, { nil: undefined }),
  schemaUrl: fc.option(text, { nil: undefined }),
  attributes: fc.option(sdkAttributes, { nil: undefined }),
});

const readableSpan: fc.Arbitrary<ReadableSpan> = fc
  .record({
    name: text,
    kind: fc.integer({ min: 0, max: 4 }),
    context: spanContext,
    parent: fc.option(spanContext, { nil: undefined }),
    startTime: hrTime,
    endTime: hrTime,
    status: fc.record({ code: fc.integer({ min: 0, max: 2 }), message: fc.option(text, { nil: undefined }) }),
    attributes: sdkAttributes,
    links: fc.array(
      fc.record({
        context: spanContext,
        attributes: fc.option(sdkAttributes, { nil: undefined }),
        droppedAttributesCount: fc.option(uint32, { nil: undefined }),
      }),
      { maxLength: 2 },
    ),
    events: fc.array(
      fc.record({
        name: text,
        time: hrTime,
        attributes: fc.option(sdkAttributes, { nil: undefined }),
        droppedAttributesCount: fc.option(uint32, { nil: undefined }),
      }),
      { maxLength: 2 },
    ),
    resource: sdkResource,
    scope: sdkScope,
    droppedAttributesCount: uint32,
    droppedEventsCount: uint32,
    droppedLinksCount: uint32,
  })
  .map((s): ReadableSpan => ({
    name: s.name,
    kind: s.kind as SpanKind,
    spanContext: () => s.context,
    parentSpanContext: s.parent,
    startTime: s.startTime,
    endTime: s.endTime,
    status: s.status,
    attributes: s.attributes,
    links: s.links as Link[],
    events: s.events as TimedEvent[],
    duration: [0, 0],
    ended: true,
    resource: s.resource,
    instrumentationScope: s.scope as ReadableSpan['instrumentationScope'],
    droppedAttributesCount: s.droppedAttributesCount,
    droppedEventsCount: s.droppedEventsCount,
    droppedLinksCount: s.droppedLinksCount,
  }));

// ---------------------------------------------------------------------------
// Where they differ: input none of the properties above generates, where the
// hand-written decoder is deliberately more lenient or stricter than the
// libraries. Pinned here so a change on either side is seen.

const field = (no: number, wireType: number, payload: number[]) => [...tagBytes(no, wireType), ...payload];
const delimited = (no: number, payload: number[]) => field(no, 2, [...varint(payload.length), ...payload]);
/** A request of one span whose body is `span`. */
const inSpan = (span: number[]) => Uint8Array.from(delimited(1, delimited(2, delimited(2, span))));
/** A request of one span with one attribute `k` whose AnyValue body is `value`. */
const inAttribute = (value: number[]) => inSpan(delimited(9, [...delimited(1, [0x6b]), ...delimited(2, value)]));

function firstSpan(request: unknown): { name: string; attributes: unknown[] } {
  return (request as { resourceSpans: { scopeSpans: { spans: { name: string; attributes: unknown[] }[] }[] }[] })
    .resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
}

let nested = delimited(1, [0x61]);
for (let depth = 0; depth < 40; depth += 1) nested = delimited(5, delimited(1, nested));

const DIFFERENCES: {
  what: string;
  bytes: Uint8Array;
  handWritten: 'throw' | ((request: unknown) => void);
  libraries: 'throw' | 'decode';
}[] = [
  {
    what: 'invalid UTF-8 in a string: U+FFFD by the hand-written decoder (as the Collector keeps it), an error by both libraries',
    bytes: inSpan(delimited(5, [0x61, 0xff, 0x62])),
    handWritten: (request) => expect(firstSpan(request).name).toBe('a\uFFFDb'),
    libraries: 'throw',
  },
  {
    what: 'AnyValue nested 40 deep: past the hand-written cap of 32, within the libraries’ 100',
    bytes: inAttribute(nested),
    handWritten: 'throw',
    libraries: 'decode',
  },
  {
    what: 'an unknown varint of 11 bytes: malformed for the hand-written decoder, skipped by the libraries',
    bytes: inSpan(field(20, 0, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])),
    handWritten: 'throw',
    libraries: 'decode',
  },
];

describe('where the hand-written decoder and the libraries differ, by design', () => {
  it.each(DIFFERENCES)('$what', ({ bytes, handWritten, libraries }) => {
    const hand = outcome((b) => decodeExportTraceRequest(b), bytes);
    if (handWritten === 'throw') expect('error' in hand && hand.error).toMatch(/^ProtobufDecodeError: /);
    else if ('error' in hand) expect.unreachable(hand.error);
    else handWritten(hand.value);
    for (const decode of [decodeWithBufbuild, decodeWithProtobufjs]) {
      expect('error' in outcome(decode, bytes) ? 'throw' : 'decode').toBe(libraries);
    }
  });

  it('AnyValue.string_value_strindex (field 8, profiles only) after a string: the hand-written decoder skips it and keeps the string, the libraries take it as the oneof’s last member', () => {
    const bytes = inAttribute([...delimited(1, [0x61]), ...field(8, 0, [5])]);
    expect(firstSpan(decodeExportTraceRequest(bytes)).attributes).toEqual([{ key: 'k', value: { stringValue: 'a' } }]);
    for (const decode of [decodeWithBufbuild, decodeWithProtobufjs])
      expect(firstSpan(decode(bytes)).attributes).toEqual([{ key: 'k', value: {} }]);
  });

  it('a known field with the wrong wire type: skipped by the hand-written decoder and protobufjs, an error in @bufbuild/protobuf', () => {
    const bytes = inSpan([...field(5, 0, [5]), ...delimited(6, [1, 2])]);
    expect(firstSpan(decodeExportTraceRequest(bytes)).name).toBe('');
    expect(firstDifference(decodeExportTraceRequest(bytes), decodeWithProtobufjs(bytes))).toBeUndefined();
    expect(() => decodeWithBufbuild(bytes)).toThrow();
  });
});
