/**
 * The AI SDK acceptance matrix as data: each row is one call played against
 * the fake provider, with the verdict the integration must give and the one
 * plain telemetry honestly gives. Both suites run it: test/ai-sdk (AI SDK 6,
 * Node 20) and test/ai-sdk-7 (AI SDK 7 + @ai-sdk/otel, Node 22). A row says
 * in `ai7` where AI SDK 7 needs another plan or cannot give the same verdict,
 * and why; a different verdict there may only be more cautious.
 */
import type { Reply } from '../../src/testing/fake-provider.js';
import { reply } from '../../src/testing/fake-provider.js';
import type { Want } from '../support/verdicts.js';
import { CANT_TELL, NEVER_ENDED } from '../support/verdicts.js';
import type { CallPlan } from './run-ai-sdk.js';

export type { Want };

/** One row of the matrix. */
export interface Row {
  readonly name: string;
  readonly plan: CallPlan;
  readonly replies: readonly Reply[];
  /** The verdict with the integration (docs/attributes.md#retry-safety-reasons). */
  readonly helper: Want;
  /** What plain telemetry honestly gives. */
  readonly plain: Want;
  /** Where AI SDK 7 differs: another plan for the same fault, or another verdict, and why. */
  readonly ai7?: {
    readonly why: string;
    readonly plan?: Partial<CallPlan>;
    readonly helper?: Want;
    readonly plain?: Want;
  };
}

/** Which AI SDK plays the row. */
export type Sdk = 'ai6' | 'ai7';

/** The plan of `row` on `sdk`. */
export function planFor(row: Row, sdk: Sdk): CallPlan {
  return sdk === 'ai7' && row.ai7?.plan ? { ...row.plan, ...row.ai7.plan } : row.plan;
}

/** The verdict `row` must give on `sdk`, with the integration (`helper`) or from plain spans. */
export function wantFor(row: Row, path: 'helper' | 'plain', sdk: Sdk): Want {
  return (sdk === 'ai7' ? row.ai7?.[path] : undefined) ?? row[path];
}

const drop = { type: 'destroy' } as const;
const pause = (ms: number) => ({ type: 'delay', ms }) as const;
const quiet = { 'retry-after': '0' };

/** Every row, in the order the tests run them. */
export const rows: Row[] = [
  {
    name: 'socket drop before the first byte is an auto-retryable disconnect',
    plan: { dialect: 'openai.chat' },
    replies: [reply.destroy()],
    helper: {
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.cause.detail': 'socket_closed',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'auto_retry',
      'incident.error.code': 'UND_ERR_SOCKET',
      'incident.facts_complete': true,
    },
    plain: {
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.retry_safety': 'auto_retry',
    },
    ai7: {
      why: "AI SDK 7's spans show the transport error but, on a failed attempt, no time to first chunk: whether output streamed first is unknown, so no automatic retry",
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'provider_transport_disconnect',
        'incident.cause.detail': 'socket_closed',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'socket drop after text offers to continue',
    plan: { dialect: 'openai.chat' },
    replies: [reply.script({ type: 'text', text: ['Reading', ' the repo'] }, pause(20), drop)],
    helper: {
      'incident.outcome': 'failed',
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'visible_output_without_tool_execution',
      'incident.error.code': 'UND_ERR_SOCKET',
    },
    plain: NEVER_ENDED,
    ai7: {
      why: 'AI SDK 7 ends every span of a stream that breaks after the 200 with ERROR "Failed to process successful response" (AI_APICallError, http.response.status_code 200) and keeps neither the error\'s cause (UND_ERR_SOCKET) nor the output streamed: what broke it and where are unknown (AI SDK 6 left the spans open instead)',
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'unknown_interruption',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'socket drop after text on the Anthropic API offers to continue',
    plan: { dialect: 'anthropic' },
    replies: [reply.script({ type: 'text', text: ['Reading', ' the repo'] }, pause(20), drop)],
    helper: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
    },
    plain: NEVER_ENDED,
    ai7: {
      why: 'AI SDK 7 ends every span of a stream that breaks after the 200 with ERROR "Failed to process successful response" (AI_APICallError, http.response.status_code 200) and keeps neither the error\'s cause (UND_ERR_SOCKET) nor the output streamed: what broke it and where are unknown (AI SDK 6 left the spans open instead)',
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'unknown_interruption',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'socket drop during tool input offers to continue without running anything',
    plan: { dialect: 'openai.responses' },
    replies: [
      reply.script(
        { type: 'text', text: 'Let me look.' },
        { type: 'partial-tool-call', name: 'run_shell', arguments: '{"command":"ls' },
        pause(20),
        drop,
      ),
    ],
    helper: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'tool_input_generation',
      'incident.retry_safety': 'offer_continue',
      'incident.retry_safety.reason': 'partial_tool_input_without_execution',
      'incident.side_effects': 'none',
    },
    plain: NEVER_ENDED,
    ai7: {
      why: 'AI SDK 7 ends every span of a stream that breaks after the 200 with ERROR "Failed to process successful response" (AI_APICallError, http.response.status_code 200) and keeps neither the error\'s cause (UND_ERR_SOCKET) nor the output streamed: what broke it and where are unknown (AI SDK 6 left the spans open instead)',
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'unknown_interruption',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'a read-only tool ran, then the next request drops: retrying that request is safe',
    plan: { dialect: 'openai.chat' },
    replies: [reply.toolCall('read_file', { path: 'README.md' }), reply.destroy()],
    helper: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'auto_retry',
      'incident.side_effects': 'read_only',
      'incident.attempts': 2,
    },
    plain: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.retry_safety': 'auto_retry',
      'incident.side_effects': 'unknown',
    },
    ai7: {
      why: "AI SDK 7's spans show the transport error but, on a failed attempt, no time to first chunk, and no tool class: progress and side effects unknown",
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'provider_transport_disconnect',
        'incident.cause.detail': 'socket_closed',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.side_effects': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'an unsafe tool ran, then the next request drops: the request is retryable, the run reports the unsafe effect',
    plan: { dialect: 'anthropic' },
    replies: [reply.toolCall('run_shell', { command: 'make deploy' }), reply.destroy()],
    helper: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'auto_retry',
      'incident.side_effects': 'unsafe',
      'incident.attempts': 2,
    },
    plain: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.retry_safety': 'auto_retry',
      'incident.side_effects': 'unknown',
    },
    ai7: {
      why: "AI SDK 7's spans show the transport error but, on a failed attempt, no time to first chunk, and no tool class: progress and side effects unknown",
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'provider_transport_disconnect',
        'incident.cause.detail': 'socket_closed',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.side_effects': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'the total timeout while an unsafe tool runs must not be retried blindly',
    // The AI SDK 6 runs tools after the provider's finish chunk, so a stream
    // cannot drop while one runs; a watchdog (or a stop) can stop it.
    plan: { dialect: 'openai.responses', timeout: { totalMs: 600 } },
    replies: [reply.toolCall('run_shell', { command: 'make deploy' })],
    helper: {
      'incident.outcome': 'failed',
      'incident.cause': 'watchdog_timeout',
      'incident.cause.detail': 'total',
      'incident.phase': 'tool_execution',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'unsafe_side_effect_started',
      'incident.side_effects': 'unsafe',
    },
    plain: {
      'incident.cause': 'tool_execution_interrupted',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.facts_complete': false,
    },
    ai7: {
      why: "AI SDK 7 ends a running tool's span UNSET at an abort, without the duration it records when an execution ends: read as interrupted, as on AI SDK 6; every span ended, so nothing is missing",
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'tool_execution_interrupted',
        'incident.phase': 'tool_execution',
        'incident.retry_safety': 'ask_user_before_retry',
        'incident.facts_complete': true,
      },
    },
  },
  {
    name: 'the user stopping while an unsafe tool runs is a cancel that reports the unsafe effect',
    plan: { dialect: 'openai.chat', stopAfter: { part: 'tool-started', delayMs: 20 } },
    replies: [reply.toolCall('run_shell', { command: 'make deploy' })],
    helper: {
      'incident.outcome': 'cancelled',
      'incident.cause': 'user_cancel',
      'incident.phase': 'tool_execution',
      'incident.retry_safety': 'do_not_retry',
      'incident.side_effects': 'unsafe',
    },
    plain: {
      'incident.cause': 'tool_execution_interrupted',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.facts_complete': false,
    },
    ai7: {
      why: "AI SDK 7 ends a running tool's span UNSET at an abort, without the duration it records when an execution ends: read as interrupted, as on AI SDK 6; every span ended, so nothing is missing",
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'tool_execution_interrupted',
        'incident.phase': 'tool_execution',
        'incident.retry_safety': 'ask_user_before_retry',
        'incident.facts_complete': true,
      },
    },
  },
  {
    name: 'a connect stall ended by the chunk timeout is a connect watchdog',
    // Anthropic's stream opens with message_start, which starts the SDK's chunk timer; no output follows.
    plan: { dialect: 'anthropic', timeout: { chunkMs: 150 } },
    ai7: {
      why: "AI SDK 7 arms `chunkMs` only after the first output chunk, so a stall before any output is its `firstChunkMs` watchdog's ('First chunk timeout of 150ms exceeded'); same fault, same verdict",
      plan: { timeout: { firstChunkMs: 150 } },
    },
    replies: [reply.script({ type: 'open' }, { type: 'stall' })],
    helper: {
      'incident.outcome': 'failed',
      'incident.cause': 'watchdog_timeout',
      'incident.cause.detail': 'connect',
      'incident.phase': 'before_first_provider_progress',
      'incident.retry_safety': 'auto_retry',
    },
    plain: CANT_TELL,
  },
  {
    name: 'the user pressing stop mid-stream is a cancel, not an error',
    plan: { dialect: 'openai.chat', stopAfter: { part: 'text-delta' } },
    replies: [reply.script({ type: 'text', text: 'Working on it' }, { type: 'stall' })],
    helper: {
      'incident.outcome': 'cancelled',
      'incident.cause': 'user_cancel',
      'incident.cause.detail': 'user_stop',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'do_not_retry',
    },
    plain: CANT_TELL,
  },
  {
    name: '503 then 200 is a recovered run',
    plan: { dialect: 'openai.chat', maxRetries: 1 },
    replies: [reply.status(503, quiet), reply.text('All good.')],
    helper: {
      'incident.outcome': 'recovered',
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'server_overload',
      'incident.attempts': 2,
      'incident.recovered_attempts': 1,
    },
    plain: { 'incident.outcome': 'recovered', 'incident.cause': 'provider_api_error', 'incident.attempts': 2 },
    ai7: {
      why: "AI SDK 7 never ends the failed attempt's `chat` span and records no error on it: the run recovered, from an interruption the spans cannot name",
      plain: {
        'incident.outcome': 'recovered',
        'incident.cause': 'unknown_interruption',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.attempts': 2,
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: '503 twice exhausts the retry budget',
    plan: { dialect: 'openai.chat', maxRetries: 1 },
    replies: [reply.status(503, quiet), reply.status(503, quiet)],
    helper: {
      'incident.outcome': 'failed',
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'server_overload',
      'incident.retry_safety': 'ask_user_before_retry',
      'incident.retry_safety.reason': 'retry_budget_exhausted',
      'incident.attempts': 2,
      'incident.error.code': 'http_503',
    },
    plain: { 'incident.cause': 'provider_api_error', 'incident.retry_safety.reason': 'retry_budget_exhausted' },
  },
  {
    name: '429 with retry-after, then 200, is a recovered rate limit',
    plan: { dialect: 'openai.responses', maxRetries: 1 },
    replies: [reply.status(429, quiet), reply.text('Done.')],
    helper: {
      'incident.outcome': 'recovered',
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'rate_limit',
      'incident.attempts': 2,
    },
    plain: { 'incident.outcome': 'recovered', 'incident.cause': 'provider_api_error', 'incident.attempts': 2 },
    ai7: {
      why: "AI SDK 7 never ends the failed attempt's `chat` span and records no error on it: the run recovered, from an interruption the spans cannot name",
      plain: {
        'incident.outcome': 'recovered',
        'incident.cause': 'unknown_interruption',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.attempts': 2,
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'reasoning only, then a drop, is auto-retryable',
    plan: { dialect: 'anthropic' },
    replies: [reply.script({ type: 'reasoning', text: ['Let me think', ' about it'] }, pause(20), drop)],
    helper: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.phase': 'reasoning_generation',
      'incident.retry_safety': 'auto_retry',
      'incident.retry_safety.reason': 'reasoning_only_without_final_text',
    },
    plain: NEVER_ENDED,
    ai7: {
      why: 'AI SDK 7 ends every span of a stream that breaks after the 200 with ERROR "Failed to process successful response" (AI_APICallError, http.response.status_code 200) and keeps neither the error\'s cause (UND_ERR_SOCKET) nor the output streamed: what broke it and where are unknown (AI SDK 6 left the spans open instead)',
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'unknown_interruption',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'generateText: 503 twice exhausts the retry budget',
    plan: { dialect: 'openai.chat', call: 'generateText', maxRetries: 1 },
    replies: [reply.status(503, quiet), reply.status(503, quiet)],
    helper: {
      'incident.cause': 'provider_api_error',
      'incident.retry_safety.reason': 'retry_budget_exhausted',
      'incident.attempts': 2,
    },
    // AI SDK 7's generateText retries inside one `chat` span, whose AI_RetryError says "Failed after 2
    // attempts": read as two attempts (docs/conventions.md#retries-inside-one-span), the same verdict as 6.
    plain: {
      'incident.cause': 'provider_api_error',
      'incident.retry_safety.reason': 'retry_budget_exhausted',
      'incident.attempts': 2,
    },
  },
  {
    name: 'generateText: a socket drop before the answer is an auto-retryable disconnect',
    plan: { dialect: 'anthropic', call: 'generateText' },
    replies: [reply.destroy()],
    helper: {
      'incident.cause': 'provider_transport_disconnect',
      'incident.retry_safety': 'auto_retry',
      'incident.error.code': 'UND_ERR_SOCKET',
    },
    plain: { 'incident.cause': 'provider_transport_disconnect', 'incident.retry_safety': 'auto_retry' },
    ai7: {
      why: "AI SDK 7's spans show the transport error but, on a failed attempt, no time to first chunk: whether output streamed first is unknown, so no automatic retry",
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'provider_transport_disconnect',
        'incident.cause.detail': 'socket_closed',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
  {
    name: 'generateText: a tool step, then the answer, is a success with the tool side effect',
    plan: { dialect: 'openai.responses', call: 'generateText' },
    replies: [reply.toolCall('read_file', { path: 'README.md' }), reply.text('It says hello.')],
    helper: {
      'incident.outcome': 'success',
      'incident.side_effects': 'read_only',
      'incident.attempts': 2,
      'incident.facts_complete': true,
    },
    plain: { 'incident.outcome': 'success', 'incident.side_effects': 'unknown', 'incident.attempts': 2 },
  },
  {
    name: '400 insufficient quota is not retryable',
    plan: { dialect: 'openai.chat', maxRetries: 2 },
    replies: [reply.insufficientQuota(400)],
    helper: {
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'quota_exhausted',
      'incident.retry_safety': 'do_not_retry',
      'incident.retry_safety.reason': 'not_retryable_error',
      'incident.retryable': false,
      'incident.attempts': 1,
    },
    plain: { 'incident.cause.detail': 'quota_exhausted', 'incident.retry_safety': 'do_not_retry' },
  },
  {
    name: 'a provider error event after text offers to continue',
    plan: { dialect: 'anthropic' },
    replies: [
      reply.script({ type: 'text', text: 'Half an answer' }, pause(10), {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      }),
    ],
    helper: {
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'server_overload',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
    },
    plain: {
      'incident.cause': 'provider_api_error',
      'incident.cause.detail': 'unknown',
      'incident.phase': 'text_generation',
      'incident.retry_safety': 'offer_continue',
    },
    ai7: {
      why: 'AI SDK 7 leaves the `chat` span open and ends the root ERROR with no message (finish reason `error`): an API error, where in the stream unknown',
      plain: {
        'incident.outcome': 'failed',
        'incident.cause': 'provider_api_error',
        'incident.cause.detail': 'unknown',
        'incident.phase': 'unknown',
        'incident.retry_safety': 'unknown',
        'incident.facts_complete': false,
      },
    },
  },
];
