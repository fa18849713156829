// Over 300 lines: the catalogue of simulated runs, one short script per kind, reads as one list.
/**
 * A simulated fleet of agent runs with injected faults, recorded through
 * RunRecorder. Each kind of run is a short script of what a real runtime
 * would record; together they reach every phase and every cause. Each
 * attempt reports the usage its provider would (src/demo/conversation.ts),
 * so the incidents say what they cost.
 */
import type { RunRecorder } from '../runtime/run-recorder.js';
import type { DemoModel } from './conversation.js';
import { Conversation, DEMO_MODELS } from './conversation.js';

/** Local tools the simulated agents expose (a complete boundary). */
const TOOLS = [
  { name: 'read', sideEffects: 'read_only' as const },
  { name: 'grep', sideEffects: 'read_only' as const },
  { name: 'apply_patch', sideEffects: 'unsafe' as const },
  { name: 'bash', sideEffects: 'unsafe' as const },
];
const boundary = { tools: TOOLS };

function socketDrop(): Error {
  const cause = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause });
}

function apiError(status: number, message: string, type?: string): Error {
  return Object.assign(new Error(message), {
    name: 'AI_APICallError',
    statusCode: status,
    isRetryable: status === 429 || status >= 500,
    data: type ? { error: { type } } : undefined,
  });
}

/** One kind of simulated run: a name, how often it happens, and its script. */
export interface FleetRun {
  readonly name: string;
  readonly weight: number;
  /**
   * Records the run; `talk` gives its attempts their usage. Returning
   * `'leave_open'` leaves the run span unended (a crashed agent).
   */
  readonly play: (run: RunRecorder, talk: Conversation) => void | 'leave_open';
}

/** The catalogue of simulated runs. */
export const FLEET: readonly FleetRun[] = [
  {
    name: 'answers with text',
    weight: 30,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.textOutput();
      talk.finish(a, ['stop']);
    },
  },
  {
    name: 'reads a file, then answers',
    weight: 14,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.toolInputStarted('read');
      a.toolInputCompleted('read');
      a.toolCallMaterialized({ name: 'read', sideEffects: 'read_only' });
      run.startTool({ name: 'read', sideEffects: 'read_only', attempt: a }).complete();
      talk.finish(a, ['tool-calls'], 'tool_call');
      talk.toolResult();
      const b = run.startAttempt({ boundary });
      talk.streamed(b);
      b.textOutput();
      talk.finish(b, ['stop']);
    },
  },
  {
    name: 'connect watchdog, retried, recovers',
    weight: 6,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      a.watchdogFired({ phase: 'connect', budgetMillis: 30_000 });
      run.retryIssued(a, { delayMillis: 1000 });
      const b = run.startAttempt({ boundary });
      talk.streamed(b);
      b.textOutput();
      talk.finish(b, ['stop']);
    },
  },
  {
    name: 'connect watchdog twice',
    weight: 3,
    play: (run) => {
      const a = run.startAttempt({ boundary });
      a.watchdogFired({ phase: 'connect', budgetMillis: 30_000 });
      run.retryIssued(a, { delayMillis: 1000 });
      run.startAttempt({ boundary }).watchdogFired({ phase: 'connect', budgetMillis: 30_000 });
    },
  },
  {
    name: 'socket drop before first token',
    weight: 5,
    play: (run) => {
      const a = run.startAttempt({ boundary });
      a.fail(socketDrop());
    },
  },
  {
    name: 'socket drop mid-answer',
    weight: 6,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.textOutput();
      a.fail(socketDrop());
    },
  },
  {
    name: 'socket drop while reasoning',
    weight: 3,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.reasoningOutput();
      a.fail(socketDrop());
    },
  },
  {
    name: 'connection reset during tool input',
    weight: 3,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.toolInputStarted('apply_patch');
      a.fail(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
      a.pendingToolInterrupted('apply_patch');
    },
  },
  {
    name: 'drop after an unsafe call materialized',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
      a.fail(socketDrop());
    },
  },
  {
    name: 'drop after grep returned',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.toolCallMaterialized({ name: 'grep', sideEffects: 'read_only' });
      run.startTool({ name: 'grep', sideEffects: 'read_only', attempt: a }).complete();
      a.fail(socketDrop());
    },
  },
  {
    name: '503 then recovered',
    weight: 4,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      a.fail(apiError(503, 'Service Unavailable'));
      run.retryIssued(a, { delayMillis: 2000 });
      const b = run.startAttempt({ boundary });
      talk.streamed(b);
      b.textOutput();
      talk.finish(b, ['stop']);
    },
  },
  {
    name: 'quota exhausted',
    weight: 2,
    play: (run) => {
      run.startAttempt({ boundary }).fail(apiError(429, 'You exceeded your current quota', 'insufficient_quota'));
    },
  },
  {
    name: 'user presses stop',
    weight: 4,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.textOutput();
      run.userCancel('user_stop');
    },
  },
  {
    name: 'host reloads mid-stream',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.textOutput();
      // The reload begins, then tears the stream down; its record arrives last.
      const initiated = run.now(); // the run's own clock, so the order is exact
      a.fail(socketDrop());
      run.lifecycleClose({ kind: 'instance_reload', initiatedAt: initiated });
    },
  },
  {
    name: 'request setup fails',
    weight: 2,
    play: (run) => {
      run.setupFailure(new Error('model not configured'));
    },
  },
  {
    name: 'bash fails',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
      talk.finish(a, ['tool-calls'], 'tool_call');
      run
        .startTool({ name: 'bash', sideEffects: 'unsafe', attempt: a })
        .fail(Object.assign(new Error('permission denied'), { code: 'EACCES' }));
    },
  },
  {
    name: 'bash interrupted',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.toolCallMaterialized({ name: 'bash', sideEffects: 'unsafe' });
      run.startTool({ name: 'bash', sideEffects: 'unsafe', attempt: a }).interrupt();
    },
  },
  {
    name: 'agent process exits after finishing the stream',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.textOutput();
      talk.finish(a, ['stop']);
      run.processExit({ closeReason: 'stream_error', exitCode: 1 });
    },
  },
  {
    name: 'agent CLI killed before it started',
    weight: 1,
    play: (run) => {
      run.processExit({ closeReason: 'signal', signal: 'SIGKILL' });
    },
  },
  {
    name: 'agent crashes, run never ends',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.textOutput();
      return 'leave_open';
    },
  },
  {
    name: 'stream stops with no error recorded',
    weight: 2,
    play: (run, talk) => {
      const a = run.startAttempt({ boundary });
      talk.streamed(a);
      a.reasoningOutput();
    },
  },
];

/** A small deterministic PRNG (mulberry32), so `--seed` reproduces a fleet. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of run `index`'s own usage sequence, so usage never shifts which kinds are drawn. */
function usageSeed(seed: number, index: number): number {
  return (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
}

/**
 * Plays a fleet a slice at a time (so a caller can yield between slices and
 * show progress): first one run of each kind (so every cause and phase shows
 * up), then kinds drawn by weight from the seeded random sequence. Runs talk
 * to the {@link DEMO_MODELS} in turn; each run's usage comes from a sequence
 * of its own, seeded by the seed and the run's number, so a seed reproduces
 * the usage too, however the fleet is sliced.
 */
export class FleetPlayer {
  readonly #seed: number;
  readonly #random: () => number;
  readonly #total = FLEET.reduce((sum, kind) => sum + kind.weight, 0);
  #played = 0;

  constructor(seed: number) {
    this.#seed = seed;
    this.#random = seededRandom(seed);
  }

  /** Runs played so far. */
  get played(): number {
    return this.#played;
  }

  /** Plays the next `runs` runs; `startRun` creates each run's recorder, for the model the run talks to. */
  play(runs: number, startRun: (kind: FleetRun, model: DemoModel) => RunRecorder): void {
    for (let i = 0; i < runs; i += 1) {
      const index = this.#played;
      let kind = FLEET[index];
      if (!kind) {
        let pick = this.#random() * this.#total;
        kind = FLEET.find((k) => (pick -= k.weight) < 0) ?? FLEET[0]!;
      }
      this.#played += 1;
      const model = DEMO_MODELS[index % DEMO_MODELS.length]!;
      const run = startRun(kind, model);
      const talk = new Conversation(model, seededRandom(usageSeed(this.#seed, index)));
      if (kind.play(run, talk) !== 'leave_open') run.end();
    }
  }
}

/** Plays `runs` runs at once (see {@link FleetPlayer}). `startRun` creates each run's recorder. */
export function playFleet(options: {
  readonly runs: number;
  readonly seed: number;
  readonly startRun: (kind: FleetRun, model: DemoModel) => RunRecorder;
}): void {
  new FleetPlayer(options.seed).play(options.runs, options.startRun);
}
