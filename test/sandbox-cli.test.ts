/**
 * `fsapi-conformance sandbox` as a user runs it: one JSON line with --json, a clean exit 0 on SIGTERM or SIGINT,
 * environment fallbacks (flags win), and bad configuration refused with exit 2 and a readable message.
 * What needs a real process (signals, stdout, exit codes, a port taken by another) spawns the CLI; the rest runs
 * the same command in-process through main(), which is quicker than a process start per case.
 */
import type { SandboxJsonLine } from '../src/cli/commands/sandbox.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { stopSignals } from '../src/cli/commands/sandbox.js';
import { main } from '../src/cli/main.js';
import { verify } from '../src/webhooks/signature.js';
import { TestReceiver } from './helpers/sandbox-client.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'fsapi-conformance.js');

interface Run {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FSAPI_')));
  const child = spawn(process.execPath, [BIN, 'sandbox', ...args], { env: { ...clean, ...env }, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** The first stdout line, once it is complete (or a failure if the process ends first). */
function firstLine(r: Run): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const i = r.stdout().indexOf('\n');
      if (i >= 0) resolve(r.stdout().slice(0, i));
    };
    r.child.stdout.on('data', check);
    void r.exit.then((code) => reject(new Error(`exited ${code} before printing: ${r.stderr()}`)));
    check();
  });
}

async function get(info: SandboxJsonLine, path: string, ca: string): Promise<number> {
  const agent = new Agent({ connect: { ca } });
  try {
    const t = info.tenants[0]!;
    const res = await request(`${info.base_url}${path}`, { headers: { 'api-key': t.secret_key, 'x-tenant-id': t.tenant_id }, dispatcher: agent });
    await res.body.dump();
    return res.statusCode;
  } finally {
    await agent.close();
  }
}

/** Runs `main(['sandbox', ...args])` in this process; `whileServing` runs once it serves, then it is stopped. */
async function inProcess(
  args: string[],
  env: Record<string, string> = {},
  whileServing?: (stdout: string) => Promise<void>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('FSAPI_')) delete process.env[k];
  Object.assign(process.env, env);
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)),
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void (stderr += `${a.join(' ')}\n`)),
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (stdout += `${a.join(' ')}\n`)),
  ];
  const wait = stopSignals.wait;
  let stop: (s: NodeJS.Signals) => void = () => undefined;
  let serving: () => void = () => undefined;
  const served = new Promise<'serving'>((resolve) => (serving = () => resolve('serving')));
  stopSignals.wait = () => {
    serving();
    return { stopped: new Promise<NodeJS.Signals>((resolve) => (stop = resolve)), dispose: () => undefined };
  };
  try {
    const code = main(['sandbox', ...args]);
    if ((await Promise.race([code.then(() => 'done' as const), served])) === 'serving') {
      try {
        await whileServing?.(stdout);
      } finally {
        stop('SIGTERM');
      }
    }
    return { code: await code, stdout, stderr };
  } finally {
    stopSignals.wait = wait;
    for (const s of spies) s.mockRestore();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

describe.concurrent('fsapi-conformance sandbox, as a process', () => {
  it('--json prints exactly one JSON line, serves, and exits 0 on SIGTERM', async () => {
    const r = run(['--json', '--http-port', '0']);
    const info = JSON.parse(await firstLine(r)) as SandboxJsonLine;
    expect(Object.keys(info)).toEqual(['base_url', 'ca_file', 'plain_http_url', 'tenants', 'live_key', 'revoked_key', 'webhook_secret', 'faults']);
    expect(info.base_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1\/$/);
    expect(info.plain_http_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/$/);
    expect(info.tenants.map((t) => Object.keys(t))).toEqual([
      ['tenant_id', 'secret_key', 'public_key', 'live_key'],
      ['tenant_id', 'secret_key', 'public_key', 'live_key'],
    ]);
    expect(info.faults).toEqual([]);
    expect(await get(info, 'accounts', readFileSync(info.ca_file, 'utf8'))).toBe(200);
    r.child.kill('SIGTERM');
    expect(await r.exit).toBe(0);
    expect(r.stdout().split('\n')).toEqual([r.stdout().split('\n')[0], '']);
    expect(r.stderr()).toBe('');
  });

  it('prints a curl example that works, and exits 0 on SIGINT', async () => {
    const r = run([]);
    await new Promise<void>((resolve, reject) => {
      r.child.stdout.on('data', () => r.stdout().includes('Serving until') && resolve());
      void r.exit.then((code) => reject(new Error(`exited ${code}: ${r.stderr()}`)));
    });
    const curl = /curl --cacert '([^']+)' -H 'Api-Key: ([^']+)' -H 'x-tenant-id: ([^']+)' (\S+)/.exec(r.stdout())!;
    expect(curl).not.toBeNull();
    const agent = new Agent({ connect: { ca: readFileSync(curl[1]!, 'utf8') } });
    const res = await request(curl[4]!, { headers: { 'api-key': curl[2]!, 'x-tenant-id': curl[3]! }, dispatcher: agent });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    await agent.close();
    r.child.kill('SIGINT');
    expect(await r.exit).toBe(0);
    expect(r.stderr()).toBe('SIGINT: sandbox stopped\n');
  });

  it('refuses an unknown fault, naming the nearest one (exit 2, no stack trace)', async () => {
    const r = run(['--fault', 'idem-ignore']);
    expect(await r.exit).toBe(2);
    expect(r.stderr().split('\n')[0]).toBe('error: unknown fault "idem-ignore" (did you mean "idem-ignored"?)');
    expect(r.stderr()).not.toMatch(/\n\s+at /);
    expect(r.stdout()).toBe('');
  });

  it('refuses a port in use (exit 2)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = run(['--port', String(port)]);
      expect(await r.exit).toBe(2);
      expect(r.stderr().split('\n')[0]).toBe(`error: port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr()).toContain('fix: choose another --port, or 0 for any free port');
      expect(r.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it('refuses unreadable fixtures (exit 2)', async () => {
    const r = run(['--fixtures', join(tmpdir(), 'fsapi-no-such-dir', 'tenants.json')]);
    expect(await r.exit).toBe(2);
    expect(r.stderr().split('\n')[0]).toMatch(/^error: .*tenants\.json: the sandbox fixtures file does not exist$/);
    expect(r.stderr()).not.toMatch(/\n\s+at /);
  });
});

describe('fsapi-conformance sandbox, in-process', () => {
  it('prints every credential readably, and takes faults from FSAPI_SANDBOX_FAULTS', async () => {
    const r = await inProcess(['--http-port', '0'], { FSAPI_SANDBOX_FAULTS: 'no-405, no-415' });
    expect(r.code).toBe(0);
    for (const s of ['base URL', 'CA file', 'plain HTTP      http://127.0.0.1:', 'ten_sandbox_alpha', 'ten_sandbox_beta', 'sk_sandbox_FAKE_alpha', 'pk_sandbox_FAKE_beta', 'revoked key', 'live key', 'whsec_', 'faults          no-405, no-415', 'curl --cacert']) {
      expect(r.stdout).toContain(s);
    }
    expect(r.stderr).toBe('SIGTERM: sandbox stopped\n');
  });

  it('lets --fault win over FSAPI_SANDBOX_FAULTS, and --port over FSAPI_SANDBOX_PORT', async () => {
    const r = await inProcess(['--json', '--fault', 'no-415', '--fault', 'no-413,no-405', '--port', '0'], { FSAPI_SANDBOX_FAULTS: 'stack-traces', FSAPI_SANDBOX_PORT: '1' });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as SandboxJsonLine).faults).toEqual(['no-415', 'no-413', 'no-405']);
  });

  it('delivers every tenant’s events to --webhook-url, signed with the fixtures’ secret unless given one', async () => {
    const rx = new TestReceiver();
    const url = await rx.listen();
    const secret = `whsec_${Buffer.from('another-secret-for-the-cli').toString('base64')}`;
    try {
      for (const [args, env, expected] of [
        [['--json', '--webhook-url', url], {}, undefined],
        [['--json'], { FSAPI_SANDBOX_WEBHOOK_URL: url, FSAPI_SANDBOX_WEBHOOK_SECRET: secret }, secret],
      ] as const) {
        const r = await inProcess([...args], env, async (stdout) => {
          const info = JSON.parse(stdout) as SandboxJsonLine;
          const agent = new Agent({ connect: { ca: readFileSync(info.ca_file, 'utf8') } });
          expect(info.tenants.length).toBeGreaterThan(1);
          for (const t of info.tenants) {
            const res = await request(`${info.base_url}customers`, {
              method: 'POST',
              headers: { 'api-key': t.secret_key, 'x-tenant-id': t.tenant_id, 'idempotency-key': `cli-${Math.random()}`, 'content-type': 'application/json' },
              body: JSON.stringify({
                first_name: 'Ada',
                last_name: 'Lovelace',
                email: 'ada@example.com',
                phone: '+14155550123',
                type: 'individual',
                date_of_birth: '1990-12-10',
                address: { address_line1: '1 Way', city: 'SF', country: 'US', postal_code: '94105', state: 'US-CA' },
              }),
              dispatcher: agent,
            });
            const created = (await res.body.json()) as { id: string };
            const [got] = await rx.waitFor((x) => x.body.includes(created.id));
            expect(verify(expected ?? info.webhook_secret, got!.headers, got!.body)).toEqual({ ok: true });
          }
          await agent.close();
        });
        expect(r.code).toBe(0);
      }
    } finally {
      await rx.close();
    }
  });

  it('refuses bad configuration with exit 2 and one message: fixtures, ports, webhook', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-cli-'));
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "tenants": [');
    const thin = join(dir, 'thin.json');
    writeFileSync(thin, JSON.stringify({ tenants: [{ tenant_id: 'x' }], webhook_secret: 'whsec_eA==' }));
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--fixtures', dir], {}, /^error: .*: the sandbox fixtures file is a directory$/],
      [['--fixtures', broken], {}, /^error: .*broken\.json: the sandbox fixtures file is not valid JSON/],
      [[], { FSAPI_SANDBOX_FIXTURES: thin }, /^error: .*thin\.json:tenants: the sandbox fixtures file is invalid: tenants must list at least two tenants$/],
      [['--port', 'eighty'], {}, /^error: --port must be a port number from 0 to 65535, not "eighty"$/],
      [[], { FSAPI_SANDBOX_PORT: '70000' }, /^error: FSAPI_SANDBOX_PORT must be a port number from 0 to 65535, not "70000"$/],
      [['--http-port=-1'], {}, /^error: --http-port must be a port number from 0 to 65535, not "-1"$/],
      [['--webhook-url', 'ftp://example.com/x'], {}, /^error: the webhook URL for ten_sandbox_alpha is not an http\(s\) URL/],
      [['--webhook-url', 'http://127.0.0.1:9/x', '--webhook-secret', 'plain'], {}, /^error: the webhook secret must be a whsec_ secret/],
      [['--fault', 'no-415', '--fault', 'no-41'], {}, /^error: unknown fault "no-41" \(did you mean "no-415"\?\)$/],
      [['--colour'], {}, /^error: sandbox: unknown option --colour/],
    ];
    for (const [args, env, message] of cases) {
      const r = await inProcess(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(message);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
    }
  });

  it('documents every flag with its default and the exit codes in --help', async () => {
    const r = await inProcess(['--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--port N', '--host H', '--http-port N', '--json', '--fault NAME', '--webhook-url URL', '--webhook-secret S', '--fixtures FILE']) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toContain('(default: 0; env: FSAPI_SANDBOX_PORT)');
    expect(r.stdout).toMatch(/0 {4}stopped cleanly by SIGTERM or SIGINT/);
    expect(r.stdout).toMatch(/2 {4}bad configuration/);
  });
});
