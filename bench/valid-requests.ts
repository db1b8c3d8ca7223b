/**
 * Failed checks that rest on a request the document forbids. Given report folders of runs against vendor documents
 * (Prism mocks, or the vendors themselves), it takes every failed or warned check that sent a request it meant as
 * valid and validates each such request against the document with an independent validator
 * (bench/valid-requests-judge.ts). The target's answer is not read: only whether the suite's own request was valid.
 *
 *   npx tsx bench/valid-requests.ts REPORT[=DOCUMENT] [REPORT[=DOCUMENT] ...] [--out DIR]
 *
 * REPORT is a run's report folder (the one holding conformance.json) or a report root (its latest/, else its one
 * run); DOCUMENT defaults to the document the run names (conformance.json spec.path, relative to where the run was
 * started: give it when that is not here).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { judgeRun, requestValidator, type DocumentFigures, type JudgedCheck } from './valid-requests-judge.js';
import { benchArgs, printTable, readReport, RESULTS_DIR, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/valid-requests.ts REPORT[=DOCUMENT] [REPORT[=DOCUMENT] ...] [--out DIR]';

/** The run folder under what was given: it, its latest/, or its single timestamped run. */
function runFolder(given: string): string {
  if (existsSync(join(given, 'conformance.json'))) return given;
  if (existsSync(join(given, 'latest', 'conformance.json'))) return join(given, 'latest');
  const runs = readdirSync(given, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(join(given, d.name, 'conformance.json')));
  if (runs.length !== 1) usage(`${USAGE}\n${given}: ${runs.length ? `${runs.length} runs here, name one` : 'no conformance.json here'}`);
  return join(given, runs[0]!.name);
}

const readDocument = (file: string): object => {
  const text = readFileSync(file, 'utf8');
  return (/\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text)) as object;
};

async function main(): Promise<void> {
  const { values, positionals } = benchArgs(USAGE, { allowPositionals: true, options: { out: { type: 'string' } } });
  if (positionals.length === 0) usage(USAGE);
  const outDir = resolve(values.out ?? join(RESULTS_DIR, 'valid-requests'));
  mkdirSync(outDir, { recursive: true });
  const rows: { document: string; report: string; title: string; figures: DocumentFigures }[] = [];
  for (const arg of positionals) {
    const [reportArg, docArg] = arg.split('=') as [string, string | undefined];
    const folder = runFolder(resolve(reportArg));
    const report = readReport(join(folder, 'conformance.json'));
    const docFile = resolve(docArg ?? report.spec.path ?? usage(`${USAGE}\n${folder}: the run names no document; give REPORT=DOCUMENT`));
    const { checks, figures } = judgeRun(report, await requestValidator(readDocument(docFile)));
    const name = basename(docFile).replace(/\.(json|ya?ml)$/i, '');
    writeFileSync(join(outDir, `${name}.jsonl`), checks.filter((c) => c.requests.length > 0).map((c) => JSON.stringify(line(name, c))).join('\n') + '\n');
    rows.push({ document: docFile, report: folder, title: report.spec.title ?? name, figures });
  }
  printTable(
    ['document', 'failed', 'warned', 'claim a valid request', 'on an invalid request', 'requests judged', 'invalid', 'not judged'],
    rows.map(({ title, figures: f }) => [title, String(f.failed), String(f.warned), String(f.claim_valid), String(f.on_invalid_request), String(f.requests_judged), String(f.requests_invalid), String(f.requests_not_judged)]),
  );
  for (const { title, figures } of rows) {
    if (!figures.top_reasons.length) continue;
    console.log(`\n${title}: top reasons (checks)`);
    for (const r of figures.top_reasons) console.log(`  ${r.checks}  ${r.reason}`);
  }
  const total = rows.reduce((n, r) => n + r.figures.on_invalid_request, 0);
  console.log(`\n${total} failed or warned check${total === 1 ? '' : 's'} rest on an invalid request; each with its request and the validator's errors: ${outDir}/<document>.jsonl`);
  console.log(`results: ${writeResult('valid-requests', { validator: 'openapi-backend + ajv-formats', documents: rows })}`);
}

/** One JSONL line: the check, and each request it meant as valid with the validator's verdict. */
const line = (document: string, c: JudgedCheck) => ({
  document,
  check: c.id,
  requirement: c.requirement,
  status: c.status,
  on_invalid_request: c.invalid,
  requests: c.requests.map((q) => ({ operation: q.operation, method: q.method, url: q.url, headers: q.request.headers, body: q.request.body, verdict: q.verdict })),
});

await main();
