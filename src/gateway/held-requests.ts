/**
 * The acknowledged requests of a gateway with workers, and how many spans each worker that got part of one has not
 * delivered yet (docs/gateway.md, "Workers"): a request's record in the persistent queue is released only once
 * every such worker delivered its part, and a worker that exits is given back exactly the parts it had not.
 */
import type { BodyEncoding } from './decode-body.js';
import type { SpillRecord } from './spill-log.js';

/** One acknowledged request. */
export interface HeldParts {
  readonly encoding: BodyEncoding;
  /** Its place in the persistent queue; unset without one. */
  readonly record: SpillRecord | undefined;
  /** Usable spans each worker got; undefined while the size of a part sent again is not known yet. */
  readonly given: (number | undefined)[];
  /** Spans each worker has not delivered yet. */
  readonly outstanding: number[];
}

/** What a worker that exited held: the requests to read back for its successor, and the spans lost without a record. */
export interface LostParts {
  readonly again: { readonly request: number; readonly parts: HeldParts; readonly record: SpillRecord }[];
  readonly lost: number;
}

/** The acknowledged requests not yet delivered whole, by id. */
export class HeldRequests {
  readonly #held = new Map<number, HeldParts>();

  /** Requests not delivered whole yet. */
  get size(): number {
    return this.#held.size;
  }

  /** The request `id`, while it is held. */
  get(id: number): HeldParts | undefined {
    return this.#held.get(id);
  }

  /**
   * Holds request `id`: `given[shard]` usable spans went to each worker (undefined: sent, size not known yet).
   * Settles it at once when nothing is outstanding.
   */
  add(id: number, encoding: BodyEncoding, record: SpillRecord | undefined, given: (number | undefined)[]): HeldParts {
    const parts: HeldParts = {
      encoding,
      record,
      given: [...given],
      outstanding: given.map((spans) => spans ?? 0),
    };
    this.#held.set(id, parts);
    this.#settle(id, parts);
    return parts;
  }

  /** Worker `shard` delivered (or dropped, counted) `spans` of request `id`. */
  released(shard: number, id: number, spans: number): void {
    const parts = this.#held.get(id);
    if (!parts) return;
    parts.outstanding[shard]! -= spans;
    this.#settle(id, parts);
  }

  /** Worker `shard` decoded its part of request `id` sent again: `spans` usable spans. */
  sized(shard: number, id: number, spans: number): void {
    const parts = this.#held.get(id);
    if (!parts) return;
    parts.given[shard] = spans;
    parts.outstanding[shard]! += spans;
    this.#settle(id, parts);
  }

  /** Worker `shard`'s part of request `id` is sent again; its size comes with the worker's answer ({@link sized}). */
  resending(shard: number, id: number): void {
    const parts = this.#held.get(id);
    if (!parts) return;
    parts.given[shard] = undefined;
    parts.outstanding[shard] = 0;
  }

  /** Worker `shard` has no part of request `id` after all (it no longer decodes, or there is none). */
  none(shard: number, id: number): void {
    this.sized(shard, id, 0);
  }

  /**
   * Worker `shard` exited: the requests it had not delivered its part of. Those with a record are to be read back
   * and sent again (their part is now awaited); those without one are lost, their spans counted, and settled.
   */
  exited(shard: number): LostParts {
    const again: LostParts['again'][number][] = [];
    let lost = 0;
    for (const [request, parts] of [...this.#held]) {
      if (parts.given[shard] !== undefined && parts.outstanding[shard]! <= 0) continue;
      if (parts.record) {
        this.resending(shard, request);
        again.push({ request, parts, record: parts.record });
        continue;
      }
      lost += Math.max(0, parts.outstanding[shard]!);
      parts.outstanding[shard] = 0;
      parts.given[shard] ??= 0;
      this.#settle(request, parts);
    }
    return { again, lost };
  }

  /** Forgets a request every worker delivered its part of, and frees its stored record. */
  #settle(id: number, parts: HeldParts): void {
    if (parts.given.some((spans) => spans === undefined)) return;
    if (parts.outstanding.some((spans) => spans > 0)) return;
    this.#held.delete(id);
    parts.record?.release(parts.record.pending);
  }
}
