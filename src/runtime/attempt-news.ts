/**
 * Which of an attempt's progress and tool events would tell a reader something
 * new (docs/attributes.md#phases). Parallel tool calls and chatty streams must
 * not spend the span's event limit on events that say nothing new: each state
 * change is written once, and an event that leaves what a reader concludes as
 * it was is not written at all.
 */

/** The phase a reader sees from an attempt's last fact: tool input, a complete call, or anything else. */
type ToolPhase = 'input' | 'materialized' | 'other';

/** What a reader concludes from one attempt's events so far. */
export class AttemptNews {
  /** Keys of the events written once (text, reasoning, progress, pending tools by name). */
  readonly #once = new Set<string>();
  /** Whether tool input streamed. */
  #input = false;
  #phase: ToolPhase = 'other';
  /** Kinds (`side effects/provider executed`) of complete calls written. */
  readonly #materialized = new Set<string>();

  /**
   * Whether the once-only event `key` is news (its first time). When it is, it
   * counts as written, and the phase moves away from tool input: text,
   * reasoning and progress are something else.
   */
  firstOf(key: string): boolean {
    if (this.#once.has(key)) return false;
    this.#once.add(key);
    this.#phase = 'other';
    return true;
  }

  /** Tool input started or completed: a reader now sees tool input. */
  toolInputSeen(): void {
    this.#input = true;
    this.#phase = 'input';
  }

  /** Whether a completed tool input is news: not while another call's input streams or a call is complete. */
  isToolInputCompletedNews(): boolean {
    return !(this.#input && this.#phase !== 'other');
  }

  /** Whether a complete call of `kind` is news: not right after another complete call of that kind. */
  isCallNews(kind: string): boolean {
    return !(this.#phase === 'materialized' && this.#materialized.has(kind));
  }

  /** A complete call of `kind` was written. */
  callSeen(kind: string): void {
    this.#materialized.add(kind);
    this.#phase = 'materialized';
  }

  /** A tool of the run started or ended: the next tool event of this attempt says something new again. */
  toolActivity(): void {
    this.#phase = 'other';
  }
}
