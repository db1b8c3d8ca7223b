/**
 * How sure an inferred thing (a binding's pairing, a value producer's guess) must be to be acted on: below it, it is
 * only a suggestion, shown and never used. One idea, one value: chosen on the bind corpus (docs/binding.md, "How
 * sure bind is") as the lowest that leaves no wrong pairing active.
 */
export const ACTIVE_CONFIDENCE = 0.67;
