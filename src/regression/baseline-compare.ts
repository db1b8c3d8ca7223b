/**
 * What a run given a baseline reports beyond its checks: whether the document changed since the baseline (and how,
 * src/regression/spec-diff.ts), and how the target's behaviour drifted (src/regression/drift.ts).
 *
 * The baseline's document is the copy its run kept in its report directory (DOCUMENT_COPY), or else the file its
 * report names, when that file still has the SHA-256 the report recorded.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import type { BaselineDiff, RunReport } from '../results/model.js';
import { behaviourDrift } from './drift.js';

/** The name (before its extension) of the copy of its document a run keeps in its report directory. */
export const DOCUMENT_COPY = 'openapi-document';

/** Keeps the run's document next to its reports, so a later run with this one as its baseline can diff it. */
export function keepDocument(documentPath: string, dir: string): string {
  const to = join(dir, `${DOCUMENT_COPY}${extname(documentPath) || '.yaml'}`);
  copyFileSync(documentPath, to);
  return to;
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function baselineDocument(baselinePath: string, baseline: RunReport): string | undefined {
  const dir = statSync(baselinePath).isDirectory() ? baselinePath : dirname(baselinePath);
  const copy = readdirSync(dir).find((f) => f.startsWith(`${DOCUMENT_COPY}.`));
  if (copy) return join(dir, copy);
  for (const candidate of [resolve(baseline.spec.path), resolve(PACKAGE_ROOT, baseline.spec.path)]) {
    if (existsSync(candidate) && sha256(candidate) === baseline.spec.sha256) return candidate;
  }
  return undefined;
}

export async function compareWithBaseline(
  baselinePath: string,
  baseline: RunReport,
  current: RunReport,
  opts: { documentPath?: string | undefined; latencyRatio?: number | undefined },
): Promise<Pick<BaselineDiff, 'document' | 'drift'>> {
  const changed = baseline.spec.sha256 !== current.spec.sha256;
  let document: BaselineDiff['document'] = { changed };
  if (changed) {
    const old = baselineDocument(baselinePath, baseline);
    if (!old || !opts.documentPath) {
      document.note = `the baseline's document (${baseline.spec.path}, SHA-256 ${baseline.spec.sha256.slice(0, 12)}…) is not at hand: its run kept no ${DOCUMENT_COPY} copy and the file has changed since; compare the two with \`fsapi-conformance spec-diff OLD NEW\``;
    } else {
      // Loaded only for a changed document: api-smart-diff and yaml cost ~65 ms of CPU to load, in every run's main
      // thread when this module imported them.
      const { diffDocuments } = await import('./spec-diff.js');
      document = { changed, diff: diffDocuments(old, opts.documentPath) };
    }
  }
  return { document, drift: behaviourDrift(baseline, current, opts.latencyRatio) };
}
