/**
 * Task lifecycle: only the moves in the transition table are legal, terminal
 * states stay terminal, and a failed task can be reassigned.
 */
import { describe, expect, it } from 'vitest';
import {
  InvalidTaskTransitionError,
  TASK_STATES,
  TASK_TRANSITIONS,
  canTransition,
  isTaskState,
  isTerminal,
  transition,
} from '../../src/model/task-lifecycle.js';
import type { TaskState } from '../../src/model/task-lifecycle.js';

// The expected table, written out independently so a change to the source table fails here.
const EXPECTED: Record<TaskState, readonly TaskState[]> = {
  CREATED: ['ASSIGNED', 'CANCELLED'],
  ASSIGNED: ['IN_PROGRESS', 'CANCELLED', 'CREATED', 'FAILED', 'INTERRUPTED'],
  IN_PROGRESS: ['COMPLETED', 'FAILED', 'INTERRUPTED', 'CANCELLED'],
  FAILED: ['ASSIGNED', 'CANCELLED'],
  INTERRUPTED: ['IN_PROGRESS', 'FAILED', 'CANCELLED'],
  COMPLETED: [],
  CANCELLED: [],
};

const allPairs = TASK_STATES.flatMap((from) => TASK_STATES.map((to) => ({ from, to })));
const allowed = allPairs.filter(({ from, to }) => EXPECTED[from].includes(to));
const forbidden = allPairs.filter(({ from, to }) => !EXPECTED[from].includes(to));

describe('task lifecycle', () => {
  it('enumerates all 49 state pairs and the table matches the documented one', () => {
    expect(allPairs).toHaveLength(49);
    expect(allowed.length + forbidden.length).toBe(49);
    for (const state of TASK_STATES) expect([...TASK_TRANSITIONS[state]].sort()).toEqual([...EXPECTED[state]].sort());
  });

  it.each(allowed)('allows $from -> $to', ({ from, to }) => {
    expect(canTransition(from, to)).toBe(true);
    expect(transition(from, to)).toBe(to);
  });

  it.each(forbidden)('rejects $from -> $to with an error naming both states', ({ from, to }) => {
    expect(canTransition(from, to)).toBe(false);
    let caught: unknown;
    try {
      transition(from, to);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidTaskTransitionError);
    const error = caught as InvalidTaskTransitionError;
    expect(error.from).toBe(from);
    expect(error.to).toBe(to);
    expect(error.name).toBe('InvalidTaskTransitionError');
    expect(error.message).toContain(`${from} -> ${to}`);
  });

  it.each([
    { state: 'COMPLETED', terminal: true },
    { state: 'CANCELLED', terminal: true },
    { state: 'CREATED', terminal: false },
    { state: 'ASSIGNED', terminal: false },
    { state: 'IN_PROGRESS', terminal: false },
    { state: 'FAILED', terminal: false },
    { state: 'INTERRUPTED', terminal: false },
  ] as const)('isTerminal($state) is $terminal', ({ state, terminal }) => {
    expect(isTerminal(state)).toBe(terminal);
  });

  it.each(['COMPLETED', 'CANCELLED'] as const)('terminal state %s has no way out, not even to itself', (state) => {
    for (const to of TASK_STATES) {
      expect(canTransition(state, to)).toBe(false);
      expect(() => transition(state, to)).toThrow(InvalidTaskTransitionError);
    }
  });

  it('lets a FAILED task be reassigned and run again to completion', () => {
    const path: TaskState[] = ['CREATED', 'ASSIGNED', 'IN_PROGRESS', 'FAILED', 'ASSIGNED', 'IN_PROGRESS', 'COMPLETED'];
    let state: TaskState = path[0]!;
    for (const next of path.slice(1)) state = transition(state, next);
    expect(state).toBe('COMPLETED');
    expect(isTerminal('FAILED')).toBe(false);
  });

  it('lets an INTERRUPTED task resume, or fail and then be reassigned', () => {
    expect(transition('INTERRUPTED', 'IN_PROGRESS')).toBe('IN_PROGRESS');
    expect(transition(transition('INTERRUPTED', 'FAILED'), 'ASSIGNED')).toBe('ASSIGNED');
  });

  it('the error message names both states and the allowed targets', () => {
    expect(() => transition('FAILED', 'COMPLETED')).toThrow(/FAILED -> COMPLETED.*ASSIGNED, CANCELLED/);
    expect(() => transition('COMPLETED', 'ASSIGNED')).toThrow(/COMPLETED -> ASSIGNED.*COMPLETED is terminal/);
  });

  it.each(TASK_STATES)('isTaskState accepts %s', (state) => {
    expect(isTaskState(state)).toBe(true);
  });

  it.each([
    'created',
    'DONE',
    '',
    ' ASSIGNED',
    'toString',
    '__proto__',
    undefined,
    null,
    0,
    true,
    {},
    ['CREATED'],
    Symbol('CREATED'),
  ])('isTaskState rejects %s', (value) => {
    expect(isTaskState(value)).toBe(false);
  });

  it('canTransition returns false, not a crash, for an unchecked unknown state', () => {
    expect(canTransition('DONE' as TaskState, 'CREATED')).toBe(false);
    expect(canTransition('toString' as TaskState, 'CREATED')).toBe(false);
  });
});
