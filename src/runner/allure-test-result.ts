/**
 * One finished check's Allure test result, built as allure-vitest 3.12's reporter builds it (its `handleTask` for
 * a test), with what is the same for every test of a run found once. allure-vitest asks for each test what cannot
 * change during a run: the ALLURE_LABEL_* environment variables (a walk of `process.env`, some 70 µs), the project
 * root (a stat of the working folder, twice) and the file's package label. On Stripe's 400-operation cut that was
 * about 3 ms of the main thread's CPU per operation, a tenth of the run's. The result is the same, field for field:
 * test/reports.test.ts builds tests both ways and compares what is written, so an allure-vitest whose build differs
 * fails there (package.json pins it to ~3.12).
 */
import { Stage, Status, type Label } from 'allure-js-commons';
import { extractMetadataFromString, getMessageAndTraceFromError, getStatusFromError, type RuntimeMessage } from 'allure-js-commons/sdk';
import {
  getEnvironmentLabels,
  getFallbackTestCaseIdLabel,
  getFrameworkLabel,
  getHostLabel,
  getLanguageLabel,
  getPackageLabel,
  getPosixPath,
  getProjectName,
  getRelativePath,
  getSuiteLabels,
  getThreadLabel,
  md5,
  type ReporterRuntime,
} from 'allure-js-commons/sdk/reporter';
import type { RunnerTask, RunnerTestCase } from 'vitest';

/** The parts of a test's meta that allure-vitest reads. */
interface AllureMeta {
  allureRuntimeMessages?: RuntimeMessage[];
  allureGlobalRuntimeMessages?: RuntimeMessage[];
  vitestWorker?: string | number;
  browser?: string;
  allureSkip?: boolean;
}

/**
 * Whether `AllureTestResults.write` builds this test as allure-vitest would: a test that ran, with no failed hook, no
 * global messages, not skipped by a test plan, not in a browser. Any other is left to allure-vitest itself.
 */
export function plainTest(task: RunnerTask): task is RunnerTestCase {
  if (task.type !== 'test' || !task.result || !task.file?.filepath) return false;
  const meta = task.meta as AllureMeta;
  if (meta.allureSkip || meta.browser || meta.allureGlobalRuntimeMessages?.length) return false;
  const hooks = Object.values(task.result.hooks ?? {});
  return hooks.every((state) => state === 'pass' || state === 'skip');
}

/** The names of the describe blocks around a test, outermost first (allure-vitest's getSuitePath). */
function suitePathOf(task: RunnerTask): string[] {
  const path: string[] = [];
  for (let suite = task.suite; suite?.name; suite = suite.suite) path.unshift(suite.name);
  return path;
}

export class AllureTestResults {
  /** What every test of the run shares, found at the first. */
  private run: { framework: Label; language: Label; environment: Label[]; host: Label; projectName: string | undefined } | undefined;
  private readonly files = new Map<string, { specPath: string; packageLabel: Label }>();
  private readonly threads = new Map<AllureMeta['vitestWorker'], Label>();

  /** Builds and writes a plain test's result through `runtime`, as allure-vitest's reporter would. */
  write(runtime: ReporterRuntime, task: RunnerTestCase): void {
    const run = (this.run ??= { framework: getFrameworkLabel('vitest'), language: getLanguageLabel(), environment: getEnvironmentLabels(), host: getHostLabel(), projectName: getProjectName() });
    const { projectName } = run;
    const filepath = task.file.filepath;
    let file = this.files.get(filepath);
    if (!file) this.files.set(filepath, (file = { specPath: getPosixPath(getRelativePath(filepath)), packageLabel: getPackageLabel(filepath) }));
    const { allureRuntimeMessages = [], vitestWorker } = task.meta as AllureMeta;
    let thread = this.threads.get(vitestWorker);
    if (!thread) this.threads.set(vitestWorker, (thread = getThreadLabel((vitestWorker && `vitest-worker-${vitestWorker}`) as string | undefined)));

    const suitePath = suitePathOf(task);
    const { cleanTitle, labels, links } = extractMetadataFromString(task.name);
    const titled = suitePath.concat(cleanTitle).join(' ');
    const fullNameBase = projectName ? `${projectName}:${file.specPath}` : file.specPath;
    const uuid = runtime.startTest({ name: cleanTitle || task.name, start: task.result?.startTime });
    runtime.updateTest(uuid, (result) => {
      const baseTitlePath = [...file.specPath.split('/'), ...suitePath];
      result.fullName = `${fullNameBase}#${titled}`;
      result.titlePath = projectName ? [projectName, ...baseTitlePath] : baseTitlePath;
      result.labels.push(
        { ...run.framework },
        { ...run.language },
        ...labels,
        ...getSuiteLabels(suitePath),
        ...run.environment.map((l) => ({ ...l })),
        { ...run.host },
        { ...thread },
        getFallbackTestCaseIdLabel(md5(`${file.specPath}#${titled}`)),
      );
      result.links.push(...links);
      result.labels.push({ ...file.packageLabel });
      if (allureRuntimeMessages.length) runtime.applyRuntimeMessages(uuid, allureRuntimeMessages);
      switch (task.result?.state) {
        case 'fail': {
          const [error] = task.result.errors ?? [];
          result.statusDetails = { ...getMessageAndTraceFromError(error as Parameters<typeof getMessageAndTraceFromError>[0]) };
          result.status = getStatusFromError(error as Parameters<typeof getStatusFromError>[0]);
          result.stage = Stage.FINISHED;
          break;
        }
        case 'pass':
          result.status = Status.PASSED;
          result.stage = Stage.FINISHED;
          break;
        case 'skip':
          result.status = Status.SKIPPED;
          result.stage = Stage.PENDING;
          break;
      }
    });
    runtime.stopTest(uuid, { duration: task.result?.duration ?? 0 });
    runtime.writeTest(uuid);
  }
}
