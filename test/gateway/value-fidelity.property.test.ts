/**
 * Repair, never drop (docs/gateway.md, "Values keep their type"): OTLP
 * requests whose attributes draw from every shape an `AnyValue` can take —
 * strings, booleans, int64 at its bounds, doubles whole, fractional,
 * negative zero, NaN and infinite, bytes, arrays with empty items and
 * nested arrays, kvlists empty and nested, empty values — sent to a real
 * gateway over HTTP in both encodings and forwarded to a sink. Every
 * acknowledged span is delivered, and every value arrives equal to what was
 * sent, with its type. The sent protobuf is written by protobufjs and what
 * arrives is read by protobufjs (test/support/otlp-decoders), not by our own codec.
 *
 * 5,000 cases per encoding in the default run; `npm run fuzz:gateway` runs a
 * million (FIDELITY_RUNS).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtobufjsLong, decodeWithProtobufjs, encodeWithProtobufjs } from '../support/otlp-decoders/adapters.mjs';
import type { Gateway } from '../../src/gateway/gateway.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { startUpstream } from '../support/upstream.js';

const RUNS = Number(process.env.FIDELITY_RUNS ?? 5_000);
// The time allowed grows with the cases asked for (about 2 ms a case on a 2-core machine, 10 allowed): a
// million-case run (`npm run fuzz:gateway`) must not be cut by the default run's timeout.

/** A value as generated: its kind and content, written to either encoding by the test itself. */
type Value =
  | { readonly k: 'string'; readonly v: string }
  | { readonly k: 'bool'; readonly v: boolean }
  | { readonly k: 'int'; readonly v: bigint }
  | { readonly k: 'double'; readonly v: number }
  | { readonly k: 'bytes'; readonly v: Uint8Array }
  | { readonly k: 'array'; readonly v: readonly Value[] }
  | { readonly k: 'kvlist'; readonly v: readonly (readonly [string, Value])[] }
  | { readonly k: 'empty' };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// Short words: nothing here looks like a secret, so sanitization leaves every string as it came.
const WORDS = ['', 'alpha', 'beta gamma', 'ünï cødé', '日本語', 'x', 'chat', 'tool-call', '42', 'true'];
const KEYS = ['a', 'b', 'c', 'nested.key', 'k-1', 'ключ'];

const value: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...WORDS).map((v) => ({ k: 'string', v }) as const),
    fc.boolean().map((v) => ({ k: 'bool', v }) as const),
    fc
      .oneof(
        fc.constantFrom(0n, 1n, -1n, INT64_MIN, INT64_MAX, 2n ** 53n + 1n, -(2n ** 53n) - 1n),
        fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
      )
      .map((v) => ({ k: 'int', v }) as const),
    fc
      .oneof(
        fc.constantFrom(
          0,
          -0,
          3,
          -7,
          1.5,
          Number.NaN,
          Number.POSITIVE_INFINITY,
          Number.NEGATIVE_INFINITY,
          Number.MAX_VALUE,
          Number.MIN_VALUE,
          2 ** 53,
          2 ** 64,
        ),
        fc.double(),
      )
      .map((v) => ({ k: 'double', v }) as const),
    fc.uint8Array({ maxLength: 8 }).map((v) => ({ k: 'bytes', v }) as const),
    fc.array(tie('value'), { maxLength: 4 }).map((v) => ({ k: 'array', v }) as const),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie('value')), { maxLength: 3, selector: ([key]) => key })
      .map((v) => ({ k: 'kvlist', v }) as const),
    fc.constant({ k: 'empty' } as const),
  ),
})).value;

/** Attributes of one place (span, event, resource): unique keys under `app.`, so no key rule applies to them. */
const attributes = fc.uniqueArray(fc.tuple(fc.constantFrom('app.v0', 'app.v1', 'app.v2', 'app.v3', 'app.v4'), value), {
  minLength: 1,
  maxLength: 4,
  selector: ([key]) => key,
});
const request = fc.record({
  resource: attributes,
  spans: fc.array(fc.record({ span: attributes, event: attributes }), { minLength: 1, maxLength: 3 }),
});

/** A double in OTLP/JSON: a number where JSON has one, else text (`"NaN"`, `"-0"`), which protobuf's JSON mapping accepts. */
function jsonDouble(v: number): number | string {
  if (Object.is(v, -0)) return '-0';
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  return v;
}

function toJson(value: Value): object {
  switch (value.k) {
    case 'string':
      return { stringValue: value.v };
    case 'bool':
      return { boolValue: value.v };
    case 'int':
      return { intValue: value.v.toString() };
    case 'double':
      return { doubleValue: jsonDouble(value.v) };
    case 'bytes':
      return { bytesValue: Buffer.from(value.v).toString('base64') };
    case 'array':
      return { arrayValue: { values: value.v.map(toJson) } };
    case 'kvlist':
      return { kvlistValue: { values: value.v.map(([key, v]) => ({ key, value: toJson(v) })) } };
    case 'empty':
      return {};
  }
}

function toProtobufjs(value: Value): object {
  switch (value.k) {
    case 'int':
      return { intValue: ProtobufjsLong.fromString(value.v.toString()) };
    case 'double':
      return { doubleValue: value.v };
    case 'bytes':
      return { bytesValue: value.v };
    case 'array':
      return { arrayValue: { values: value.v.map(toProtobufjs) } };
    case 'kvlist':
      return { kvlistValue: { values: value.v.map(([key, v]) => ({ key, value: toProtobufjs(v) })) } };
    default:
      return toJson(value);
  }
}

/** What arrived, in the same terms as what was generated (from OTLP/JSON, or protobufjs's decode in that shape). */
function fromJson(raw: Record<string, unknown>): Value {
  if ('stringValue' in raw) return { k: 'string', v: raw.stringValue as string };
  if ('boolValue' in raw) return { k: 'bool', v: raw.boolValue as boolean };
  if ('intValue' in raw) return { k: 'int', v: BigInt(String(raw.intValue)) };
  if ('doubleValue' in raw) {
    const d = raw.doubleValue;
    return {
      k: 'double',
      v:
        typeof d === 'number'
          ? d
          : d === 'NaN'
            ? Number.NaN
            : d === 'Infinity'
              ? Number.POSITIVE_INFINITY
              : d === '-Infinity'
                ? Number.NEGATIVE_INFINITY
                : Number(d),
    };
  }
  if ('bytesValue' in raw) return { k: 'bytes', v: new Uint8Array(Buffer.from(raw.bytesValue as string, 'base64')) };
  if ('arrayValue' in raw)
    return {
      k: 'array',
      v: (((raw.arrayValue as { values?: unknown[] }).values ?? []) as Record<string, unknown>[]).map(fromJson),
    };
  if ('kvlistValue' in raw) {
    const entries = ((raw.kvlistValue as { values?: unknown[] }).values ?? []) as {
      key: string;
      value?: Record<string, unknown>;
    }[];
    return { k: 'kvlist', v: entries.map((e) => [e.key, fromJson(e.value ?? {})] as const) };
  }
  return { k: 'empty' };
}

/** Equal with their types: doubles by `Object.is` (NaN equals NaN, -0 differs from 0), bytes by content. */
function same(a: Value, b: Value): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'double':
      return Object.is(a.v, (b as typeof a).v);
    case 'bytes':
      return Buffer.from(a.v).equals(Buffer.from((b as typeof a).v));
    case 'array': {
      const other = (b as typeof a).v;
      return a.v.length === other.length && a.v.every((item, i) => same(item, other[i]!));
    }
    case 'kvlist': {
      const other = new Map((b as typeof a).v);
      return a.v.length === other.size && a.v.every(([key, item]) => other.has(key) && same(item, other.get(key)!));
    }
    case 'empty':
      return true;
    default:
      return a.v === (b as typeof a).v;
  }
}

type Attributes = readonly (readonly [string, Value])[];
type Case = { resource: Attributes; spans: { span: Attributes; event: Attributes }[] };

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
let serial = 0;

/** The request of `sample` in OTLP/JSON and as protobufjs writes it; span `i` is in its own trace. */
function build(sample: Case): { json: string; protobuf: Uint8Array; traces: string[] } {
  const now = BigInt(Date.now()) * 1_000_000n;
  const traces = sample.spans.map(() => hex((serial += 1), 32));
  const kv = (list: Attributes, write: (v: Value) => object) => list.map(([key, v]) => ({ key, value: write(v) }));
  const json = {
    resourceSpans: [
      {
        resource: { attributes: kv(sample.resource, toJson) },
        scopeSpans: [
          {
            scope: { name: 'fidelity' },
            spans: sample.spans.map((s, i) => ({
              traceId: traces[i],
              spanId: hex(i + 1, 16),
              name: 'work',
              kind: 1,
              startTimeUnixNano: String(now - 1000n),
              endTimeUnixNano: String(now),
              attributes: kv(s.span, toJson),
              events: [{ name: 'e', timeUnixNano: String(now - 500n), attributes: kv(s.event, toJson) }],
              status: {},
            })),
          },
        ],
      },
    ],
  };
  const protobuf = encodeWithProtobufjs('ExportTraceServiceRequest', {
    resourceSpans: [
      {
        resource: { attributes: kv(sample.resource, toProtobufjs) },
        scopeSpans: [
          {
            scope: { name: 'fidelity' },
            spans: sample.spans.map((s, i) => ({
              traceId: Buffer.from(traces[i]!, 'hex'),
              spanId: Buffer.from(hex(i + 1, 16), 'hex'),
              name: 'work',
              kind: 1,
              startTimeUnixNano: ProtobufjsLong.fromString(String(now - 1000n), true),
              endTimeUnixNano: ProtobufjsLong.fromString(String(now), true),
              attributes: kv(s.span, toProtobufjs),
              events: [
                {
                  name: 'e',
                  timeUnixNano: ProtobufjsLong.fromString(String(now - 500n), true),
                  attributes: kv(s.event, toProtobufjs),
                },
              ],
              status: {},
            })),
          },
        ],
      },
    ],
  });
  return { json: JSON.stringify(json), protobuf, traces };
}

interface ArrivedSpan {
  traceId: string;
  resource: Map<string, Value>;
  attributes: Map<string, Value>;
  event: Map<string, Value>;
}

function arrivedSpans(body: Buffer, json: boolean): ArrivedSpan[] {
  type Kv = { key: string; value?: Record<string, unknown> };
  const request = (json ? JSON.parse(body.toString('utf8')) : decodeWithProtobufjs(body)) as {
    resourceSpans?: {
      resource?: { attributes?: Kv[] };
      scopeSpans?: { spans?: { traceId: string; attributes?: Kv[]; events?: { attributes?: Kv[] }[] }[] }[];
    }[];
  };
  const map = (list: Kv[] | undefined) => new Map((list ?? []).map((e) => [e.key, fromJson(e.value ?? {})] as const));
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span) => ({
        traceId: span.traceId,
        resource: map(rs.resource?.attributes),
        attributes: map(span.attributes),
        event: map(span.events?.[0]?.attributes),
      })),
    ),
  );
}

function expectSame(sent: Attributes, arrived: Map<string, Value>, where: string): void {
  for (const [key, v] of sent) {
    const got = arrived.get(key);
    if (got === undefined || !same(v, got))
      throw new Error(
        `${where} ${key}: sent ${JSON.stringify(toJson(v))}, arrived ${got === undefined ? 'nothing' : JSON.stringify(toJson(got))}`,
      );
  }
}

describe.each([['json'], ['protobuf']] as const)(
  'every AnyValue shape through the gateway (%s in, both out)',
  (encoding) => {
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    let gateway: Gateway;
    beforeAll(async () => {
      upstream = await startUpstream();
      gateway = await createGateway({
        listen: { host: '127.0.0.1', port: 0 },
        hold: { decisionWaitMillis: 0, maxHoldMillis: 60_000, tickMillis: 1_000 },
        // Upstream in the other encoding: both encoders are exercised by both decoders.
        upstream: {
          endpoint: upstream.endpoint,
          encoding: encoding === 'json' ? 'protobuf' : 'json',
          initialBackoffMillis: 10,
          maxBackoffMillis: 50,
        },
      });
    });
    afterAll(async () => {
      await gateway.close();
      await upstream.close();
    });

    it(
      `delivers every acknowledged span with every value equal to what was sent, type included (${RUNS.toLocaleString('en')} cases)`,
      async () => {
        await fc.assert(
          fc.asyncProperty(request, async (sample) => {
            const { json, protobuf, traces } = build(sample);
            const before = upstream.bodies.length;
            const response = await fetch(`${gateway.url}/v1/traces`, {
              method: 'POST',
              headers: { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
              body: encoding === 'json' ? json : protobuf,
            });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`refused with ${response.status}`);
            await gateway.flush();
            const arrived = upstream.bodies.slice(before).flatMap((body) => arrivedSpans(body, encoding !== 'json'));
            const byTrace = new Map(arrived.map((span) => [span.traceId, span]));
            sample.spans.forEach((s, i) => {
              const span = byTrace.get(traces[i]!);
              if (span === undefined) throw new Error(`span of trace ${traces[i]} was acknowledged and not delivered`);
              expectSame(sample.resource, span.resource, 'resource');
              expectSame(s.span, span.attributes, 'span');
              expectSame(s.event, span.event, 'event');
            });
          }),
          { numRuns: RUNS, seed: Number(process.env.PROPERTY_SEED ?? 20261127) },
        );
        expect(gateway.metrics.spansDropped).toBe(0);
      },
      Math.max(600_000, RUNS * 10),
    );
  },
);
