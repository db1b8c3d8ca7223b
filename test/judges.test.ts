/**
 * The judges of the MUST requirements that `verify` could not re-judge before (FSAPI-TRANS-002, ACC-001, WH-001,
 * WH-002, WH-003), and the facts judges now count again from the reads they record (effect counts, balances):
 * each judge called directly on recorded exchanges, as `verify` calls it, for a pass, a failure and the edge.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';
import { genericChecks } from '../src/checks/index.js';
import { bodyBeforePadding } from '../src/checks/http.js';
import { recordedParts } from '../src/checks/recorded-effects.js';
import { EFFECTS_AFTER, EFFECTS_BEFORE, EFFECTS_UNSEEN } from '../src/checks/support.js';
import { checkId, type CheckDef } from '../src/harness/check.js';
import { answerOf, judgeOutcome } from '../src/harness/judge.js';
import type { RecordedExchange } from '../src/http/exchange.js';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';
import { answers, exchange, judged } from './helpers/recorded.js';
import { flows as accountFlows } from '../suites/accounts.conformance.js';
import { flows as webhookFlows } from '../suites/webhooks.conformance.js';
import { recordedBalance } from '../src/world/flow-support.js';
import { listsOpened } from '../suites/accounts.conformance.js';
import { deliveredToReceiver, eventReadsById, historyListsDelivered } from '../suites/webhooks.conformance.js';
import { busy } from './helpers/busy.js';

const BASE = 'https://api.example/v1';
const RECEIVER = 'http://127.0.0.1:8787';

let catalogue: Catalogue;
let defs: Map<string, CheckDef>;
beforeAll(async () => {
  catalogue = await loadCatalogue();
  const plan = { spec: catalogue.spec, isReferenceProfile: true, binding: catalogue.binding };
  defs = new Map(['transport', 'accounts', 'customers'].flatMap((s) => genericChecks(s as 'transport', plan)).map((d) => [checkId(d), d]));
});
const def = (id: string): CheckDef => {
  const d = defs.get(id);
  if (!d) throw new Error(`no check ${id}`);
  return d;
};

describe('FSAPI-TRANS-002: a request over plain HTTP is not processed', () => {
  const probe = (status: number | undefined, extra: Partial<RecordedExchange> = {}) =>
    exchange('GET', 'http://api.example/v1/accounts', status, status === undefined ? undefined : { title: 'x' }, { case: 'plain-http', ...extra });

  it('passes a refusal status and a refused connection (recorded without an answer, with its kind)', () => {
    const get = def('FSAPI-TRANS-002 listAccounts plain-http-get').judge;
    expect(judged(get, [probe(403)]).status).toBe('passed');
    expect(judged(get, [probe(426)]).status).toBe('passed');
    expect(judged(get, [probe(undefined, { error: 'cannot connect (ECONNREFUSED)', error_kind: 'connect' })]).status).toBe('passed');
    expect(judged(get, [probe(undefined, { error: 'the connection was closed (ECONNRESET)', error_kind: 'reset' })]).status).toBe('passed');
  });

  it('fails a plain-HTTP request that was processed (2xx, or 401: authenticated, so processed), and a server error', () => {
    const get = def('FSAPI-TRANS-002 listAccounts plain-http-get').judge;
    const ok = judged(get, [probe(200)]);
    expect(ok.status).toBe('failed');
    expect(ok.message).toMatch(/GET \/accounts over plain HTTP answered 200: the request was processed/);
    expect(judged(get, [probe(401)]).status).toBe('failed');
    expect(judged(def('FSAPI-TRANS-002 createCustomer plain-http-post').judge, [probe(201)]).status).toBe('failed');
    expect(judged(get, [probe(502)]).message).toMatch(/server error/);
  });

  it('leaves a redirect to FSAPI-TRANS-003, and judges nothing on a probe that ended in another transport failure', () => {
    const get = def('FSAPI-TRANS-002 listAccounts plain-http-get').judge;
    expect(judged(get, [probe(301)]).status).toBe('passed');
    expect(judgeOutcome(def('FSAPI-TRANS-003 listAccounts plain-http-no-redirect').judge!, answers(probe(301)), 'SHOULD', false).status).toBe('warning');
    // A timeout proves nothing either way: the run errored there, and the judge says so rather than pass it.
    const timeout = judged(get, [probe(undefined, { error: 'no complete response within 100 ms', error_kind: 'timeout' })]);
    expect(timeout.status).toBe('error');
    // Without the kind recorded, a response-less exchange is not taken as a refusal.
    expect(judged(get, [probe(undefined, { error: 'cannot connect (ECONNREFUSED)' })]).status).toBe('error');
    // The probe is found by its case, not as whatever answer came last.
    expect(judged(get, [probe(403), exchange('GET', `${BASE}/accounts`, 200, { data: [] })]).status).toBe('passed');
  });
});

describe('FSAPI-ACC-001: GET /accounts with the seed headers lists the business accounts', () => {
  const open = (status = 201) => exchange('POST', `${BASE}/accounts`, status, status < 300 ? { id: 'acc_mine', balance: '0.00' } : { title: 'no' }, { case: 'open' });
  const page = (ids: string[], more?: string) => exchange('GET', `${BASE}/accounts`, 200, { data: ids.map((id) => ({ id })), has_more: more !== undefined, next_cursor: more ?? null }, { case: 'list' });

  it('passes when a page the seed request read lists the account the check opened, on any page', () => {
    expect(judged(listsOpened, [open(), page(['acc_other', 'acc_mine'])]).status).toBe('passed');
    expect(judged(listsOpened, [open(), page(['acc_1', 'acc_2'], 'c2'), page(['acc_mine'])]).status).toBe('passed');
  });

  it('fails an empty list (the accounts-list-empty fault), naming the account and how many were listed', () => {
    const o = judged(listsOpened, [open(), page([])]);
    expect(o.status).toBe('failed');
    expect(o.message).toBe('account acc_mine, opened by the suite, is not among the 0 accounts GET /accounts listed');
    expect(judged(listsOpened, [open(), page(['acc_1'], 'c2'), page(['acc_2'])]).message).toMatch(/among the 2 accounts/);
  });

  it('fails a page that is not 2xx JSON; skips when the account could not be opened (a prerequisite)', () => {
    const textPlain = exchange('GET', `${BASE}/accounts`, 200, { data: [{ id: 'acc_mine' }] }, { case: 'list' });
    textPlain.response!.headers['content-type'] = 'text/plain';
    expect(judged(listsOpened, [open(), textPlain]).message).toMatch(/labelled text\/plain, not JSON/);
    expect(judged(listsOpened, [open(), exchange('GET', `${BASE}/accounts`, 500, { title: 'boom' }, { case: 'list' })]).status).toBe('failed');
    const refused = judged(listsOpened, [open(422)]);
    expect(refused.status).toBe('skipped');
    expect(refused.skipCause).toBe('prerequisite');
  });
});

describe('the webhook flows (FSAPI-WH-001, -002, -003) on the deliveries recorded as evidence', () => {
  const event = (id: string, objectId: string, type = 'customer.created') => ({ id, type, data: { object: { id: objectId } } });
  const delivery = (e: unknown, answered = 200) => exchange('POST', `${RECEIVER}/webhooks`, answered, undefined, { requestBody: e, received: true });
  const inspect = (q: string) => exchange('GET', `${RECEIVER}/__fsapi/token/deliveries?${q}`, 200, [], { case: 'inspect-receiver' });
  const causeCustomer = exchange('POST', `${BASE}/customers`, 201, { id: 'cus_1' }, { case: 'cause' });
  const causeCollection = exchange('POST', `${BASE}/collections`, 201, { id: 'col_1' }, { case: 'cause' });
  const list = (c: string, items: unknown[]) => exchange('GET', `${BASE}/x`, 200, { data: items, has_more: false, next_cursor: null }, { case: c });

  describe('FSAPI-WH-003: a delivery for the suite event reaches the configured URL', () => {
    const asked = inspect('object_id=cus_1&type=customer.created&min=1&timeout_ms=10000');
    it('passes when a delivery of the asked type about the customer made was recorded', () => {
      expect(judged(deliveredToReceiver, [causeCustomer, asked, delivery(event('evt_1', 'cus_1'))]).status).toBe('passed');
    });
    it('fails when none arrived (webhooks-not-delivered), naming the customer and the wait the run asked for', () => {
      const o = judged(deliveredToReceiver, [causeCustomer, asked]);
      expect(o.status).toBe('failed');
      expect(o.message).toBe('the receiver got no customer.created delivery for cus_1 within 10000 ms');
    });
    it('counts only a delivery about that customer and of the type asked (the target spelling), and skips without a receiver', () => {
      expect(judged(deliveredToReceiver, [causeCustomer, asked, delivery(event('evt_1', 'cus_other'))]).status).toBe('failed');
      expect(judged(deliveredToReceiver, [causeCustomer, asked, delivery(event('evt_1', 'cus_1', 'customer.updated'))]).status).toBe('failed');
      expect(judged(deliveredToReceiver, [causeCustomer, asked, delivery('not json')]).status).toBe('failed');
      const vendor = inspect('object_id=cus_1&type=CustomerCreated&min=1&timeout_ms=500');
      expect(judged(deliveredToReceiver, [causeCustomer, vendor, delivery(event('evt_1', 'cus_1', 'CustomerCreated'))]).status).toBe('passed');
      const none = judged(deliveredToReceiver, [causeCustomer]);
      expect([none.status, none.skipCause]).toEqual(['skipped', 'credential']);
    });
  });

  describe('FSAPI-WH-001: the delivery history lists what was delivered', () => {
    const asked = inspect('object_id=col_1&min=2&timeout_ms=10000');
    const history = list('history', []);
    const delivered = [delivery(event('evt_a', 'col_1', 'collection.created')), delivery(event('evt_b', 'col_1', 'collection.succeeded'))];
    it('passes when each delivered event is listed by its read of the history', () => {
      const reads = [list('history:evt_a', [{ id: 'whd_1', event_id: 'evt_a' }]), list('history:evt_b', [{ id: 'whd_2', event_id: 'evt_b' }])];
      expect(judged(historyListsDelivered, [causeCollection, history, asked, ...delivered, ...reads]).status).toBe('passed');
    });
    it('fails when the history misses a delivered event (webhooks-history-incomplete), naming it', () => {
      const reads = [list('history:evt_a', [{ id: 'whd_1', event_id: 'evt_a' }]), list('history:evt_b', []), list('history:evt_b', [])];
      const o = judged(historyListsDelivered, [causeCollection, history, asked, ...delivered, ...reads]);
      expect(o.status).toBe('failed');
      expect(o.message).toBe('event evt_b was delivered to the receiver, but GET /webhooks/deliveries?event_id=evt_b lists no delivery of it (2 pages read)');
    });
    it('judges the history answer alone without a receiver or a delivery, and fails a history that does not answer 2xx', () => {
      expect(judged(historyListsDelivered, [causeCollection, history]).status).toBe('passed');
      expect(judged(historyListsDelivered, [causeCollection, history, asked]).status).toBe('passed');
      // A delivery about another object is not this check's to compare.
      expect(judged(historyListsDelivered, [causeCollection, history, asked, delivery(event('evt_z', 'col_other'))]).status).toBe('passed');
      const o = judged(historyListsDelivered, [causeCollection, exchange('GET', `${BASE}/webhooks/deliveries?limit=5`, 404, { title: 'no' }, { case: 'history' })]);
      expect(o.status).toBe('failed');
      expect(o.message).toMatch(/status of the delivery history 2xx, got 404/);
    });
  });

  describe('FSAPI-WH-002: an event the suite caused reads by id', () => {
    const events = list('events', [event('evt_0', 'cus_0'), event('evt_1', 'cus_1')]);
    it('passes when the listed event about the customer reads by id with its id, type and object', () => {
      expect(judged(eventReadsById, [causeCustomer, events, exchange('GET', `${BASE}/webhooks/events/evt_1`, 200, event('evt_1', 'cus_1'), { case: 'event' })]).status).toBe('passed');
    });
    it('fails a 404 for the event (events-not-viewable) and an event about another object', () => {
      const gone = judged(eventReadsById, [causeCustomer, events, exchange('GET', `${BASE}/webhooks/events/evt_1`, 404, { title: 'no' }, { case: 'event' })]);
      expect(gone.status).toBe('failed');
      expect(gone.message).toMatch(/status of GET event evt_1 2xx, got 404/);
      const other = judged(eventReadsById, [causeCustomer, events, exchange('GET', `${BASE}/webhooks/events/evt_1`, 200, event('evt_1', 'cus_9'), { case: 'event' })]);
      expect(other.message).toMatch(/does not carry customer cus_1/);
    });
    it('fails when no listed event is about the customer; a list page that is not 2xx fails as the walk did', () => {
      expect(judged(eventReadsById, [causeCustomer, list('events', [event('evt_0', 'cus_0')])]).message).toBe('no customer.created event about cus_1 is listed by GET /webhooks/events?type=customer.created');
      expect(judged(eventReadsById, [causeCustomer, exchange('GET', `${BASE}/webhooks/events`, 503, { title: 'busy' }, { case: 'events' })]).status).toBe('failed');
    });
  });
});

describe('facts counted again from the reads they come from', () => {
  const nickname = 'brisk USD tok1';
  const burst = (status: number) => exchange('POST', `${BASE}/accounts`, status, { id: `acc_${status}` }, { operation: 'createAccount', requestBody: { customer_id: 'cus_1', nickname, currency: 'USD' } });
  const accounts = (caseName: string, n: number) =>
    exchange('GET', `${BASE}/accounts?customer_id=cus_1&limit=100`, 200, { data: Array.from({ length: n }, (_, i) => ({ id: `acc_${i}`, customer_id: 'cus_1', nickname })), has_more: false, next_cursor: null }, { case: caseName, operation: 'listAccounts' });
  const parallel = () => def('FSAPI-IDEM-003 createAccount parallel').judge;

  it('FSAPI-IDEM-003 counts the effects from its recorded list reads: once passes, 8 accounts made by one key fail', () => {
    const run = [accounts(EFFECTS_BEFORE, 0), burst(201), burst(409), burst(201)];
    expect(judged(parallel(), [...run, accounts(EFFECTS_AFTER, 1)], { [EFFECTS_BEFORE]: 0, [EFFECTS_AFTER]: 1 }).status).toBe('passed');
    const eight = judged(parallel(), [...run, accounts(EFFECTS_AFTER, 3)]);
    expect(eight.status).toBe('failed');
    expect(eight.message).toMatch(/3 parallel requests with one key took effect 3 times/);
  });

  it('fails when the fact was edited against its read, naming both (effects_after 1, its read shows 3)', () => {
    const o = judged(parallel(), [accounts(EFFECTS_BEFORE, 0), burst(201), burst(201), burst(201), accounts(EFFECTS_AFTER, 3)], { [EFFECTS_BEFORE]: 0, [EFFECTS_AFTER]: 1 });
    expect(o.status).toBe('failed');
    expect(o.message).toBe('the recorded fact effects_after (1) disagrees with the count its recorded read shows (3)');
  });

  it('counts only what the request it sent would make (the nickname the burst carried), and skips where the read could not be made', () => {
    const others = exchange('GET', `${BASE}/accounts?customer_id=cus_1`, 200, { data: [{ id: 'acc_x', customer_id: 'cus_1', nickname: 'another' }], has_more: false }, { case: EFFECTS_AFTER });
    expect(judged(parallel(), [accounts(EFFECTS_BEFORE, 0), burst(201), others]).status).toBe('skipped'); // a success without a visible effect
    const unreadable = exchange('GET', `${BASE}/accounts?customer_id=cus_1`, 500, { title: 'boom' }, { case: EFFECTS_AFTER });
    const o = judged(parallel(), [accounts(EFFECTS_BEFORE, 0), burst(201), unreadable]);
    expect([o.status, o.skipCause]).toEqual(['skipped', 'binding']);
    expect(o.message).toMatch(/the effects cannot be observed: cannot list the accounts of cus_1/);
    // The read missing from the evidence is no verdict.
    expect(judged(parallel(), [accounts(EFFECTS_BEFORE, 0), burst(201)]).status).toBe('error');
  });

  it('FSAPI-LIMIT-001 reads the body its 2 MiB probe wrapped from the recorded, cut request, and counts from its reads', () => {
    const body = { first_name: 'Ada', email: 'ada@example.test' };
    const sent = `${JSON.stringify(body).slice(0, -1)},"fsapi_padding":"${'x'.repeat(4000)}`;
    expect(bodyBeforePadding(sent)).toEqual(body);
    expect(bodyBeforePadding('{"fsapi_padding":"xxx')).toEqual({});
    const probe = exchange('POST', `${BASE}/customers`, 413, { title: 'too large' }, { probe: 'oversized-body', requestBody: sent });
    probe.request.body_truncated = true;
    const customers = (c: string, n: number) => exchange('GET', `${BASE}/customers?email=ada%40example.test`, 200, { data: Array.from({ length: n }, () => ({ email: 'ada@example.test' })), has_more: false }, { case: c });
    const limit = def('FSAPI-LIMIT-001 createCustomer two-mib-body').judge;
    expect(judged(limit, [customers(EFFECTS_BEFORE, 0), probe, customers(EFFECTS_AFTER, 0)]).status).toBe('passed');
    expect(judged(limit, [customers(EFFECTS_BEFORE, 0), probe, customers(EFFECTS_AFTER, 1)]).message).toMatch(/took effect \(0 before, 1 after\)/);
    expect(judged(limit, [customers(EFFECTS_BEFORE, 0), probe, customers(EFFECTS_AFTER, 0)], { [EFFECTS_AFTER]: 1 }).message).toMatch(/effects_after \(1\) disagrees/);
    // No effects read recorded: the run's reason stands (skipped), and with no reason either there is nothing to judge.
    expect(judged(limit, [probe], { [EFFECTS_UNSEEN]: 'no driver' }).status).toBe('skipped');
    expect(judged(limit, [probe]).status).toBe('error');
    expect(judged(limit, [customers(EFFECTS_BEFORE, 0), probe, customers(EFFECTS_AFTER, 0)], { [EFFECTS_UNSEEN]: 'no driver' }).status).toBe('failed');
  });

  it('reads a recorded request back into its parts by the operation path template', () => {
    const op = catalogue.spec.byId.get('uploadKycDocument')!;
    const parts = recordedParts(op, exchange('POST', `${BASE}/customers/cus_%C3%A91/kyc/documents?x=1`, 201, {}, { requestBody: { file_name: 'a.pdf' } }));
    expect(parts).toEqual({ pathParams: { customer_id: 'cus_é1' }, query: { x: '1' }, body: { file_name: 'a.pdf' } });
    expect(() => recordedParts(op, exchange('POST', `${BASE}/accounts`, 201))).toThrow(/does not match uploadKycDocument/);
  });

  it('holds a balance fact to the read it was taken from (TRF-002, COL-002)', () => {
    const read = exchange('GET', `${BASE}/accounts/acc_1`, 200, { id: 'acc_1', balance: '30.00' }, { case: 'source_before' });
    expect(recordedBalance(answers(read), 'source_before', { source_before: '30.00' })).toEqual({ balance: 3_000_000_000n, account: 'acc_1' });
    expect(recordedBalance(answers(read), 'source_before', {}).balance).toBe(3_000_000_000n);
    expect(() => recordedBalance(answers(read), 'source_before', { source_before: '31.00' })).toThrow('the recorded fact source_before ("31.00") disagrees with the balance its read of acc_1 answered (30.00)');
    expect(() => recordedBalance(answers(read), 'source_before', { source_before: 'lots' })).toThrow(/disagrees/);
  });
});

describe('a run against the embedded sandbox, judged again from its recorded evidence', () => {
  it('every check of these suites that has a judge comes out as it ran; the deliveries the receiver got are evidence', { timeout: busy(120_000) }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-judges-'));
    const r = await runCli(['run', '--groups', 'accounts,transport,webhooks', '--seed', '5', '--report-dir', dir], {});
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const plan = { spec: catalogue.spec, isReferenceProfile: true, binding: catalogue.binding };
    const planned = new Map([...genericChecks('accounts', plan), ...genericChecks('transport', plan), ...genericChecks('webhooks', plan), ...accountFlows, ...webhookFlows].map((d) => [checkId(d), d]));
    const judgedAgain = report.checks.flatMap((c) => {
      const d = planned.get(c.id);
      if (!d?.judge) return [];
      return [[c.id, c.status, judgeOutcome(d.judge, c.exchanges.flatMap((x) => answerOf(x) ?? []), c.level, false, c.facts).status]];
    });
    for (const id of ['FSAPI-ACC-001 listAccounts seed-request', 'FSAPI-TRANS-002 listAccounts plain-http-get', 'FSAPI-TRANS-002 createCustomer plain-http-post', 'FSAPI-WH-001 listWebhookDeliveries history-lists-deliveries', 'FSAPI-WH-002 getWebhookEvent event-by-id', 'FSAPI-WH-003 webhooks delivered', 'FSAPI-IDEM-003 createAccount parallel']) {
      expect(judgedAgain.find(([i]) => i === id), id).toEqual([id, 'passed', 'passed']);
    }
    expect(judgedAgain.filter(([, was, now]) => was !== now)).toEqual([]);
    // WH-003's evidence: the customer it made, what it asked its receiver, and the delivery the target sent there.
    const wh3 = report.checks.find((c) => c.id === 'FSAPI-WH-003 webhooks delivered')!;
    const cid = JSON.parse(wh3.exchanges.find((x) => x.case === 'cause')!.response!.body!).id as string;
    const got = wh3.exchanges.filter((x) => x.received);
    expect(got.length).toBeGreaterThan(0);
    for (const x of got) {
      expect(x.request.method).toBe('POST');
      expect(x.request.headers['webhook-id']).toMatch(/\S/);
      expect(x.response?.status).toBe(200);
      expect(JSON.parse(x.request.body!)).toMatchObject({ type: 'customer.created', data: { object: { id: cid } } });
    }
  });
});
