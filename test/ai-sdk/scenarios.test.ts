/**
 * The AI SDK acceptance matrix: the real `ai` 6 with `@ai-sdk/openai` and
 * `@ai-sdk/anthropic`, streaming from the fake provider over real sockets on
 * 127.0.0.1. With the integration every row gives the verdict of
 * docs/attributes.md#retry-safety-reasons, the
 * same in-process as exported. Without it (plain `experimental_telemetry`)
 * every row is honest: never a wrong cause, `facts_complete=false` where the
 * spans cannot tell, and every span exported.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentAttributes, NATIVE_ATTR } from '../../src/index.js';
import { startFakeProvider } from '../../src/testing/fake-provider.js';
import type { Row, Want } from './rows.js';
import { planFor, rows, wantFor } from './rows.js';
import { runCall } from './run-ai-sdk.js';

const contextManager = new AsyncLocalStorageContextManager();
/** Verdicts as exported, by path and row, for the 6-vs-7 comparison (`AI_SDK_VERDICTS_OUT`; test/ai-sdk-7 writes 7's). */
const seen: { sdk: string; helper: Record<string, Want>; plain: Record<string, Want> } = {
  sdk: 'ai 6',
  helper: {},
  plain: {},
};

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});

afterAll(() => {
  context.disable();
  const out = process.env.AI_SDK_VERDICTS_OUT;
  if (out) {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(seen, null, 2)}\n`);
  }
});

function incidentOf(attributes: Record<string, unknown>): Want {
  return Object.fromEntries(
    Object.entries(attributes).filter(([key]) => key.startsWith('incident.') && key !== 'incident.schema_version'),
  );
}

/** A fresh fake provider per row, so a row that fails cannot leave replies for the next. */
async function play(row: Row, helper: boolean) {
  const fake = await startFakeProvider();
  try {
    fake.enqueue(...row.replies);
    return await runCall(fake, planFor(row, 'ai6'), helper);
  } finally {
    await fake.close();
  }
}

function pick(attributes: Record<string, unknown>, want: Want): Want {
  return Object.fromEntries(Object.keys(want).map((key) => [key, attributes[key]]));
}

describe('with the AI SDK integration', () => {
  for (const row of rows)
    it(row.name, async () => {
      const outcome = await play(row, true);
      expect(outcome.run, 'the run span is exported').toBeDefined();
      const exported = outcome.run?.attributes ?? {};
      seen.helper[row.name] = incidentOf(exported);
      expect(pick(exported, wantFor(row, 'helper', 'ai6'))).toEqual(wantFor(row, 'helper', 'ai6'));
      // The runtime's own verdict is the exported one.
      const inProcess = incidentAttributes(outcome.inProcess!);
      expect(pick(exported, inProcess)).toEqual(inProcess);
      if (row.helper['incident.outcome'] === 'cancelled') expect(outcome.run?.status.code).not.toBe(2);
      expect(outcome.spans).toHaveLength(outcome.started);
      // Each SDK retry is linked to the attempt it retries.
      const retries = outcome.spans.filter((s) => s.attributes[NATIVE_ATTR.RETRY_OF_ATTEMPT] !== undefined);
      expect(retries.length > 0).toBe(
        Number(exported['incident.recovered_attempts'] ?? 0) > 0 ||
          row.helper['incident.retry_safety.reason'] === 'retry_budget_exhausted',
      );
      for (const retry of retries) {
        const retried = outcome.spans.find(
          (s) => s.attributes[NATIVE_ATTR.ATTEMPT_NUMBER] === retry.attributes[NATIVE_ATTR.RETRY_OF_ATTEMPT],
        );
        expect(retry.links.map((l) => [l.context.spanId, l.attributes?.[NATIVE_ATTR.LINK_TYPE]])).toEqual([
          [retried?.spanContext().spanId, 'retry_of'],
        ]);
      }
    });
});

describe('with plain experimental_telemetry', () => {
  for (const row of rows)
    it(row.name, async () => {
      const outcome = await play(row, false);
      const exported = outcome.run?.attributes ?? {};
      seen.plain[row.name] = incidentOf(exported);
      expect(pick(exported, wantFor(row, 'plain', 'ai6'))).toEqual(wantFor(row, 'plain', 'ai6'));
      // Never-ended SDK spans are closed and exported, marked as cut off.
      expect(outcome.spans).toHaveLength(outcome.started);
    });
});
