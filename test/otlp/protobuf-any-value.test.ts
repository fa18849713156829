/**
 * decodeAnyValue and decodeKeyValue: every AnyValue member as OTLP/JSON
 * writes it, later members replacing earlier ones, repeated arrays and maps
 * merging, unknown fields skipped, items counted, and nesting capped at
 * MAX_ANY_VALUE_DEPTH.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ANY_VALUE_DEPTH, decodeAnyValue, decodeKeyValue } from '../../src/otlp/protobuf-any-value.js';
import { ProtobufDecodeError, ProtobufItemLimitError, Reader } from '../../src/otlp/protobuf-reader.js';
import { Writer } from '../../src/otlp/protobuf-writer.js';

const anyValue = (write: (w: Writer) => void, maxItems?: number) => {
  const w = new Writer();
  write(w);
  const r = new Reader(w.finish(), maxItems);
  return { r, value: () => decodeAnyValue(r, r.bytes.length, 0, undefined) };
};
const decode = (write: (w: Writer) => void) => anyValue(write).value();

describe('decodeAnyValue', () => {
  it.each([
    ['string', (w: Writer) => w.string(1, 'hi'), { stringValue: 'hi' }],
    ['bool', (w: Writer) => (w.tag(2, 0), w.varint(1)), { boolValue: true }],
    ['int', (w: Writer) => (w.tag(3, 0), w.varint64(-7n)), { intValue: '-7' }],
    ['double', (w: Writer) => w.double(4, 2.5), { doubleValue: 2.5 }],
    ['bytes', (w: Writer) => w.bytes(7, new Uint8Array([1, 2, 3])), { bytesValue: 'AQID' }],
    ['nothing', (_w: Writer) => undefined, {}],
  ])('reads a %s value', (_what, write, expected) => {
    expect(decode(write)).toEqual(expected);
  });

  it('reads arrays and key-value lists, nested', () => {
    const value = decode((w) => {
      w.message(5, () => {
        w.message(1, () => w.string(1, 'a'));
        w.message(1, () =>
          w.message(6, () =>
            w.message(1, () => {
              w.string(1, 'k');
              w.message(2, () => w.double(4, 1));
            }),
          ),
        );
      });
    });
    expect(value).toEqual({
      arrayValue: {
        values: [{ stringValue: 'a' }, { kvlistValue: { values: [{ key: 'k', value: { doubleValue: 1 } }] } }],
      },
    });
  });

  it('lets a later oneof member replace an earlier one', () => {
    expect(
      decode((w) => {
        w.string(1, 'first');
        w.double(4, 3);
      }),
    ).toEqual({ doubleValue: 3 });
  });

  it('merges a repeated array or map into the first', () => {
    expect(
      decode((w) => {
        w.message(5, () => w.message(1, () => w.string(1, 'a')));
        w.message(5, () => w.message(1, () => w.string(1, 'b')));
      }),
    ).toEqual({ arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } });
    expect(
      decode((w) => {
        w.message(6, () => w.message(1, () => w.string(1, 'x')));
        w.message(6, () => w.message(1, () => w.string(1, 'y')));
      }),
    ).toEqual({
      kvlistValue: {
        values: [
          { key: 'x', value: {} },
          { key: 'y', value: {} },
        ],
      },
    });
  });

  it('skips unknown fields of the value, of an array and of a map', () => {
    expect(
      decode((w) => {
        w.fixed32(9, 1);
        w.message(5, () => {
          w.tag(2, 0);
          w.varint(1);
          w.message(1, () => w.string(1, 'kept'));
        });
      }),
    ).toEqual({ arrayValue: { values: [{ stringValue: 'kept' }] } });
    expect(
      decode((w) =>
        w.message(6, () => {
          w.string(3, 'junk');
          w.message(1, () => w.string(1, 'k'));
        }),
      ),
    ).toEqual({ kvlistValue: { values: [{ key: 'k', value: {} }] } });
  });

  it('counts each value against the item budget', () => {
    const { r, value } = anyValue((w) => w.message(5, () => w.message(1, () => w.string(1, 'a'))));
    expect(value()).toEqual({ arrayValue: { values: [{ stringValue: 'a' }] } });
    expect(r.items).toBe(2);
    expect(() => anyValue((w) => w.message(5, () => w.message(1, () => undefined)), 1).value()).toThrow(
      ProtobufItemLimitError,
    );
  });

  it(`decodes ${MAX_ANY_VALUE_DEPTH} levels of nesting and fails on one more`, () => {
    const nested = (levels: number) => (w: Writer) => {
      const open = (n: number): void => {
        if (n === 0) w.string(1, 'leaf');
        else w.message(5, () => w.message(1, () => open(n - 1)));
      };
      open(levels);
    };
    let value = decode(nested(MAX_ANY_VALUE_DEPTH));
    for (let n = 0; n < MAX_ANY_VALUE_DEPTH; n += 1) value = value.arrayValue!.values[0]!;
    expect(value).toEqual({ stringValue: 'leaf' });
    // The value one level too deep is the leaf string field itself: its 6 bytes end the input.
    const { r, value: tooDeep } = anyValue(nested(MAX_ANY_VALUE_DEPTH + 1));
    const at = r.bytes.length - 6;
    expect(tooDeep).toThrow(
      new ProtobufDecodeError(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH} at byte ${at}`, at),
    );
  });
});

describe('decodeKeyValue', () => {
  const keyValue = (write: (w: Writer) => void) => {
    const w = new Writer();
    write(w);
    const r = new Reader(w.finish());
    return decodeKeyValue(r, r.bytes.length, 0);
  };

  it('reads key and value, defaulting both when absent', () => {
    expect(
      keyValue((w) => {
        w.string(1, 'service.name');
        w.message(2, () => w.string(1, 'svc'));
      }),
    ).toEqual({ key: 'service.name', value: { stringValue: 'svc' } });
    expect(keyValue(() => undefined)).toEqual({ key: '', value: {} });
  });

  it('merges a repeated value field and skips unknown fields', () => {
    expect(
      keyValue((w) => {
        w.string(1, 'k');
        w.message(2, () => w.message(5, () => w.message(1, () => w.string(1, 'a'))));
        w.fixed64(3, 1n);
        w.message(2, () => w.message(5, () => w.message(1, () => w.string(1, 'b'))));
      }),
    ).toEqual({ key: 'k', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } });
  });
});
