import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writer } from 'allure-js-commons/sdk/reporter';
import type { Reporter, Vitest } from 'vitest/node';
import { stringifyEnvInfo } from 'allure-js-commons/sdk/reporter';

type Param<K extends keyof Writer, I extends number = 0> = Parameters<Writer[K]>[I];

/**
 * Writes allure-results like allure-js-commons' FileSystemWriter, without its fsync per file. That sync runs on
 * the CLI's main thread, where the embedded sandbox answers requests too: ~1 s per 300 checks, all spent waiting
 * on the disk. A crashed run loses its partial results either way; SHA256SUMS, written last, covers the files.
 */
export class UnsyncedAllureWriter implements Writer {
  private made = false;

  constructor(private readonly resultsDir: string) {}

  private path(name: string): string {
    if (!this.made) {
      mkdirSync(this.resultsDir, { recursive: true });
      this.made = true;
    }
    return join(this.resultsDir, name);
  }

  writeResult(result: Param<'writeResult'>): void {
    writeFileSync(this.path(`${result.uuid}-result.json`), JSON.stringify(result));
  }
  writeGroup(result: Param<'writeGroup'>): void {
    writeFileSync(this.path(`${result.uuid}-container.json`), JSON.stringify(result));
  }
  writeAttachment(name: string, content: Buffer): void {
    writeFileSync(this.path(name), content);
  }
  writeAttachmentFromPath(name: string, from: string): void {
    copyFileSync(from, this.path(name));
  }
  writeEnvironmentInfo(info: Param<'writeEnvironmentInfo'>): void {
    writeFileSync(this.path('environment.properties'), stringifyEnvInfo(info));
  }
  writeCategoriesDefinitions(categories: Param<'writeCategoriesDefinitions'>): void {
    writeFileSync(this.path('categories.json'), JSON.stringify(categories));
  }
  writeGlobals(name: string, info: Param<'writeGlobals', 1>): void {
    writeFileSync(this.path(name), JSON.stringify(info));
  }
}

/**
 * allure-vitest builds its own FileSystemWriter and ignores a `writer` option, so the writer is swapped on its
 * runtime once initialised. Guarded: if a future allure-vitest renames that field, the default writer stays
 * (correct, only slower). Pinned by package.json to ~3.12.
 */
export async function allureReporter(resultsDir: string): Promise<Reporter> {
  const { default: AllureReporter } = await import('allure-vitest/reporter');
  class FastAllureReporter extends AllureReporter {
    override onInit(vitest: Vitest): void {
      super.onInit(vitest);
      const runtime = (this as unknown as { allureReporterRuntime?: { writer?: unknown } }).allureReporterRuntime;
      if (runtime && typeof runtime === 'object' && 'writer' in runtime) runtime.writer = new UnsyncedAllureWriter(resultsDir);
    }
  }
  return new FastAllureReporter({ resultsDir });
}
