/**
 * A document's regular expressions (`pattern`, `patternProperties`) run on RE2's linear-time engine (re2js, pure
 * JavaScript), never on a backtracking one: on ECMAScript's engine a hostile pattern (`^(a+)+$` against forty
 * letters and a `!`) takes longer than any run, and a worker stuck in one match cannot even be interrupted. The
 * pattern is read as ECMAScript writes it (`\u0041`, `(?<name>`, `[^]` translated), lookaheads at its start as
 * conditions RE2 checks apart. What RE2 cannot run at all (other lookaround, backreferences, a repeat count over
 * 1,000) is never run on the other engine instead: using it throws
 * UnsupportedPattern, naming the construct and where the document writes the pattern, so what needed it is
 * skipped with that cause.
 */
import { createRequire } from 'node:module';
import type * as Re2js from 're2js';

let engine: typeof Re2js.RE2JS | undefined;
/** re2js, loaded on first use (synchronously, its CommonJS build): a thread that never meets a vendor's pattern (every thread of a run against the reference profile) does not pay its ~90 ms of loading. */
const re2 = (): typeof Re2js.RE2JS => (engine ??= (createRequire(import.meta.url)('re2js') as typeof Re2js).RE2JS);

/** What ajv and the suite's own tests need of a compiled pattern. */
export interface PatternTest {
  test(text: string): boolean;
  toString(): string;
}

/** A pattern of the document that the linear-time engine cannot run, met where a value had to be tested against it. */
export class UnsupportedPattern extends Error {
  override readonly name = 'UnsupportedPattern';
  constructor(
    readonly pattern: string,
    /** The construct the engine refused ("a lookahead (?=...)"), for people. */
    readonly construct: string,
    /** Where the document writes the pattern (JSON pointers), when known. */
    readonly at: readonly string[],
    /** What needed it ("validating createPayment's 201 answer"), when known. */
    readonly during?: string,
  ) {
    const where = at.length ? ` at ${at.slice(0, 3).join(', ')}${at.length > 3 ? ` (+${at.length - 3} more)` : ''}` : '';
    super(
      `${during ? `${during}: ` : ''}the document's pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 77)}...` : pattern)}${where} uses ${construct}, which the suite's linear-time pattern engine (RE2) cannot run, and a backtracking engine could spin on it without end: no value is tested against it (rewrite the pattern without it)`,
    );
  }

  /** The same refusal, saying what needed the pattern. */
  in(during: string): UnsupportedPattern {
    return new UnsupportedPattern(this.pattern, this.construct, this.at, this.during ? `${during}, ${this.during}` : during);
  }
}

/** RE2's refusal in a reader's words: which construct it was. */
function constructOf(message: string): string {
  if (/`\(\?[=!]/.test(message)) return 'a lookahead ((?= or (?!)';
  if (/`\(\?<[=!]/.test(message) || /\(\?<[=!]/.test(message)) return 'a lookbehind ((?<= or (?<!)';
  if (/escape sequence: `\\[1-9]/.test(message)) return 'a backreference (\\1...)';
  if (/repeat count|repetition/.test(message)) return 'a repeat count over 1,000';
  return `a construct RE2 refuses (${message.replace(/^error parsing regexp: /, '')})`;
}

const compiled = new Map<string, PatternTest | UnsupportedPattern>();

/** A pattern on RE2, read as ECMAScript writes it; throws RE2's refusal. */
const onRe2 = (pattern: string): { test: (text: string) => boolean } => re2().compile(re2().translateRegExp(pattern));

/** The end of the group that opens at `at` (its closing parenthesis), past escapes and character classes. */
function groupEnd(pattern: string, at: number): number | undefined {
  let depth = 0;
  let inClass = false;
  for (let i = at; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return undefined;
}

/**
 * Lookaheads right after the pattern's `^` (`^(?=.*[1-9])...`, `^(?!.*--)...`, the usual way to add a rule to a
 * pattern) are conditions on the whole text from its start: each is its own RE2 search anchored at the start,
 * which gives ECMAScript's meaning in linear time. Undefined when the pattern has none there.
 */
function withLeadingLookaheads(pattern: string): PatternTest | undefined {
  if (!pattern.startsWith('^(?=') && !pattern.startsWith('^(?!')) return undefined;
  const conditions: { holds: boolean; re: { test: (text: string) => boolean } }[] = [];
  let at = 1;
  while (pattern.startsWith('(?=', at) || pattern.startsWith('(?!', at)) {
    const end = groupEnd(pattern, at);
    if (end === undefined) return undefined;
    conditions.push({ holds: pattern[at + 2] === '=', re: onRe2(`^(?:${pattern.slice(at + 3, end)})`) });
    at = end + 1;
  }
  const rest = onRe2(`^${pattern.slice(at)}`);
  return { test: (text) => conditions.every((c) => c.re.test(text) === c.holds) && rest.test(text), toString: () => `/${pattern}/u` };
}

/**
 * The pattern on the linear-time engine; one the engine cannot take is returned as a test that throws
 * UnsupportedPattern when used (a schema that holds it still compiles, and validates every value that never
 * reaches it). `where` finds the pattern in the document for that message.
 */
export function linearPattern(pattern: string, where: (pattern: string) => readonly string[] = () => []): PatternTest {
  let known = compiled.get(pattern);
  if (!known) {
    try {
      let made = withLeadingLookaheads(pattern);
      if (!made) {
        const re = onRe2(pattern);
        made = { test: (text) => re.test(text), toString: () => `/${pattern}/u` };
      }
      known = made;
    } catch (e) {
      known = new UnsupportedPattern(pattern, constructOf((e as Error).message), []);
    }
    compiled.set(pattern, known);
  }
  if (!(known instanceof UnsupportedPattern)) return known;
  const refused = known;
  return {
    test: () => {
      throw new UnsupportedPattern(refused.pattern, refused.construct, where(refused.pattern));
    },
    toString: () => `/${pattern}/u (unsupported)`,
  };
}

/** Whether the linear-time engine can run the pattern (what the value generator may be given). */
export function runsLinear(pattern: string): boolean {
  linearPattern(pattern);
  return !(compiled.get(pattern) instanceof UnsupportedPattern);
}

/** Whether a text matches a pattern, or undefined when the pattern cannot be run in linear time. */
export function matchesLinear(pattern: string, text: string): boolean | undefined {
  return runsLinear(pattern) ? linearPattern(pattern).test(text) : undefined;
}

/**
 * The pointers of each pattern a document writes (`pattern` values and `patternProperties` names), for the message
 * of one that cannot be run. Walked once, on first need.
 */
export function patternLocator(doc: unknown): (pattern: string) => readonly string[] {
  let byPattern: Map<string, string[]> | undefined;
  const escape = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  const add = (pattern: string, at: string) => {
    const list = byPattern!.get(pattern) ?? [];
    if (!byPattern!.has(pattern)) byPattern!.set(pattern, list);
    list.push(at);
  };
  const walk = (v: unknown, at: string): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}/${i}`));
    if (typeof v !== 'object' || v === null) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'pattern' && typeof x === 'string') add(x, `#${at}/pattern`);
      if (k === 'patternProperties' && typeof x === 'object' && x !== null) for (const name of Object.keys(x)) add(name, `#${at}/patternProperties/${escape(name)}`);
      walk(x, `${at}/${escape(k)}`);
    }
  };
  return (pattern) => {
    if (!byPattern) {
      byPattern = new Map();
      walk(doc, '');
    }
    return byPattern.get(pattern) ?? [];
  };
}
