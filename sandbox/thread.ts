/**
 * The embedded sandbox on a thread of its own. A conformance run's main thread also hosts vitest's reporters,
 * the Allure results and the webhook receiver; with the sandbox there too it was the busiest thread of the run
 * and the workers waited on it. On its own thread the sandbox answers while the main thread reports.
 * Same options and the same RunningSandbox as startSandbox(); errors (a bad fault name, a port in use) arrive as
 * the same UsageError.
 */
import { Worker } from 'node:worker_threads';
import { UsageError } from '../src/errors.js';
import type { RunningSandbox, SandboxInfo, SandboxOptions } from './index.js';

/** Parent -> sandbox thread. */
export type ToSandbox = { type: 'set-webhook'; tenantId: string; hook: { url: string; secret: string } | undefined } | { type: 'close' };

/** Sandbox thread -> parent. */
export type FromSandbox =
  | { type: 'ready'; info: SandboxInfo }
  | { type: 'failed'; error: { usage: boolean; message: string; fix?: string; file?: string; where?: string } }
  | { type: 'closed' };

const ENTRY = new URL(`./thread-entry${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

export async function startSandboxThread(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  // From the TypeScript sources (a checkout without a build) the thread registers tsx's loader first, as the CLI
  // does (an `--import tsx` in the thread's execArgv comes too late for its entry module on Node 20).
  const worker = ENTRY.pathname.endsWith('.ts')
    ? new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(ENTRY.href)}); });`, { eval: true, workerData: opts })
    : new Worker(ENTRY, { workerData: opts });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const info = await new Promise<SandboxInfo>((resolve, reject) => {
    worker.on('message', (m: FromSandbox) => {
      if (m.type === 'ready') resolve(m.info);
      else if (m.type === 'failed') {
        const { usage, message, ...where } = m.error;
        reject(usage ? new UsageError(message, where) : new Error(message));
      }
    });
    worker.once('error', reject);
    void exited.then(() => reject(new Error('the sandbox thread ended before it was ready')));
  }).catch(async (e: unknown) => {
    await worker.terminate();
    throw e;
  });
  let closing: Promise<void> | undefined;
  const send = (m: ToSandbox) => worker.postMessage(m);
  return {
    ...info,
    setWebhook: (tenantId, hook) => send({ type: 'set-webhook', tenantId, hook }),
    close() {
      // The thread closes its listeners and removes its certificate folder; then it is ended.
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => worker.on('message', (m: FromSandbox) => m.type === 'closed' && resolve()));
        send({ type: 'close' });
        await Promise.race([closed, exited]);
        await worker.terminate();
      })();
      return closing;
    },
  };
}
