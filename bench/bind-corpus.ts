/**
 * bind's inference on a labelled corpus of public vendor documents (bench/bind-labels.yaml): per document, the active
 * entries judged right, doubtful or wrong against the labels, and how many labelled pairings are active. No network:
 * the documents are read from a folder (one subfolder per document, named as in the labels, holding openapi.yaml or
 * openapi.json and a SOURCE.txt); when a document is missing, the script says where to get it and stops.
 *
 *   npx tsx bench/bind-corpus.ts --corpus DIR [--threshold 0.67] [--docs lago,unit] [--verbose]
 *   npx tsx bench/bind-corpus.ts path/to/vendor.yaml ...    # no labels: prints what bind makes active
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';
import { inferBinding } from '../src/binding/infer.js';
import { ACTIVE_CONFIDENCE } from '../src/confidence.js';
import type { SpecDocument } from '../src/catalogue/openapi.js';
import { benchArgs, printTable, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/bind-corpus.ts --corpus DIR [--threshold N] [--docs a,b] [--verbose] | bench/bind-corpus.ts FILE...';
const LABELS = join(import.meta.dirname, 'bind-labels.yaml');

interface Label { operation: string; doubtful?: string[]; reason: string }
interface Doc { source: { repo: string; path: string; commit: string }; labels: Record<string, Label> }

const { values, positionals } = benchArgs(USAGE, { allowPositionals: true, options: { corpus: { type: 'string' }, threshold: { type: 'string' }, docs: { type: 'string' }, verbose: { type: 'boolean' } } });
const threshold = values.threshold === undefined ? ACTIVE_CONFIDENCE : Number(values.threshold);
if (!Number.isFinite(threshold)) usage(USAGE);
const reference = (await loadCatalogue()).spec;

/** Active entries of bind's inference, as reference operation -> { vendor "METHOD path", confidence }. */
function active(spec: SpecDocument, label: string): { reference: string; operation: string; confidence: number }[] {
  const { binding } = inferBinding(spec, reference, label, { threshold });
  return Object.entries(binding.operations ?? {}).map(([ref, e]) => {
    const op = spec.operations.find((o) => o.operationId === e.operation);
    return { reference: ref, operation: op ? `${op.method} ${op.path}` : e.operation, confidence: e.confidence ?? 0 };
  });
}

const fileOf = (dir: string) => ['openapi.yaml', 'openapi.json'].map((f) => join(dir, f)).find((f) => existsSync(f));

if (positionals.length) {
  for (const file of positionals) {
    const spec = (await loadCatalogue({ specPath: resolve(file) })).spec;
    console.log(`${file}:`);
    for (const a of active(spec, file)) console.log(`  ${a.reference.padEnd(24)} <- ${a.operation} (${a.confidence})`);
  }
  process.exit(0);
}
if (!values.corpus) usage(USAGE);
const labels = (parse(readFileSync(LABELS, 'utf8')) as { documents: Record<string, Doc> }).documents;
const names = values.docs ? values.docs.split(',') : Object.keys(labels);
const missing = names.filter((n) => !labels[n] || !fileOf(join(values.corpus!, n)));
if (missing.length) {
  console.error(`the corpus at ${values.corpus} lacks: ${missing.join(', ')}. Get each document at its pinned commit (repo, path, commit below), save it`);
  console.error('as DIR/<name>/openapi.yaml (or .json); docs/binding.md ("The bind corpus") says how three were prepared (Swagger 2.0 converted, refs bundled).');
  for (const n of missing) if (labels[n]) console.error(`  ${n}: https://github.com/${labels[n].source.repo}/blob/${labels[n].source.commit}/${labels[n].source.path}`);
  process.exit(2);
}

const rows: string[][] = [];
const results: object[] = [];
const total = { right: 0, doubtful: 0, wrong: 0, found: 0, labelled: 0 };
for (const name of names) {
  const doc = labels[name]!;
  const spec = (await loadCatalogue({ specPath: fileOf(join(values.corpus, name))! })).spec;
  const entries = active(spec, name).map((a) => {
    const l = doc.labels[a.reference];
    const verdict = l?.operation === a.operation ? 'right' : l?.doubtful?.includes(a.operation) ? 'doubtful' : 'wrong';
    return { ...a, verdict, reason: l ? l.reason : 'no label for this reference operation' };
  });
  const right = Object.entries(doc.labels).filter(([, l]) => l.operation !== 'none');
  const found = right.filter(([ref, l]) => entries.some((e) => e.reference === ref && e.operation === l.operation)).length;
  const count = (v: string) => entries.filter((e) => e.verdict === v).length;
  total.right += count('right');
  total.doubtful += count('doubtful');
  total.wrong += count('wrong');
  total.found += found;
  total.labelled += right.length;
  rows.push([name, `${doc.source.repo}@${doc.source.commit.slice(0, 7)}`, String(entries.length), String(count('right')), String(count('doubtful')), String(count('wrong')), `${found}/${right.length}`]);
  results.push({ document: name, source: doc.source, entries });
  if (values.verbose) for (const e of entries) console.log(`  ${name}: ${e.verdict.padEnd(8)} ${e.reference} <- ${e.operation} (${e.confidence}): ${e.reason}`);
}
rows.push(['total', '', String(total.right + total.doubtful + total.wrong), String(total.right), String(total.doubtful), String(total.wrong), `${total.found}/${total.labelled}`]);
console.log(`threshold ${threshold}`);
printTable(['document', 'source', 'active', 'right', 'doubtful', 'wrong', 'labelled found'], rows);
console.log(`results: ${writeResult('bind-corpus', { threshold, total, documents: results })}`);
