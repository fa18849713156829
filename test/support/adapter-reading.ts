/**
 * Reading a convention adapter's facts in a test: the context an adapter
 * reads a span in (attempt `s1`, the tool `read` trusted read-only, nothing
 * cut off), and a fact written as one short line to compare tables with.
 */
import type { ExtractContext } from '../../src/conventions/adapter.js';
import type { Fact } from '../../src/model/facts.js';

/** The context of attempt `s1`, `read` trusted read-only, the span not cut off; `overrides` change it. */
export function extractContext(overrides: Partial<ExtractContext> = {}): ExtractContext {
  return {
    attempt: 's1',
    truncated: false,
    trustedReadOnlyTools: ['read'],
    attemptKeyOf: () => undefined,
    ...overrides,
  };
}

/**
 * A fact as `kind`, then, where it has them, its tool (`-` when it names
 * none), its side-effect class and `provider` for a provider-executed call:
 * `tool_call_materialized read read_only`.
 */
export function factSummary(fact: Fact): string {
  const parts: string[] = [fact.kind];
  if ('tool' in fact) parts.push(fact.tool ?? '-');
  if ('sideEffects' in fact) parts.push(fact.sideEffects);
  if ('providerExecuted' in fact && fact.providerExecuted) parts.push('provider');
  return parts.join(' ');
}
