/**
 * The requirement levels, in order of weight. A module of its own so that code which only names levels (the
 * verdict, the CLI's help) does not load the catalogue's YAML and JSON Schema machinery.
 */
export const LEVELS = ['MUST', 'CONTRACT', 'SHOULD', 'PROFILE', 'INFO'] as const;
export type Level = (typeof LEVELS)[number];

/** Levels whose failure makes a target non-conformant (SHOULD and PROFILE count too under --strict, as failures). */
export const BLOCKING_LEVELS: readonly Level[] = ['MUST', 'CONTRACT'];
export const isBlockingLevel = (level: Level): boolean => BLOCKING_LEVELS.includes(level);
