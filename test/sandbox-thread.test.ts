/**
 * The sandbox on its own thread (sandbox/thread.ts), as a conformance run starts it: it serves the API, takes a
 * webhook to deliver to, refuses bad options with the same UsageError as startSandbox, and close() ends it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { UsageError } from '../src/errors.js';
import { referenceSpec } from '../sandbox/routes.js';
import { SandboxClient, TestReceiver, customerBody, type CustomerView } from './helpers/sandbox-client.js';
import { startSandboxThread } from '../sandbox/thread.js';
import type { RunningSandbox } from '../sandbox/index.js';

const receiver = new TestReceiver();
let sb: RunningSandbox | undefined;
afterAll(async () => {
  await sb?.close();
  await receiver.close();
});

describe('the sandbox thread', () => {
  it('serves the API, delivers webhooks where it is told, and stops on close()', async () => {
    sb = await startSandboxThread({ httpPort: 0 });
    expect(sb.base_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1\/$/);
    expect(sb.plain_http_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/$/);
    const agent = new Agent({ connect: { ca: sb.ca_pem } });
    const anonymous = await request(`${sb.base_url}customers`, { dispatcher: agent });
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();

    const [alpha] = sb.tenants;
    sb.setWebhook(alpha!.tenant_id, { url: await receiver.listen(), secret: sb.webhook_secret });
    const api = new SandboxClient(sb, await referenceSpec(), alpha!, agent);
    const created = await api.call<CustomerView>('createCustomer', { body: customerBody(1) });
    expect(created.status).toBe(201);
    const [delivery] = await receiver.waitFor((r) => r.body.includes(created.body.id));
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'customer.created', data: { object: { id: created.body.id } } });
    await agent.close();

    const base = sb.base_url;
    await sb.close();
    sb = undefined;
    const after = await request(`${base}customers`, { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) }).then(
      () => 'answered',
      (e: { code?: string }) => e.code,
    );
    expect(after).toBe('ECONNREFUSED');
  });

  it('refuses an unknown fault with the UsageError startSandbox gives, fix included', async () => {
    const e = await startSandboxThread({ faults: ['auth-skip-on-read'] }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).message).toMatch(/unknown fault "auth-skip-on-read"/);
    expect((e as UsageError).fix).toBeTruthy();
  });
});
