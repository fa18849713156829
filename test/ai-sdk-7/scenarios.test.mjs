/**
 * The AI SDK acceptance matrix on AI SDK 7: the rows of test/ai-sdk/rows.ts
 * (the same module the AI SDK 6 suite runs) played against the fake provider
 * over real sockets, with `ai` 7 + `@ai-sdk/otel` + the provider packages 4,
 * and agent-incidents from its packed tarball. With `withAgentRun` every row
 * must give the verdict it gives on AI SDK 6; without it (plain `@ai-sdk/otel`
 * spans) every row must be honest. A row states where AI SDK 7 cannot give
 * the same (`ai7`), and why; such a difference is only ever more cautious.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { incidentAttributes, NATIVE_ATTR } from 'agent-incidents';
import { startFakeProvider } from 'agent-incidents/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planFor, rows, wantFor } from '../ai-sdk/rows.ts';
import { runCall } from './run-ai-sdk-7.mjs';

const contextManager = new AsyncLocalStorageContextManager();
/** Verdicts as exported, by path and row, for the 6-vs-7 comparison (`AI_SDK_VERDICTS_OUT`). */
const seen = { sdk: 'ai 7', helper: {}, plain: {} };

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

/** A fresh fake provider per row, so a row that fails cannot leave replies for the next. */
async function play(row, helper) {
  const fake = await startFakeProvider();
  try {
    fake.enqueue(...row.replies);
    return await runCall(fake, planFor(row, 'ai7'), helper);
  } finally {
    await fake.close();
  }
}

function pick(attributes, want) {
  return Object.fromEntries(Object.keys(want).map((key) => [key, attributes[key]]));
}

function incidentOf(attributes) {
  return Object.fromEntries(
    Object.entries(attributes).filter(([key]) => key.startsWith('incident.') && key !== 'incident.schema_version'),
  );
}

describe('AI SDK 7 with withAgentRun', () => {
  for (const row of rows)
    it(row.name, async () => {
      const outcome = await play(row, true);
      expect(outcome.run, 'the run span is exported').toBeDefined();
      const exported = outcome.run?.attributes ?? {};
      seen.helper[row.name] = incidentOf(exported);
      const want = wantFor(row, 'helper', 'ai7');
      expect(pick(exported, want)).toEqual(want);
      // The runtime's own verdict is the exported one.
      const inProcess = incidentAttributes(outcome.inProcess);
      expect(pick(exported, inProcess)).toEqual(inProcess);
      if (want['incident.outcome'] === 'cancelled') expect(outcome.run?.status.code).not.toBe(2);
      expect(outcome.spans).toHaveLength(outcome.started);
      // The SDK's own root span (`invoke_agent <model>`) is part of the run, not a run of its own.
      expect(outcome.spans.filter((s) => s.attributes['incident.outcome'] !== undefined)).toHaveLength(1);
      // Each SDK retry is linked to the attempt it retries.
      const retries = outcome.spans.filter((s) => s.attributes[NATIVE_ATTR.RETRY_OF_ATTEMPT] !== undefined);
      for (const retry of retries) {
        const retried = outcome.spans.find(
          (s) => s.attributes[NATIVE_ATTR.ATTEMPT_NUMBER] === retry.attributes[NATIVE_ATTR.RETRY_OF_ATTEMPT],
        );
        expect(retry.links.map((l) => [l.context.spanId, l.attributes?.[NATIVE_ATTR.LINK_TYPE]])).toContainEqual([
          retried?.spanContext().spanId,
          'retry_of',
        ]);
      }
    });
});

describe('AI SDK 7 with plain @ai-sdk/otel spans', () => {
  for (const row of rows)
    it(row.name, async () => {
      const outcome = await play(row, false);
      const exported = outcome.run?.attributes ?? {};
      seen.plain[row.name] = incidentOf(exported);
      const want = wantFor(row, 'plain', 'ai7');
      expect(pick(exported, want)).toEqual(want);
      // Never-ended SDK spans are closed and exported, marked as cut off.
      expect(outcome.spans).toHaveLength(outcome.started);
    });
});
