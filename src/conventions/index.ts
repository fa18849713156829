/**
 * The conventions agent-incidents understands, tried in order: the first
 * adapter that recognises a span's role reads it.
 */
import type { ConventionAdapter } from './adapter.js';
import { genAiAdapter } from './gen-ai.js';
import { openInferenceAdapter } from './openinference.js';
import { vercelAiAdapter } from './vercel-ai.js';
import type { SpanRole, SpanView } from './span-view.js';

/**
 * Every supported convention. A span's role comes from the first that knows
 * it; `gen_ai.operation.name` is the most explicit marker, so GenAI goes first.
 */
export const ADAPTERS: readonly ConventionAdapter[] = [genAiAdapter, vercelAiAdapter, openInferenceAdapter];

/** The adapter and role for a span, or undefined when no convention knows it. */
export function recognise(
  view: Pick<SpanView, 'name' | 'attributes'>,
  adapters: readonly ConventionAdapter[] = ADAPTERS,
): { adapter: ConventionAdapter; role: SpanRole } | undefined {
  for (const adapter of adapters) {
    const role = adapter.role(view);
    if (role !== undefined) return { adapter, role };
  }
  return undefined;
}

export { genAiAdapter, openInferenceAdapter, vercelAiAdapter };
export type { ConventionAdapter, EarlierTry, ExtractContext, Extraction } from './adapter.js';
export type { SpanRole, SpanView, EventView, LinkView, AttributeView } from './span-view.js';
