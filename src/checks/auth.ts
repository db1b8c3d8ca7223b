/**
 * Authentication: a request without a valid secret key in Api-Key is answered 401 (seed, Authentication >
 * Keys, rules 1-4), whatever else it carries; the 401 carries a challenge (RFC 9110).
 */
import type { Operation } from '../catalogue/openapi.js';
import { check, CheckSkipped, expectStatus } from '../harness/assert.js';
import { lastAnswer } from '../harness/judge.js';
import type { CheckContext, CheckDef, Need } from '../harness/check.js';
import { validRequest } from './requests.js';
import type { CheckFamily } from './plan.js';
import type { CallOptions } from '../http/request-parts.js';

interface AuthCase {
  requirement: string;
  variant: string;
  title: string;
  needs?: Need[];
  /** The request's credentials, given the configured ones. */
  credentials(ctx: CheckContext): Pick<CallOptions, 'headers' | 'query'>;
}

const UNKNOWN_KEY = 'sk_sandbox_fsapi_conformance_unknown_key_0000';
const omitKey = { 'Api-Key': undefined };

const CASES: AuthCase[] = [
  { requirement: 'FSAPI-AUTH-001', variant: 'no-key', title: 'no Api-Key header is answered 401', credentials: () => ({ headers: omitKey }) },
  { requirement: 'FSAPI-AUTH-002', variant: 'empty-key', title: 'an empty Api-Key is answered 401', credentials: () => ({ headers: { 'Api-Key': '' } }) },
  { requirement: 'FSAPI-AUTH-002', variant: 'unknown-key', title: 'an unknown Api-Key is answered 401', credentials: () => ({ headers: { 'Api-Key': UNKNOWN_KEY } }) },
  {
    requirement: 'FSAPI-AUTH-002',
    variant: 'revoked-key',
    title: 'a revoked key is answered 401',
    needs: ['revoked-key'],
    credentials: (ctx) => ({ headers: { 'Api-Key': ctx.config.credentials.revokedApiKey! } }),
  },
  {
    requirement: 'FSAPI-AUTH-003',
    variant: 'bearer-only',
    title: 'the key only in Authorization: Bearer is answered 401',
    credentials: (ctx) => ({ headers: { ...omitKey, Authorization: `Bearer ${ctx.config.credentials.apiKey}` } }),
  },
  {
    requirement: 'FSAPI-AUTH-004',
    variant: 'query-key',
    title: 'the key only as a query parameter is answered 401',
    credentials: (ctx) => ({ headers: omitKey, query: { api_key: ctx.config.credentials.apiKey, apiKey: ctx.config.credentials.apiKey, 'Api-Key': ctx.config.credentials.apiKey } }),
  },
  {
    requirement: 'FSAPI-AUTH-005',
    variant: 'public-key',
    title: 'the public key as Api-Key is answered 401',
    needs: ['public-key'],
    credentials: (ctx) => ({ headers: { 'Api-Key': ctx.config.credentials.publicKey! } }),
  },
  {
    requirement: 'FSAPI-AUTH-006',
    variant: 'live-key',
    title: 'a live key against the sandbox is answered 401',
    needs: ['live-key'],
    credentials: (ctx) => ({ headers: { 'Api-Key': ctx.config.credentials.liveApiKey! } }),
  },
];

function caseCheck(op: Operation, c: AuthCase): CheckDef {
  return {
    requirement: c.requirement,
    family: 'auth',
    group: op.group!,
    operation: op.operationId,
    variant: c.variant,
    title: c.title,
    ...(c.needs ? { needs: c.needs } : {}),
    // A broken server would process these writes; they carry the live-write guard like any write.
    writes: op.method !== 'GET',
    async run(ctx) {
      const parts = await validRequest(ctx, op);
      const credentials = c.credentials(ctx);
      await ctx.call(op, parts, { ...credentials, probe: credentials.headers?.['Api-Key'] === undefined ? 'no-key' : 'bad-key' });
    },
    judge: (answers) => expectStatus(lastAnswer(answers), 401),
  };
}

function challengeCheck(op: Operation): CheckDef {
  return {
    requirement: 'FSAPI-AUTH-101',
    family: 'auth',
    group: op.group!,
    operation: op.operationId,
    variant: 'www-authenticate',
    title: 'a 401 carries a WWW-Authenticate challenge',
    writes: op.method !== 'GET',
    async run(ctx) {
      const parts = await validRequest(ctx, op);
      await ctx.call(op, parts, { headers: omitKey, probe: 'no-key' });
    },
    judge(answers) {
      const res = lastAnswer(answers);
      if (res.status !== 401) throw new CheckSkipped(`no 401 to inspect: the request without a key was answered ${res.status} (see FSAPI-AUTH-001)`);
      const challenge = res.headers['www-authenticate'];
      check(challenge !== undefined && challenge.trim().length > 0, `${res.status} without a WWW-Authenticate header (RFC 9110 section 11.6.1 requires one on 401)`);
    },
  };
}

export const authFamily: CheckFamily = {
  name: 'auth',
  forOperation(op) {
    // Seed, Authentication > Keys rule 2: every request requires the Api-Key, whatever the document declares.
    if (!op.group) return [];
    return [...CASES.map((c) => caseCheck(op, c)), challengeCheck(op)];
  },
};
