/** The one-line terminal progress bar of the demo (src/demo/progress-line.ts): its drawing, its throttle, its width, and erasing it. */
import { describe, expect, it } from 'vitest';
import { ProgressLine } from '../../src/demo/progress-line.js';

const ESC = '\u001b';

/** A terminal that keeps what was written, `columns` wide; the clock is moved by hand. */
function terminal(columns?: number) {
  const writes: string[] = [];
  let time = 0;
  return {
    writes,
    target: { write: (text: string) => writes.push(text), columns },
    now: () => time,
    advance: (ms: number) => {
      time += ms;
    },
  };
}

describe('ProgressLine', () => {
  it.each<[number, number, number | undefined, string]>([
    [0, 10_000, 80, `\r[------------------------------]   0% 0/10,000 runs${ESC}[K`],
    [4200, 10_000, 80, `\r[#############-----------------]  42% 4,200/10,000 runs${ESC}[K`],
    [10_000, 10_000, 80, `\r[##############################] 100% 10,000/10,000 runs${ESC}[K`],
    [12, 10, 80, `\r[##############################] 100% 12/10 runs${ESC}[K`],
    [0, 0, 80, `\r[##############################] 100% 0/0 runs${ESC}[K`],
    [5, 10, 60, `\r[##########----------]  50% 5/10 runs${ESC}[K`],
    [5, 10, 20, `\r[#####-----]  50% 5/10 runs${ESC}[K`],
    [5, 10, 300, `\r[###############---------------]  50% 5/10 runs${ESC}[K`],
    [5, 10, undefined, `\r[###############---------------]  50% 5/10 runs${ESC}[K`],
  ])('draws %d of %d on a %s-column terminal', (done, total, columns, line) => {
    const t = terminal(columns);
    new ProgressLine(t.target, total, 'runs', 100, t.now).update(done);
    expect(t.writes).toEqual([line]);
  });

  it('redraws at most once per interval, but always draws the first and the last step', () => {
    const t = terminal(80);
    const bar = new ProgressLine(t.target, 100, 'runs', 100, t.now);
    bar.update(1);
    t.advance(50);
    bar.update(2);
    t.advance(49);
    bar.update(3);
    t.advance(1);
    bar.update(4);
    t.advance(10);
    bar.update(100);
    expect(t.writes.map((w) => / (\d+)\/100 runs/.exec(w)![1])).toEqual(['1', '4', '100']);
  });

  it('erases the bar when done, only if it drew one, and draws again after', () => {
    const t = terminal(80);
    const bar = new ProgressLine(t.target, 10, 'steps', 100, t.now);
    bar.done();
    expect(t.writes).toEqual([]);
    bar.update(3);
    bar.done();
    bar.done();
    expect(t.writes.slice(1)).toEqual([`\r${ESC}[K`]);
    bar.update(4);
    expect(t.writes[2]).toBe(`\r[############------------------]  40% 4/10 steps${ESC}[K`);
  });
});
