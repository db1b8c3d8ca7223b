/** Accounts: create and manage internal accounts (seed: GET /accounts with Api-Key and x-tenant-id). */
import { accountCreate } from '../fixtures/factories.js';
import { check, describeRequest, fail, listItems, readableItems, readId, STATUS, summariseBody } from '../src/harness/assert.js';
import { judgeSkips } from '../src/harness/judge.js';
import type { HttpResponse } from '../src/http/client.js';
import type { CheckDef } from '../src/harness/check.js';
import { LIST_PAGE_CAP } from '../src/harness/pages.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { callCase, caseAnswer, findInList, idOf, jsonOf, units, type JsonObject } from '../src/world/flow-support.js';


/** A new account's balance (and available balance) is 0 and its currency EUR, as `where` shows it. */
function zeroBalance(a: JsonObject, id: string, where: string): void {
  check(units(a['balance'], `balance ${where}`) === 0n, `account ${id} opened with balance ${JSON.stringify(a['balance'])} ${where}; expected 0`);
  if ('available_balance' in a) check(units(a['available_balance'], `available_balance ${where}`) === 0n, `account ${id} opened with available_balance ${JSON.stringify(a['available_balance'])} ${where}`);
  check(a['currency'] === 'EUR', `account ${id} is in ${JSON.stringify(a['currency'])} ${where}; it was opened in EUR`);
}

/** Whether the create and read answers pass the judge (the run walks the list only then, as it always did). */
function openedAtZero(answers: HttpResponse[]): boolean {
  try {
    const created = jsonOf(answers[0]!);
    zeroBalance(created, idOf(created), 'in the create answer');
    zeroBalance(jsonOf(answers[1]!), idOf(created), 'on GET');
    return true;
  } catch {
    return false;
  }
}

/** The cases of FSAPI-ACC-001: the account the check opens, and each page of the seed's GET /accounts. */
const OPEN = 'open';
const LIST = 'list';

/** The id of the account the check opened; a refused open is a prerequisite (FSAPI-ACC-101 and CONTRACT-004 judge it). */
function openedId(res: HttpResponse): string {
  const j = res.json;
  if (!STATUS.is2xx(res.status) || !j || typeof j !== 'object') {
    judgeSkips.skip(`the account it lists could not be opened: ${describeRequest(res)} answered ${res.status}${summariseBody(res)} (FSAPI-ACC-101 judges the create)`, 'prerequisite');
  }
  return idOf(j as JsonObject);
}

/**
 * FSAPI-ACC-001's judge: each page the seed's request read answers 2xx JSON, and one of them lists the account the
 * check opened (pages in order, as the walk read them; none after the one that lists it).
 */
export function listsOpened(answers: readonly HttpResponse[]): void {
  const id = openedId(caseAnswer(answers, OPEN));
  const pages = answers.filter((r) => r.exchange.case === LIST);
  if (pages.length === 0) throw new Error('no page of GET /accounts recorded to judge');
  let seen = 0;
  for (const res of pages) {
    check(STATUS.is2xx(res.status), `${describeRequest(res)} with Api-Key and x-tenant-id answered ${res.status}`);
    check(/^application\/(.+\+)?json$/.test(res.contentType), `${describeRequest(res)} answered ${res.status} labelled ${res.contentType || 'without a media type'}, not JSON`);
    check(res.json !== undefined, `${describeRequest(res)} answered a body that does not parse as JSON (${res.jsonError ?? 'empty'})`);
    const items = readableItems(res, 'listAccounts') as JsonObject[];
    seen += items.length;
    if (items.some((a) => a['id'] === id)) return;
  }
  fail(`account ${id}, opened by the suite, is not among the ${seen} accounts GET /accounts listed`);
}

export const flows: CheckDef[] = [
  {
    requirement: 'FSAPI-ACC-001',
    family: 'flow',
    group: 'accounts',
    operation: 'listAccounts',
    variant: 'seed-request',
    title: 'GET /accounts with only Api-Key and x-tenant-id and no body answers 2xx JSON listing an account the suite opened',
    uses: ['createAccount'],
    writes: true,
    async run(ctx) {
      // The account is opened by the check itself, so its judge reads the id from the check's own evidence.
      const customer = await ctx.world.approvedCustomer();
      const created = await callCase(ctx, OPEN, 'createAccount', { body: accountCreate(ctx.faker, ctx.config.label, idOf(customer), 'USD') });
      const id = openedId(created);
      // Exactly the seed's request: the two headers (the call adds them), no Accept, no body, no query on the first page.
      let cursor: string | undefined;
      // Its own walk, not walkPages: the seed's request exactly, so the first page carries no query at all.
      for (let page = 0; page < LIST_PAGE_CAP; page++) {
        const res = await callCase(ctx, LIST, 'listAccounts', cursor ? { query: { cursor } } : {}, { headers: { accept: undefined } });
        const body = res.json as JsonObject | undefined;
        // The judge says what a page that is not a readable list means; the walk only stops there.
        const items = listItems(res) ?? (Array.isArray(body) ? (body as JsonObject[]) : []);
        if (!STATUS.is2xx(res.status) || !body || typeof body !== 'object' || items.some((a) => a['id'] === id)) return;
        const next = body['next_cursor'];
        if (body['has_more'] !== true || typeof next !== 'string' || next === '') return;
        cursor = next;
      }
    },
    judge: listsOpened,
  },
  {
    requirement: 'FSAPI-ACC-101',
    family: 'flow',
    group: 'accounts',
    operation: 'createAccount',
    variant: 'zero-balance',
    title: 'a new account opens with balance 0 in its currency, reads so by id, and is listed for its customer',
    uses: ['getAccount', 'listAccounts'],
    writes: true,
    // The judge covers the create and read answers; the list walk that finds the account is the run's.
    comparesState: true,
    async run(ctx) {
      const customer = await ctx.world.newCustomer();
      const cid = idOf(customer);
      const body = accountCreate(ctx.faker, ctx.config.label, cid, 'EUR');
      const res = await callCase(ctx, 'create', 'createAccount', { body });
      const id = STATUS.is2xx(res.status) ? readId(res.json) : undefined;
      if (id === undefined) return;
      const read = await callCase(ctx, 'read', 'getAccount', { pathParams: { account_id: id } });
      // The answers first (the judge), then the list: a failure of the answers is reported as the judge's.
      if (!openedAtZero([res, read])) return;
      const { item } = await findInList(ctx, 'listAccounts', { query: { customer_id: cid } }, (a) => a['id'] === id);
      check(item !== undefined, `account ${id} is not listed by GET /accounts?customer_id=${cid}`);
      zeroBalance(item, id, 'in the list');
    },
    judge(answers) {
      const created = jsonOf(caseAnswer(answers, 'create'));
      const id = idOf(created);
      zeroBalance(created, id, 'in the create answer');
      zeroBalance(jsonOf(caseAnswer(answers, 'read')), id, `on GET ${id}`);
    },
  },
];

await defineSuite('accounts', flows);
