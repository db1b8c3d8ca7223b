/** The sandbox thread (sandbox/thread.ts): starts the sandbox, reports it, obeys set-webhook and close. */
import { parentPort, workerData } from 'node:worker_threads';
import { UsageError } from '../src/errors.js';
import { startSandbox, type SandboxOptions } from './index.js';
import type { FromSandbox, ToSandbox } from './thread.js';

const port = parentPort!;
const post = (m: FromSandbox) => port.postMessage(m);

try {
  const { setWebhook, close, ...info } = await startSandbox(workerData as SandboxOptions);
  port.on('message', (m: ToSandbox) => {
    if (m.type === 'set-webhook') setWebhook(m.tenantId, m.hook);
    else if (m.type === 'close') void close().then(() => post({ type: 'closed' }));
  });
  post({ type: 'ready', info });
} catch (e) {
  const err = e instanceof Error ? e : new Error(String(e));
  post({
    type: 'failed',
    error: {
      usage: err instanceof UsageError,
      message: err.message,
      ...(err instanceof UsageError ? { ...(err.fix ? { fix: err.fix } : {}), ...(err.file ? { file: err.file } : {}), ...(err.where ? { where: err.where } : {}) } : {}),
    },
  });
  port.close();
}
