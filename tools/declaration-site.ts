/**
 * A check's site as a stable name: its file and the top-level declaration that defines it
 * (`src/checks/auth.ts#challengeCheck`), not a line number, so that a comment or a blank line added to a check file
 * changes neither spec/requirements.yaml (whose SHA-256 a certification package names) nor any test. The name changes
 * only when the code does: a declaration renamed or a check moved to another one.
 */

/** A top-level (column 0) function, class or variable declaration, and the name it declares. */
const DECLARATION = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+|class\s+|(?:const|let|var)\s+)([A-Za-z_$][\w$]*)/;

/** The name of the top-level declaration that holds 1-based `line` of `source`, if any. */
export function declarationAt(source: string, line: number): string | undefined {
  const lines = source.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const name = DECLARATION.exec(lines[i]!)?.[1];
    if (name) return name;
  }
  return undefined;
}

/** The 1-based line where `source` declares `name` at the top level, if it does. */
export function declarationLine(source: string, name: string): number | undefined {
  const i = source.split('\n').findIndex((l) => DECLARATION.exec(l)?.[1] === name);
  return i < 0 ? undefined : i + 1;
}

/** "file#declaration" for a definition at `file`:`line`, or the file alone when no declaration holds it. */
export function siteName(file: string, source: string, line: number): string {
  const name = declarationAt(source, line);
  return name ? `${file}#${name}` : file;
}
