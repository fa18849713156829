// The maintained protobuf decoders, each turned into the OTLP/JSON object
// shape that src/otlp/otlp-protobuf.ts `decodeExportTraceRequest` returns
// (every field present, ids as lowercase hex, 64-bit integers as decimal
// strings, bytes values as base64), so the three can be compared value for
// value and timed doing the same job. Used by bench/otlp-decode.mjs and
// test/otlp/protobuf-decoder-fuzz.test.ts.
//
// Fields the hand-written decoder does not read are left out here too:
// Resource.entity_refs, KeyValue.key_strindex and AnyValue.string_value_strindex
// (profiles only; an AnyValue holding it becomes `{}`).
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import protobufjs from 'protobufjs/minimal.js';
import { ExportTraceServiceRequestSchema } from './bufbuild/opentelemetry/proto/collector/trace/v1/trace_service_pb.js';
import {
  ResourceSpansSchema,
  ScopeSpansSchema,
  Span_EventSchema,
  Span_LinkSchema,
  SpanSchema,
  StatusSchema,
} from './bufbuild/opentelemetry/proto/trace/v1/trace_pb.js';
import {
  AnyValueSchema,
  ArrayValueSchema,
  InstrumentationScopeSchema,
  KeyValueListSchema,
  KeyValueSchema,
} from './bufbuild/opentelemetry/proto/common/v1/common_pb.js';
import { ResourceSchema } from './bufbuild/opentelemetry/proto/resource/v1/resource_pb.js';
import { opentelemetry } from './protobufjs/otlp-trace.js';

const { common, resource, trace, collector } = opentelemetry.proto;

/** protobufjs's generated message classes (static code, `pbjs -t static-module`), by message name. */
export const protobufjsTypes = {
  ExportTraceServiceRequest: collector.trace.v1.ExportTraceServiceRequest,
  ResourceSpans: trace.v1.ResourceSpans,
  Resource: resource.v1.Resource,
  ScopeSpans: trace.v1.ScopeSpans,
  InstrumentationScope: common.v1.InstrumentationScope,
  Span: trace.v1.Span,
  Event: trace.v1.Span.Event,
  Link: trace.v1.Span.Link,
  Status: trace.v1.Status,
  KeyValue: common.v1.KeyValue,
  AnyValue: common.v1.AnyValue,
  ArrayValue: common.v1.ArrayValue,
  KeyValueList: common.v1.KeyValueList,
};

/** The `long` class protobufjs encodes 64-bit fields from. */
export const ProtobufjsLong = protobufjs.util.Long;

/** @bufbuild/protobuf's generated schemas (protoc-gen-es), by the same names. */
export const bufbuildSchemas = {
  ExportTraceServiceRequest: ExportTraceServiceRequestSchema,
  ResourceSpans: ResourceSpansSchema,
  Resource: ResourceSchema,
  ScopeSpans: ScopeSpansSchema,
  InstrumentationScope: InstrumentationScopeSchema,
  Span: SpanSchema,
  Event: Span_EventSchema,
  Link: Span_LinkSchema,
  Status: StatusSchema,
  KeyValue: KeyValueSchema,
  AnyValue: AnyValueSchema,
  ArrayValue: ArrayValueSchema,
  KeyValueList: KeyValueListSchema,
};

/** protobufjs's encoding of a message given as a plain object (64-bit fields as Long, bytes as Uint8Array). */
export function encodeWithProtobufjs(type, message) {
  return protobufjsTypes[type].encode(message).finish();
}

/**
 * A @bufbuild/protobuf message of `type` built from `init` (nested messages
 * already built with this), carrying `unknown` fields `{ no, wireType, data }`
 * that its encoder writes after the known ones.
 */
export function bufbuildMessage(type, init, unknown) {
  const message = create(bufbuildSchemas[type], init);
  if (unknown !== undefined && unknown.length > 0) message.$unknown = unknown;
  return message;
}

/** @bufbuild/protobuf's encoding of an ExportTraceServiceRequest built with {@link bufbuildMessage}. */
export function encodeWithBufbuild(request) {
  return toBinary(ExportTraceServiceRequestSchema, request);
}

const ProtobufjsRequest = collector.trace.v1.ExportTraceServiceRequest;

function view(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const hex = (bytes) => (bytes.length === 0 ? '' : view(bytes).toString('hex'));
const base64 = (bytes) => view(bytes).toString('base64');

// ---------------------------------------------------------------------------
// protobufjs: 64-bit fields are Long (the generated code uses --force-long),
// bytes are Buffers, a unset message field is null, and the AnyValue oneof
// names its set member in `value`.

function pjAnyValue(v) {
  switch (v.value) {
    case 'stringValue':
      return { stringValue: v.stringValue };
    case 'boolValue':
      return { boolValue: v.boolValue };
    case 'intValue':
      return { intValue: v.intValue.toString() };
    case 'doubleValue':
      return { doubleValue: v.doubleValue };
    case 'arrayValue':
      return { arrayValue: { values: v.arrayValue.values.map(pjAnyValue) } };
    case 'kvlistValue':
      return { kvlistValue: { values: v.kvlistValue.values.map(pjKeyValue) } };
    case 'bytesValue':
      return { bytesValue: base64(v.bytesValue) };
    default:
      return {};
  }
}

function pjKeyValue(kv) {
  return { key: kv.key, value: kv.value ? pjAnyValue(kv.value) : {} };
}

const pjAttributes = (list) => list.map(pjKeyValue);

function pjSpan(s) {
  return {
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    traceState: s.traceState,
    parentSpanId: hex(s.parentSpanId),
    flags: s.flags,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: s.startTimeUnixNano.toString(),
    endTimeUnixNano: s.endTimeUnixNano.toString(),
    attributes: pjAttributes(s.attributes),
    droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.map((e) => ({
      timeUnixNano: e.timeUnixNano.toString(),
      name: e.name,
      attributes: pjAttributes(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount,
    })),
    droppedEventsCount: s.droppedEventsCount,
    links: s.links.map((l) => ({
      traceId: hex(l.traceId),
      spanId: hex(l.spanId),
      traceState: l.traceState,
      attributes: pjAttributes(l.attributes),
      droppedAttributesCount: l.droppedAttributesCount,
      flags: l.flags,
    })),
    droppedLinksCount: s.droppedLinksCount,
    status: s.status ? { code: s.status.code, message: s.status.message } : { code: 0, message: '' },
  };
}

/** A protobufjs-decoded ExportTraceServiceRequest in the hand-written decoder's shape. */
export function protobufjsToOtlpJson(request) {
  return {
    resourceSpans: request.resourceSpans.map((rs) => ({
      resource: rs.resource
        ? {
            attributes: pjAttributes(rs.resource.attributes),
            droppedAttributesCount: rs.resource.droppedAttributesCount,
          }
        : { attributes: [], droppedAttributesCount: 0 },
      scopeSpans: rs.scopeSpans.map((ss) => ({
        scope: ss.scope
          ? {
              name: ss.scope.name,
              version: ss.scope.version,
              attributes: pjAttributes(ss.scope.attributes),
              droppedAttributesCount: ss.scope.droppedAttributesCount,
            }
          : { name: '', version: '', attributes: [], droppedAttributesCount: 0 },
        spans: ss.spans.map(pjSpan),
        schemaUrl: ss.schemaUrl,
      })),
      schemaUrl: rs.schemaUrl,
    })),
  };
}

/** protobufjs's decode alone: its own message objects. */
export function decodeProtobufjsRaw(bytes) {
  return ProtobufjsRequest.decode(bytes);
}

/** protobufjs's decode, then the hand-written decoder's shape. */
export function decodeWithProtobufjs(bytes) {
  return protobufjsToOtlpJson(ProtobufjsRequest.decode(bytes));
}

// ---------------------------------------------------------------------------
// @bufbuild/protobuf: 64-bit fields are bigint, bytes are Uint8Arrays, a unset
// message field is undefined, and the AnyValue oneof is `{ case, value }`.

function bbAnyValue(v) {
  const { case: which, value } = v.value;
  switch (which) {
    case 'stringValue':
      return { stringValue: value };
    case 'boolValue':
      return { boolValue: value };
    case 'intValue':
      return { intValue: value.toString() };
    case 'doubleValue':
      return { doubleValue: value };
    case 'arrayValue':
      return { arrayValue: { values: value.values.map(bbAnyValue) } };
    case 'kvlistValue':
      return { kvlistValue: { values: value.values.map(bbKeyValue) } };
    case 'bytesValue':
      return { bytesValue: base64(value) };
    default:
      return {};
  }
}

function bbKeyValue(kv) {
  return { key: kv.key, value: kv.value ? bbAnyValue(kv.value) : {} };
}

const bbAttributes = (list) => list.map(bbKeyValue);

function bbSpan(s) {
  return {
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    traceState: s.traceState,
    parentSpanId: hex(s.parentSpanId),
    flags: s.flags,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: s.startTimeUnixNano.toString(),
    endTimeUnixNano: s.endTimeUnixNano.toString(),
    attributes: bbAttributes(s.attributes),
    droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.map((e) => ({
      timeUnixNano: e.timeUnixNano.toString(),
      name: e.name,
      attributes: bbAttributes(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount,
    })),
    droppedEventsCount: s.droppedEventsCount,
    links: s.links.map((l) => ({
      traceId: hex(l.traceId),
      spanId: hex(l.spanId),
      traceState: l.traceState,
      attributes: bbAttributes(l.attributes),
      droppedAttributesCount: l.droppedAttributesCount,
      flags: l.flags,
    })),
    droppedLinksCount: s.droppedLinksCount,
    status: s.status ? { code: s.status.code, message: s.status.message } : { code: 0, message: '' },
  };
}

/** A @bufbuild/protobuf-decoded ExportTraceServiceRequest in the hand-written decoder's shape. */
export function bufbuildToOtlpJson(request) {
  return {
    resourceSpans: request.resourceSpans.map((rs) => ({
      resource: rs.resource
        ? {
            attributes: bbAttributes(rs.resource.attributes),
            droppedAttributesCount: rs.resource.droppedAttributesCount,
          }
        : { attributes: [], droppedAttributesCount: 0 },
      scopeSpans: rs.scopeSpans.map((ss) => ({
        scope: ss.scope
          ? {
              name: ss.scope.name,
              version: ss.scope.version,
              attributes: bbAttributes(ss.scope.attributes),
              droppedAttributesCount: ss.scope.droppedAttributesCount,
            }
          : { name: '', version: '', attributes: [], droppedAttributesCount: 0 },
        spans: ss.spans.map(bbSpan),
        schemaUrl: ss.schemaUrl,
      })),
      schemaUrl: rs.schemaUrl,
    })),
  };
}

/** @bufbuild/protobuf's fromBinary alone (unknown fields dropped, as the others do). */
export function decodeBufbuildRaw(bytes) {
  return fromBinary(ExportTraceServiceRequestSchema, bytes, { readUnknownFields: false });
}

/** @bufbuild/protobuf's fromBinary, then the hand-written decoder's shape. */
export function decodeWithBufbuild(bytes) {
  return bufbuildToOtlpJson(decodeBufbuildRaw(bytes));
}
