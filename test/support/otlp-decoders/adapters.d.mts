// Types for adapters.mjs, for the fuzz test (test/otlp/protobuf-decoder-fuzz.test.ts).

export type MessageName =
  | 'ExportTraceServiceRequest'
  | 'ResourceSpans'
  | 'Resource'
  | 'ScopeSpans'
  | 'InstrumentationScope'
  | 'Span'
  | 'Event'
  | 'Link'
  | 'Status'
  | 'KeyValue'
  | 'AnyValue'
  | 'ArrayValue'
  | 'KeyValueList';

/** An unknown field as @bufbuild/protobuf keeps it: the bytes after the tag. */
export interface BufbuildUnknownField {
  no: number;
  wireType: number;
  data: Uint8Array;
}

/** An opaque @bufbuild/protobuf message. */
export interface BufbuildMessage {
  readonly $typeName: string;
}

export declare const ProtobufjsLong: { fromString(value: string, unsigned?: boolean): object };
export declare function encodeWithProtobufjs(type: MessageName, message: object): Uint8Array;
export declare function bufbuildMessage(
  type: MessageName,
  init: object,
  unknown?: BufbuildUnknownField[],
): BufbuildMessage;
export declare function encodeWithBufbuild(request: BufbuildMessage): Uint8Array;

/** protobufjs's decode alone: its own message objects. */
export declare function decodeProtobufjsRaw(bytes: Uint8Array): unknown;
/** protobufjs's decode, then the hand-written decoder's OTLP/JSON shape. */
export declare function decodeWithProtobufjs(bytes: Uint8Array): unknown;
/** @bufbuild/protobuf's fromBinary alone (unknown fields dropped). */
export declare function decodeBufbuildRaw(bytes: Uint8Array): unknown;
/** @bufbuild/protobuf's fromBinary, then the hand-written decoder's OTLP/JSON shape. */
export declare function decodeWithBufbuild(bytes: Uint8Array): unknown;
