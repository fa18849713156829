/** Literal starts of the built-in shapes, and characters their parts accept. */
export declare const PREFIXES: readonly string[];
/** `unit` repeated to exactly `bytes` characters. */
export declare function repeatTo(unit: string, bytes: number): string;
/** Adversarial inputs of `bytes` characters each, as [what it repeats, input] pairs. */
export declare function adversarialInputs(bytes: number): [string, string][];
/** Prose, as an agent's logs hold it: the rules' triggers barely fire. */
export declare function plainText(bytes: number): string;
/** Deterministic pseudo-random text of `bytes` characters from `alphabet`. */
export declare function randomText(alphabet: string, bytes: number, seed?: number): string;
