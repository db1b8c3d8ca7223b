/**
 * The HTML report: Allure Report 3 (`allure` package) renders dir/allure-results (written during the run by
 * allure-vitest) into one self-contained dir/allure-report/index.html.
 *
 * The `allure` package exports no programmatic generate (only defineConfig), so its own bin is run with this
 * Node (process.execPath), found through module resolution, never a global install. The child gets a minimal
 * environment (no API key, no CI tokens), our allurerc.mjs, and a scratch working directory, so it can neither
 * read a secret nor write outside the report. The awesome template always embeds a Google Analytics tag; it is
 * removed from the page so that opening an archived report makes no request anywhere.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromRoot } from '../paths.js';
import { UsageError } from '../errors.js';

export const ALLURE_RC_PATH = fromRoot('src', 'reports', 'allurerc.mjs');
export const ALLURE_RESULTS_DIR = 'allure-results';
export const ALLURE_REPORT_DIR = 'allure-report';
/** Allure 3's history (one JSON line per HTML build), kept in the report root: its trend charts read it. */
export const ALLURE_HISTORY_FILE = 'allure-history.jsonl';

/** The allure CLI script of the installed `allure` package. */
export function allureCli(): string {
  const main = createRequire(import.meta.url).resolve('allure');
  for (let d = dirname(main); d !== dirname(d); d = dirname(d)) {
    const pkgPath = join(d, 'package.json');
    if (!existsSync(pkgPath)) continue;
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { name?: string; bin?: string | Record<string, string> };
    if (pkg.name !== 'allure') continue;
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.['allure'];
    if (!bin) break;
    return join(d, bin);
  }
  throw new Error('the allure package has no CLI: reinstall dependencies (npm ci)');
}

/** What the allure child may see: enough to run Node, nothing else. */
function childEnv(history?: { path: string; limit: number }): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'USERPROFILE', 'TMPDIR', 'TEMP', 'TMP', 'SystemRoot', 'LANG'];
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', CI: '' };
  // allurerc.mjs reads these two: the allure CLI has no flag for the history file.
  if (history) Object.assign(env, { FSAPI_ALLURE_HISTORY: history.path, FSAPI_ALLURE_HISTORY_LIMIT: String(history.limit) });
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

const ANALYTICS = /\s*<script async src="https:\/\/www\.googletagmanager\.com\/[^"]*"><\/script>\s*<script>\s*window\.dataLayer[\s\S]*?<\/script>/;

function run(args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (b: Buffer) => {
      output = (output + b.toString('utf8')).slice(-8_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      output += `\n(timed out after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Builds dir/allure-report/index.html from dir/allure-results; replaces an earlier build only once the new one
 * is complete. Returns the files of the HTML report (absolute paths).
 */
export async function buildAllureHtml(dir: string, opts: { name?: string; timeoutMs?: number; history?: { path: string; limit: number }; progress?: (line: string) => void } = {}): Promise<string[]> {
  const results = join(dir, ALLURE_RESULTS_DIR);
  if (!existsSync(results) || !statSync(results).isDirectory()) {
    throw new UsageError(`no ${ALLURE_RESULTS_DIR}/ directory: the HTML report is built from the results a run writes there`, {
      file: dir,
      fix: 'give a report directory written by `fsapi-conformance run` (or merged from shard directories, not files)',
    });
  }
  const out = join(dir, `.${ALLURE_REPORT_DIR}-${process.pid}-${Date.now()}`);
  const scratch = await mkdtemp(join(tmpdir(), 'fsapi-allure-'));
  try {
    const args = [allureCli(), 'generate', results, '--output', out, '--config', ALLURE_RC_PATH, '--cwd', scratch];
    if (opts.name) args.push('--report-name', opts.name);
    // Allure takes tens of seconds and says nothing meanwhile: each phase gets its line, so a wait reads as work.
    const t0 = performance.now();
    opts.progress?.(`html: Allure builds ${ALLURE_REPORT_DIR}/index.html from ${(await readdir(results)).length} result files (18-33 s for a full run on 2 cores)`);
    const { code, output } = await run(args, scratch, opts.timeoutMs ?? 300_000, childEnv(opts.history));
    opts.progress?.(`html: built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const index = join(out, 'index.html');
    if (code !== 0 || !existsSync(index)) {
      throw new Error(`allure generate failed (exit ${code}): ${output.trim().split('\n').slice(-5).join(' | ')}`);
    }
    const html = await readFile(index, 'utf8');
    const stripped = html.replace(ANALYTICS, '');
    if (stripped !== html) await writeFile(index, stripped);
    const final = join(dir, ALLURE_REPORT_DIR);
    await rm(final, { recursive: true, force: true });
    await rename(out, final);
    return (await readdir(final, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  } finally {
    await rm(out, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  }
}
