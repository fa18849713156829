/**
 * What the demo's simulated attempts use: token counts shaped like a real
 * agent's (a system prompt with tool definitions, a conversation history that
 * grows turn by turn and is read from the prompt cache on later turns,
 * answers of tens to hundreds of tokens, reasoning on a reasoning model), a
 * cost from a fixed price table, and each figure reported when the provider
 * reports it. So the demo's incidents carry what they cost
 * (docs/attributes.md#lost-usage): a stream cut off after Anthropic's
 * `message_start` shows its input and no output (a lower bound), one cut off
 * on OpenAI shows nothing yet (usage comes last), a request refused before
 * streaming used nothing.
 */
import type { AttemptRecorder } from '../runtime/attempt-recorder.js';

/** A model the demo's runs talk to, and how its provider reports usage. */
export interface DemoModel {
  readonly providerName: 'openai' | 'anthropic';
  readonly model: 'gpt-5-mini' | 'claude-sonnet-4-5';
}

/** The models the demo's runs use in turn. */
export const DEMO_MODELS: readonly DemoModel[] = [
  { providerName: 'openai', model: 'gpt-5-mini' },
  { providerName: 'anthropic', model: 'claude-sonnet-4-5' },
];

/** US dollars per million tokens: uncached input, input read from the prompt cache, output (reasoning included). */
export interface Price {
  readonly input: number;
  readonly cachedInput: number;
  readonly output: number;
}

/**
 * Illustrative prices, USD per million tokens, close to the providers' public
 * list prices when this was written (late 2025). They are fixed so the demo
 * prints the same figures on every run; they are not a quote and are not kept
 * up to date. Cache writes are billed at the input price here (Anthropic
 * charges a premium for them; the demo leaves it out).
 */
export const PRICES: Readonly<Record<DemoModel['model'], Price>> = {
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, output: 15 },
};

/** What a simulated answer contains, which sets its output tokens. */
export type AnswerKind = 'text' | 'tool_call' | 'reasoning';

/** A whole number of tokens in [min, max), drawn from `random`. */
function tokens(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min));
}

/** What `usage` costs at `price`, rounded to a millionth of a dollar (what billing shows). */
export function costOf(
  price: Price,
  usage: { readonly input: number; readonly cached: number; readonly output: number },
): number {
  const micros =
    (usage.input - usage.cached) * price.input + usage.cached * price.cachedInput + usage.output * price.output;
  return Math.round(micros) / 1e6;
}

/**
 * One simulated run's conversation with its model. Each request sends the
 * whole conversation: the system prompt (instructions and tool definitions),
 * the history of earlier turns, the user's message and what this run added
 * (answers, tool results). The prefix an earlier request already sent is read
 * from the prompt cache. The figures come from `random`, a sequence of its
 * own, so they do not change which runs the fleet plays.
 */
export class Conversation {
  readonly model: DemoModel;
  readonly #price: Price;
  readonly #random: () => number;
  /** Tokens of the conversation so far: what the next request sends. */
  #context: number;
  /** Of those, the prefix the provider has cached (sent by an earlier request it read). */
  #cached: number;
  /** The input of the attempt being made, once the provider read it. */
  #input: { readonly attempt: AttemptRecorder; readonly input: number; readonly cached: number } | undefined;

  constructor(model: DemoModel, random: () => number) {
    this.model = model;
    this.#price = PRICES[model.model];
    this.#random = random;
    const system = tokens(random, 2_400, 3_600);
    // Most runs are a later turn of a session: their history is in the cache from the turn before.
    const history = random() < 0.7 ? tokens(random, 1_500, 24_000) : 0;
    const user = tokens(random, 30, 400);
    this.#context = system + history + user;
    this.#cached = history > 0 ? system + history : 0;
  }

  /**
   * The provider read the request and began to stream (Anthropic's
   * `message_start`, OpenAI's first chunk): it is billed for its input from
   * here, and caches its prompt. Anthropic reports the input now; OpenAI only
   * with the last chunk, so a stream cut off later shows nothing there.
   */
  streamed(attempt: AttemptRecorder): void {
    const input = { attempt, input: this.#context, cached: this.#cached };
    this.#input = input;
    this.#cached = this.#context;
    if (this.model.providerName === 'anthropic') {
      attempt.usage({
        inputTokens: input.input,
        cachedInputTokens: input.cached,
        costUsd: costOf(this.#price, { input: input.input, cached: input.cached, output: 0 }),
      });
    }
  }

  /**
   * The attempt's stream finished with `finishReasons`, after an answer of
   * `kind`: its whole usage is reported with the finish, as both providers
   * do, and the answer joins the conversation.
   */
  finish(attempt: AttemptRecorder, finishReasons: readonly string[], kind: AnswerKind = 'text'): void {
    if (this.#input?.attempt !== attempt) this.streamed(attempt);
    const input = this.#input!;
    this.#input = undefined;
    const visible =
      kind === 'tool_call' ? tokens(this.#random, 20, 120) : tokens(this.#random, kind === 'text' ? 40 : 20, 450);
    // gpt-5-mini always reasons and says how much; Claude's extended thinking is in its output count, not apart.
    const reasoning =
      this.model.providerName === 'openai'
        ? tokens(this.#random, 64, 1_200)
        : kind === 'reasoning'
          ? tokens(this.#random, 200, 1_500)
          : 0;
    const output = visible + reasoning;
    this.#context += visible;
    attempt.finish({
      finishReasons,
      usage: {
        inputTokens: input.input,
        cachedInputTokens: input.cached,
        outputTokens: output,
        ...(this.model.providerName === 'openai' ? { reasoningTokens: reasoning } : {}),
        costUsd: costOf(this.#price, { input: input.input, cached: input.cached, output }),
      },
    });
  }

  /** A tool's result joins the conversation: the next request sends it. */
  toolResult(): void {
    this.#context += tokens(this.#random, 80, 2_400);
  }
}
