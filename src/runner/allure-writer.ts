import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { getTestResultHistoryId, getTestResultTestCaseId, stringifyEnvInfo, type ReporterRuntime, type Writer } from 'allure-js-commons/sdk/reporter';
import { Status, type Label, type TestResult } from 'allure-js-commons';
import type { RuntimeMessage } from 'allure-js-commons/sdk';
import type { RunnerTask } from 'vitest';
import type { Reporter, TestCase, Vitest } from 'vitest/node';
import { groupTag, isGroupSlug } from '../catalogue/groups.js';
import { mdCode } from '../reports/markdown-text.js';
import type { Requirement, RequirementCatalogue } from '../catalogue/requirements.js';
import type { CheckResult, CheckStatus } from '../results/model.js';
import { definitionOf } from '../results/definition.js';
import { conflictOf, type DeclaredConflict } from '../results/document-conflicts.js';
import { AllureTestResults, plainTest } from './allure-test-result.js';

type Param<K extends keyof Writer, I extends number = 0> = Parameters<Writer[K]>[I];

/**
 * What waits in memory before it is written: about a full embedded run's results (13 MB). A 400-operation vendor
 * document's run makes some 100 MB of them, which waited whole until the run ended.
 */
const PENDING_CHARS = 16 * 1024 * 1024;

/**
 * Writes allure-results like allure-js-commons' FileSystemWriter, but in slices: no fsync per file, and no file
 * created as each check ends. Created during the run one by one, some 2600 files cost about 2.5 s of CPU (a third of
 * it in the kernel, waking threads for each open, write and close) in the process where the embedded sandbox answers
 * requests; written in one loop they take a tenth of a second. They wait in memory until the run ends or
 * PENDING_CHARS of them wait, whichever comes first. A crashed run loses the results not yet written either way;
 * SHA256SUMS, written last, covers the files.
 */
export class DeferredAllureWriter implements Writer {
  private pending: [name: string, data: string | Buffer][] = [];
  private pendingChars = 0;
  /** What the slices written so far made: each file's SHA-256 by its path in the report directory, and what failed. */
  private hashes = new Map<string, string>();
  private files = 0;
  private failures = 0;
  private firstFailure: string | undefined;
  private folderFailure: string | undefined;

  constructor(
    private readonly resultsDir: string,
    private readonly maxPending = PENDING_CHARS,
  ) {}

  private write(name: string, data: string | Buffer): void {
    this.pending.push([name, data]);
    this.pendingChars += data.length;
    if (this.pendingChars >= this.maxPending) this.writePending();
  }

  /**
   * Writes what waits, one file after another, synchronously: creating ~2600 files in one folder took 0.5-1 s here
   * that way, and 1.1-1.6 s from libuv's threads, one or eight at a time.
   */
  private writePending(): void {
    const files = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    if (!files.length) return;
    this.files += files.length;
    if (this.folderFailure) {
      this.failures += files.length;
      return;
    }
    try {
      mkdirSync(this.resultsDir, { recursive: true });
    } catch (e) {
      this.folderFailure = `the folder ${this.resultsDir} cannot be made (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      this.failures += files.length;
      return;
    }
    const folder = basename(this.resultsDir);
    for (const [name, data] of files) {
      try {
        writeFileSync(join(this.resultsDir, name), data);
        this.hashes.set(`${folder}/${name}`, hash('sha256', data, 'hex'));
      } catch (e) {
        this.failures++;
        this.firstFailure ??= `${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
      }
    }
  }

  /**
   * Writes every file handed over so far; says what could not be written since the last flush, if anything.
   * `written` gets the SHA-256 of each file written since then, by its path in the report directory (the results
   * folder's parent), so SHA256SUMS need not read them back.
   */
  flush(written?: Map<string, string>): string | undefined {
    this.writePending();
    for (const [path, sha] of this.hashes) written?.set(path, sha);
    const { files, failures, firstFailure, folderFailure } = this;
    this.hashes = new Map();
    this.files = this.failures = 0;
    this.firstFailure = this.folderFailure = undefined;
    if (!failures) return undefined;
    return folderFailure ?? `${failures} of ${files} files could not be written (first: ${firstFailure})`;
  }

  writeResult(result: Param<'writeResult'>): void {
    this.write(`${result.uuid}-result.json`, JSON.stringify(result));
  }
  writeGroup(result: Param<'writeGroup'>): void {
    this.write(`${result.uuid}-container.json`, JSON.stringify(result));
  }
  writeAttachment(name: string, content: Buffer): void {
    this.write(name, content);
  }
  writeAttachmentFromPath(name: string, from: string): void {
    this.write(name, readFileSync(from));
  }
  writeEnvironmentInfo(info: Param<'writeEnvironmentInfo'>): void {
    this.write('environment.properties', stringifyEnvInfo(info));
  }
  writeCategoriesDefinitions(categories: Param<'writeCategoriesDefinitions'>): void {
    this.write('categories.json', JSON.stringify(categories));
  }
  writeGlobals(name: string, info: Param<'writeGlobals', 1>): void {
    this.write(name, JSON.stringify(info));
  }
}

const SEVERITY = { MUST: 'blocker', CONTRACT: 'critical', SHOULD: 'normal', PROFILE: 'minor', INFO: 'trivial' } as const;

/**
 * A check's status in Allure's terms. Allure reads red (`failed`) as "the product is wrong" and yellow (`broken`)
 * as "the test could not complete", which is what `failed` and `error` mean here. A warning (a SHOULD or PROFILE
 * finding, which does not change the verdict unless --strict) is `passed`, as in JUnit, so that Allure's red
 * count is the run's non-conformances; it carries the `warning` tag (the tree filters by tag) and its finding
 * (warningNote).
 */
const ALLURE_STATUS: Record<CheckStatus, Status> = {
  passed: Status.PASSED,
  failed: Status.FAILED,
  warning: Status.PASSED,
  skipped: Status.SKIPPED,
  error: Status.BROKEN,
};

/** What other parts of a result may say about why (fields that later versions of CheckResult may carry). */
type Causes = { cause?: unknown; skip_cause?: unknown };

/**
 * A warning is `passed` in Allure, whose page shows no message for a passed test: its finding heads the
 * description instead (Markdown; the target's text as a code span, so nothing in it is interpreted).
 */
const warningNote = (r: CheckResult) =>
  r.status === 'warning' ? `**Warning** (${r.level}: does not change the verdict; --strict makes it a failure): ${mdCode(r.message ?? '')}\n\n` : '';

const groupTitle = (group: string) => (isGroupSlug(group) ? groupTag(group) : group);

/**
 * The Allure metadata of one check, as the runtime messages allure-js-commons' test API would have sent from the
 * worker: epic (group), feature (family), story (requirement), severity (level), the requirement and its level,
 * the operation, the standard's link, a description citing the clause, the evidence, a `warning` tag, and the
 * cause of an error or skip when the result names one.
 */
export function allureMessages(r: CheckResult, req: Requirement): RuntimeMessage[] {
  const { cause, skip_cause } = r as CheckResult & Causes;
  const labels: Label[] = [
    { name: 'epic', value: groupTitle(r.group) },
    { name: 'feature', value: r.family },
    { name: 'story', value: r.requirement },
    { name: 'severity', value: SEVERITY[req.level] },
    { name: 'requirement', value: r.requirement },
    { name: 'level', value: req.level },
    ...(r.operation ? [{ name: 'operation', value: r.operation }] : []),
    ...(r.status === 'warning' ? [{ name: 'tag', value: 'warning' }] : []),
    ...(typeof cause === 'string' ? [{ name: 'cause', value: cause }] : []),
    ...(typeof skip_cause === 'string' ? [{ name: 'skip_cause', value: skip_cause }] : []),
  ];
  const at = definitionOf(r, req.checks);
  const messages: RuntimeMessage[] = [
    {
      type: 'metadata',
      data: {
        labels,
        ...('standard' in req.source && req.source.url ? { links: [{ url: req.source.url, name: `${r.requirement}: ${req.source.standard}` }] } : {}),
        description: `${warningNote(r)}${req.statement}\n\nSource: ${r.clause}\n\nVerification: ${req.verification}${at ? `\n\nDefined at: ${at}` : ''}`,
      },
    },
  ];
  if (r.exchanges.length) {
    messages.push({
      type: 'attachment_content',
      data: { name: 'evidence.json', content: JSON.stringify(r.exchanges), encoding: 'utf8', contentType: 'application/json', wrapInStep: true },
    });
  }
  return messages;
}

const PATH_LABELS = new Set(['parentSuite', 'suite', 'subSuite', 'package']);
/** The top of the Allure tree's branch for the checks grouped under the document's contradictions of the seed. */
export const CONFLICTS_SUITE = 'The document contradicts the seed';

/**
 * Settles an Allure result from the check's own result, just before it is written. allure-vitest guesses the
 * status from the thrown error's class (anything but an assertion error is `broken`) and builds the tree from
 * the file path and describe blocks; here the status is the check's (ALLURE_STATUS), its message without the
 * worker's stack; the suites and title path are group, family, requirement (what the report's groupBy and any
 * other Allure viewer arrange the tree by), and the full name is the check's stable id rather than the file that
 * happened to run it (waiting checks run in another file than their group's, a vendor document's checks in parts
 * that move as operations are added). The test case and history ids, which allure-js-commons derived from the file's
 * full name as the test stopped, are derived again from that id, so a check keeps its history in the HTML report's
 * trend whichever file ran it, compiled or from the sources. A test without a result crashed outside its check: a
 * suite fault, `broken` with vitest's error as it was.
 */
export function settleAllureResult(tr: Partial<TestResult>, r: CheckResult | undefined, conflicts: readonly DeclaredConflict[] = []): void {
  if (!r) {
    if (tr.status === Status.FAILED) tr.status = Status.BROKEN;
    return;
  }
  tr.status = ALLURE_STATUS[r.status];
  // A check that failed for doing what the document says is grouped under that contradiction: its own branch of
  // the tree, and a message that says so first (src/results/document-conflicts.ts). It still fails.
  const conflict = conflictOf(conflicts, r);
  const said = conflict ? `[the document contradicts ${r.requirement}: #${conflict.pointer}, ${conflict.declaration}] ` : '';
  const message = r.status === 'warning' ? `WARNING [${r.level}]: ${said}${r.message ?? ''}` : r.message === undefined ? undefined : `${said}${r.message}`;
  tr.statusDetails = message ? { message } : {};
  const path = conflict ? [CONFLICTS_SUITE, r.requirement, `#${conflict.pointer}`] : [groupTitle(r.group), r.family, r.requirement];
  tr.titlePath = path;
  tr.fullName = r.id;
  tr.testCaseId = getTestResultTestCaseId(tr as TestResult);
  tr.historyId = getTestResultHistoryId({ parameters: [], ...tr, historyId: '' } as TestResult);
  tr.labels = [
    ...(tr.labels ?? []).filter((l) => !PATH_LABELS.has(l.name)),
    ...(conflict ? [{ name: 'tag', value: 'document-conflict' }] : []),
    { name: 'package', value: `${r.group}.${r.family}` },
    { name: 'parentSuite', value: path[0]! },
    { name: 'suite', value: path[1]! },
    { name: 'subSuite', value: path[2]! },
  ];
}

export interface AllureResultsReporter extends Reporter {
  /** Writes every result and attachment; says what could not be written, if anything (see DeferredAllureWriter). */
  flush(written?: Map<string, string>): string | undefined;
}

/**
 * allure-vitest's reporter, fed from the main thread. Its stock form adds a setup file and a test runner to every
 * worker, and the suites would call allure-js-commons' test API: nine messages per check, the evidence crossing
 * from the worker a second time, and an AsyncLocalStorage that puts a hook on every promise the worker makes.
 * Together that was about a third of a run's CPU. Here the workers only run checks; each CheckResult (which
 * reaches the main thread in the test's meta anyway) becomes the same metadata through allureMessages(), and each
 * test's result is built as it finishes, as allure-vitest builds it but with what every test shares found once
 * (allure-test-result.ts; DeferredAllureWriter writes the files at the end). allure-vitest builds its own
 * FileSystemWriter and ignores a `writer` option, so the writer is swapped on its runtime once initialised. Guarded:
 * if a future allure-vitest renames that field, the default writer stays (correct, only slower). Pinned by
 * package.json to ~3.12.
 */
export async function allureReporter(resultsDir: string, requirements: RequirementCatalogue, conflicts: readonly DeclaredConflict[] = []): Promise<AllureResultsReporter> {
  const { default: AllureReporter } = await import('allure-vitest/reporter');
  const writer = new DeferredAllureWriter(resultsDir);
  let swapped = false;
  const results = new AllureTestResults();
  class MainThreadAllureReporter extends AllureReporter implements AllureResultsReporter {
    private readonly written = new WeakSet<RunnerTask>();

    flush(written?: Map<string, string>): string | undefined {
      return swapped ? writer.flush(written) : undefined;
    }

    override onInit(vitest: Vitest): void {
      // Keep each project's setup files and runner as they were: nothing of Allure runs in the workers.
      const before = vitest.projects.map((p) => ({ setupFiles: [...p.config.setupFiles], runner: p.config.runner }));
      super.onInit(vitest);
      vitest.projects.forEach((p, i) => Object.assign(p.config, before[i]));
      const runtime = (this as unknown as { allureReporterRuntime?: { writer?: unknown } }).allureReporterRuntime;
      if (runtime && typeof runtime === 'object' && 'writer' in runtime) {
        runtime.writer = writer;
        swapped = true;
      }
    }

    onTestCaseResult(test: TestCase): void {
      // The runner task behind a TestCase, as allure-vitest's own onTestRunEnd reads it (not in vitest's types).
      // Without it the test is written at the end of the run instead.
      const task = (test as unknown as { task?: RunnerTask }).task;
      if (task) this.handleTask(task);
    }

    override handleTask(task: RunnerTask): void {
      if (task.type === 'test') {
        if (this.written.has(task)) return;
        const result = (task.meta as { fsapi?: CheckResult }).fsapi;
        // A test without a result (a crash outside its check) is written with vitest's error and no metadata.
        if (result) Object.assign(task.meta, { allureRuntimeMessages: allureMessages(result, requirements.get(result.requirement)) });
        this.written.add(task);
        // The result is built and written synchronously (by AllureTestResults, or by allure-vitest itself for a test
        // that is not plain): the listener below settles it on the way.
        settling = { result };
        try {
          const runtime = (this as unknown as { allureReporterRuntime?: ReporterRuntime }).allureReporterRuntime;
          if (result && runtime && plainTest(task)) results.write(runtime, task);
          else super.handleTask(task);
        } finally {
          settling = undefined;
          // Built and handed to the writer: vitest keeps every task's meta to the end of the run, and these messages
          // (the evidence as JSON text, the requirement's description) would wait beside the result they came from.
          delete (task.meta as { allureRuntimeMessages?: unknown }).allureRuntimeMessages;
        }
        return;
      }
      super.handleTask(task);
    }
  }
  let settling: { result: CheckResult | undefined } | undefined;
  const settle = { beforeTestResultWrite: (tr: TestResult) => settling && settleAllureResult(tr, settling.result, conflicts) };
  return new MainThreadAllureReporter({ resultsDir, listeners: [settle] });
}
