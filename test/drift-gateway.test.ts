/**
 * No false drift: a clean baseline against a clean run of an unchanged target, through a gateway that decides how a
 * parallel burst's duplicates in flight are answered. In the baseline it holds every one until the first is answered
 * (the target replays them: no 409 at all); in the run it answers every one 409 (as a conforming target may too).
 * Drift pooled per operation called that "POST /accounts: new status: 409"; compared check by check and case by case,
 * with the burst's timing set aside, nothing drifts but latency, either way round. The runs use different seeds, as
 * a nightly job's would, so the webhook events fetched differ in type too.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { PARALLEL_BURST_CASE } from '../src/http/exchange.js';
import { behaviourDrift } from '../src/regression/drift.js';
import { describeDrift } from '../src/reports/regression-render.js';
import type { RunReport } from '../src/results/model.js';
import { runCli, sandboxTargetEnv } from './helpers/cli.js';
import { gateway, type Gateway } from './helpers/gateway.js';
import { busy } from './helpers/busy.js';

const open: (RunningSandbox | Gateway)[] = [];
afterAll(async () => Promise.all(open.map((x) => x.close())));
const load = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
const burstStatuses = (r: RunReport) => new Set(r.checks.flatMap((c) => c.exchanges.filter((x) => x.case === PARALLEL_BURST_CASE).map((x) => x.response?.status)));
const notLatency = (r: RunReport) => (r.baseline?.drift?.findings ?? []).filter((f) => f.kind !== 'latency').map(describeDrift);

describe('clean runs of an unchanged target, the bursts answered 409 in one and replayed in the other', { timeout: busy(400_000) }, () => {
  it('report no drift but latency', async () => {
    const sb = await startSandbox({ httpPort: 0 });
    open.push(sb);
    const [held, conflicted] = await Promise.all([
      gateway({ upstream: sb.base_url, upstreamCa: sb.ca_pem, inFlight: { conflict: 0, seed: 31 } }),
      gateway({ upstream: sb.base_url, upstreamCa: sb.ca_pem, inFlight: { conflict: 1, seed: 32 } }),
    ]);
    open.push(held, conflicted);
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-drift-gateway-'));
    writeFileSync(join(dir, 'held.pem'), held.cert.cert);
    writeFileSync(join(dir, 'conflicted.pem'), conflicted.cert.cert);
    // No webhook receiver here: delivery is left out on purpose, so the clean runs are conformant.
    writeFileSync(join(dir, 'caps.yaml'), 'features: { webhooks: false }\n');
    const env = (gw: Gateway, pem: string) => ({ ...sandboxTargetEnv(sb), FSAPI_PLAIN_HTTP_URL: sb.plain_http_url!, FSAPI_BASE_URL: gw.url, FSAPI_CA_FILE: join(dir, pem), FSAPI_RATE_LIMIT: '0' });
    const args = (out: string, seed: number) => ['run', '--groups', 'accounts,customers,webhooks', '--capabilities', join(dir, 'caps.yaml'), '--seed', String(seed), '--report-dir', join(dir, out)];

    const base = await runCli(args('baseline', 31), env(held, 'held.pem'));
    expect(base.code, base.stderr).toBe(0);
    const now = await runCli([...args('now', 32), '--baseline', join(dir, 'baseline', 'latest')], env(conflicted, 'conflicted.pem'));
    expect(now.code, now.stderr).toBe(0);
    const [baseline, current] = [load(join(dir, 'baseline')), load(join(dir, 'now'))];

    // The two ways a conforming target may answer a duplicate in flight, one in each run.
    expect(held.counts.duplicatesHeld).toBeGreaterThan(0);
    expect(conflicted.counts.duplicatesConflicted).toBeGreaterThan(0);
    expect(burstStatuses(baseline).has(409)).toBe(false);
    expect(burstStatuses(current).has(409)).toBe(true);

    // As the run reported it, and the other way round.
    expect(notLatency(current)).toEqual([]);
    expect(behaviourDrift(current, baseline).findings.filter((f) => f.kind !== 'latency').map(describeDrift)).toEqual([]);
    expect(current.baseline!.drift!.cases_compared).toBeGreaterThan(300);
  });
});
