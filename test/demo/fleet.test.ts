/**
 * The demo's simulated fleet (src/demo/fleet.ts): its seeded random sequence,
 * the catalogue of run kinds, and how FleetPlayer plays it. The promises: the
 * first runs are one of each kind, in catalogue order, so even a short demo
 * reaches every cause and every phase; after that, kinds are drawn by weight
 * from a sequence the seed fixes, so `--seed` reproduces a fleet however it
 * is sliced; and a kind that leaves its run open (a crashed agent) is not
 * ended. Each kind's script is played through RunRecorder and the real
 * IncidentSpanProcessor, and its verdict is the one its name says.
 */
import { describe, expect, it } from 'vitest';
import { Conversation, DEMO_MODELS } from '../../src/demo/conversation.js';
import type { FleetRun } from '../../src/demo/fleet.js';
import { FLEET, FleetPlayer, playFleet, seededRandom } from '../../src/demo/fleet.js';
import { CAUSES, PHASES } from '../../src/model/enums.js';
import { RunRecorder } from '../../src/runtime/run-recorder.js';
import { createPipeline } from '../support/harness.js';

/** Plays `runs` runs on a tracer that records nothing; returns each run's kind and whether it was ended. */
function playLog(seed: number, slices: readonly number[]): { kind: string; ended: boolean }[] {
  const player = new FleetPlayer(seed);
  const runs: { kind: FleetRun; run: RunRecorder }[] = [];
  for (const slice of slices) {
    player.play(slice, (kind) => {
      const run = RunRecorder.start();
      runs.push({ kind, run });
      return run;
    });
  }
  return runs.map(({ kind, run }) => ({ kind: kind.name, ended: run.ended }));
}

const TOTAL_WEIGHT = FLEET.reduce((sum, kind) => sum + kind.weight, 0);

describe('seededRandom', () => {
  const draws = (seed: number, n: number) => Array.from({ length: n }, seededRandom(seed));

  it('gives the same sequence for a seed, another for another seed', () => {
    expect(draws(7, 50)).toEqual(draws(7, 50));
    expect(draws(7, 50)).not.toEqual(draws(8, 50));
  });

  it('reads the seed as a 32-bit unsigned integer', () => {
    expect(draws(-1, 10)).toEqual(draws(2 ** 32 - 1, 10));
    expect(draws(2 ** 32 + 5, 10)).toEqual(draws(5, 10));
  });

  it('draws in [0, 1), spread over the whole range', () => {
    const values = draws(1, 10_000);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
    for (let decile = 0; decile < 10; decile += 1) {
      const share = values.filter((v) => Math.floor(v * 10) === decile).length / values.length;
      expect(share, `decile ${decile}`).toBeGreaterThan(0.08);
      expect(share, `decile ${decile}`).toBeLessThan(0.12);
    }
  });
});

describe('the catalogue', () => {
  it('names each kind once and gives each a positive whole weight', () => {
    expect(new Set(FLEET.map((k) => k.name)).size).toBe(FLEET.length);
    expect(FLEET.filter((k) => !Number.isInteger(k.weight) || k.weight <= 0)).toEqual([]);
  });
});

describe('FleetPlayer', () => {
  it('plays one run of each kind first, in catalogue order, then counts every run played', () => {
    const player = new FleetPlayer(3);
    const kinds: string[] = [];
    player.play(FLEET.length + 5, (kind) => {
      kinds.push(kind.name);
      return RunRecorder.start();
    });
    expect(kinds.slice(0, FLEET.length)).toEqual(FLEET.map((k) => k.name));
    expect(kinds).toHaveLength(FLEET.length + 5);
    expect(player.played).toBe(FLEET.length + 5);
  });

  it('draws the same fleet for a seed however it is sliced, and another for another seed', () => {
    const whole = playLog(11, [200]);
    expect(playLog(11, [1, 20, 79, 100])).toEqual(whole);
    expect(playLog(12, [200]).slice(FLEET.length)).not.toEqual(whole.slice(FLEET.length));
    expect(playLog(12, [200]).slice(0, FLEET.length)).toEqual(whole.slice(0, FLEET.length));
  });

  it('draws kinds after the first round in proportion to their weights', () => {
    const drawn = playLog(5, [FLEET.length + 2500]).slice(FLEET.length);
    for (const kind of FLEET) {
      const share = drawn.filter((r) => r.kind === kind.name).length / drawn.length;
      expect(Math.abs(share - kind.weight / TOTAL_WEIGHT), kind.name).toBeLessThan(0.025);
    }
  });

  it('ends every run but the ones whose script leaves them open', () => {
    const open = new Set(
      FLEET.filter(
        (k) => k.play(RunRecorder.start(), new Conversation(DEMO_MODELS[0]!, seededRandom(1))) === 'leave_open',
      ).map((k) => k.name),
    );
    expect([...open]).toEqual(['agent crashes, run never ends']);
    for (const { kind, ended } of playLog(9, [300])) expect(ended, kind).toBe(!open.has(kind));
  });

  it('playFleet plays the runs asked for, as a player with the same seed does', () => {
    const kinds: string[] = [];
    playFleet({
      runs: 60,
      seed: 11,
      startRun: (kind) => {
        kinds.push(kind.name);
        return RunRecorder.start();
      },
    });
    expect(kinds).toEqual(playLog(11, [60]).map((r) => r.kind));
  });
});

describe('each kind’s verdict, through the real processor', () => {
  /** [outcome, cause, phase] of each kind, as its name says. */
  const VERDICTS: Record<string, [string, string | undefined, string | undefined]> = {
    'answers with text': ['success', undefined, undefined],
    'reads a file, then answers': ['success', undefined, undefined],
    'connect watchdog, retried, recovers': ['recovered', 'watchdog_timeout', 'before_first_provider_progress'],
    'connect watchdog twice': ['failed', 'watchdog_timeout', 'before_first_provider_progress'],
    'socket drop before first token': ['failed', 'provider_transport_disconnect', 'before_first_provider_progress'],
    'socket drop mid-answer': ['failed', 'provider_transport_disconnect', 'text_generation'],
    'socket drop while reasoning': ['failed', 'provider_transport_disconnect', 'reasoning_generation'],
    'connection reset during tool input': ['failed', 'provider_transport_disconnect', 'tool_input_generation'],
    'drop after an unsafe call materialized': ['failed', 'provider_transport_disconnect', 'tool_call_materialized'],
    'drop after grep returned': ['failed', 'provider_transport_disconnect', 'after_tool_result'],
    '503 then recovered': ['recovered', 'provider_api_error', 'before_first_provider_progress'],
    'quota exhausted': ['failed', 'provider_api_error', 'before_first_provider_progress'],
    'user presses stop': ['cancelled', 'user_cancel', 'text_generation'],
    'host reloads mid-stream': ['failed', 'local_lifecycle_close', 'text_generation'],
    'request setup fails': ['failed', 'request_setup_failure', 'setup'],
    'bash fails': ['failed', 'tool_execution_failure', 'tool_execution'],
    'bash interrupted': ['failed', 'tool_execution_interrupted', 'tool_execution'],
    'agent process exits after finishing the stream': ['failed', 'process_exit', 'finalizing'],
    'agent CLI killed before it started': ['failed', 'process_exit', 'unknown'],
    'agent crashes, run never ends': ['incomplete', 'crash_or_restart_incomplete', 'text_generation'],
    'stream stops with no error recorded': ['failed', 'unknown_interruption', 'reasoning_generation'],
  };

  async function runSpans(): Promise<Map<string, Readonly<Record<string, unknown>>>> {
    const pipeline = createPipeline();
    const kindOfTrace = new Map<string, string>();
    new FleetPlayer(1).play(FLEET.length, (kind) => {
      const run = pipeline.startRun();
      kindOfTrace.set(run.span.spanContext().traceId, kind.name);
      return run;
    });
    // Shutdown finalizes the run left open, as the demo's does.
    await pipeline.provider.shutdown();
    return new Map(pipeline.runSpans().map((s) => [kindOfTrace.get(s.spanContext().traceId) ?? '?', s.attributes]));
  }

  async function verdicts(): Promise<Map<string, [unknown, unknown, unknown]>> {
    const byKind = await runSpans();
    return new Map(
      [...byKind].map(([kind, a]) => [kind, [a['incident.outcome'], a['incident.cause'], a['incident.phase']]]),
    );
  }

  it('gives each kind the verdict its name says', async () => {
    const byKind = await verdicts();
    expect(Object.fromEntries(byKind)).toEqual(VERDICTS);
  });

  it('reaches every cause and every phase in one round of the catalogue', async () => {
    const byKind = [...(await verdicts()).values()];
    expect(new Set(byKind.map(([, cause]) => cause).filter(Boolean))).toEqual(new Set(CAUSES));
    expect(new Set(byKind.map(([, , phase]) => phase).filter(Boolean))).toEqual(new Set(PHASES));
  });

  /**
   * [lost attempts, lower bound, input reported, output reported] of each kind
   * that lost an attempt, in the first round (even runs talk to OpenAI, odd
   * ones to Anthropic): a request refused before streaming used nothing
   * (exact); a stream cut off after Anthropic's `message_start` shows its
   * input, not its output (a floor); one cut off on OpenAI, or before the
   * provider answered, shows nothing (a floor, never a silent zero); a
   * finished attempt of a failed run shows all it used (exact).
   */
  const LOST: Record<string, [number, boolean, boolean, boolean]> = {
    'connect watchdog, retried, recovers': [1, true, false, false],
    'connect watchdog twice': [2, true, false, false],
    'socket drop before first token': [1, true, false, false],
    'socket drop mid-answer': [1, true, true, false],
    'socket drop while reasoning': [1, true, false, false],
    'connection reset during tool input': [1, true, true, false],
    'drop after an unsafe call materialized': [1, true, false, false],
    'drop after grep returned': [1, true, true, false],
    '503 then recovered': [1, false, false, false],
    'quota exhausted': [1, false, false, false],
    'user presses stop': [1, true, false, false],
    'host reloads mid-stream': [1, true, true, false],
    'bash fails': [1, false, true, true],
    'bash interrupted': [1, true, false, false],
    'agent process exits after finishing the stream': [1, false, true, true],
    'stream stops with no error recorded': [1, true, false, false],
    'agent crashes, run never ends': [1, true, true, false],
  };

  it('gives each kind’s run what its lost attempts used, as their provider reported it', async () => {
    const lost = Object.fromEntries(
      [...(await runSpans())]
        .filter(([, a]) => a['incident.lost.attempts'] !== undefined)
        .map(([kind, a]) => [
          kind,
          [
            a['incident.lost.attempts'],
            a['incident.lost.lower_bound'],
            (a['incident.lost.input_tokens'] as number) > 0,
            (a['incident.lost.output_tokens'] as number) > 0,
          ],
        ]),
    );
    expect(lost).toEqual(LOST);
  });
});
