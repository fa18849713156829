/** What an attempt used: plain data (read from spans by src/conventions/attempt-usage.ts), and how to build it from the figures given. */

/**
 * Token use of one attempt, as far as it is known: written by `RunRecorder` as
 * `gen_ai.usage.*` (and `agent_incidents.usage.cost_usd`) on its span, and
 * read back from any convention's usage keys (docs/attributes.md#lost-usage).
 */
export interface AttemptUsage {
  /** Input (prompt) tokens, cached ones included. */
  readonly inputTokens?: number;
  /** Output (completion) tokens, reasoning ones included. */
  readonly outputTokens?: number;
  /** Of the output tokens, those spent on reasoning, where the provider reports them. */
  readonly reasoningTokens?: number;
  /** Of the input tokens, those read from the provider's prompt cache, where it reports them. */
  readonly cachedInputTokens?: number;
  /** What the attempt cost, in US dollars, where the runtime or its instrumentation computed it. */
  readonly costUsd?: number;
}

/** The figures of `figures` that are given (neither `undefined` nor `null`) as an {@link AttemptUsage}; undefined when none is. */
export function usageFrom(figures: { readonly [K in keyof AttemptUsage]?: number | null }): AttemptUsage | undefined {
  const given = Object.entries(figures).filter(([, value]) => value !== undefined && value !== null);
  return given.length === 0 ? undefined : (Object.fromEntries(given) as AttemptUsage);
}
