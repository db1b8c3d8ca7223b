/**
 * Versioning (seed, What the service does; Versioning): the base address ends with the version segment /v1/
 * and the API answers there; other version segments are not served (profile).
 */
import { check, describeRequest, fail, notServerError, summariseBody } from '../harness/assert.js';
import { lastAnswer, textFact } from '../harness/judge.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { CheckFamily } from './plan.js';
import { credentialHeaders, simpleRead } from './support.js';

const VERSION_SEGMENT = /\/v1\/?$/;
/** The version segments that must not be served, each read's case in its recorded exchange. */
const OTHER_VERSIONS = ['v0', 'v2'];
/** The base URL's path, recorded as a fact of the run for the judge. */
const BASE_PATH = 'base_path';

/** The base URL with its trailing /v1 segment replaced by another version. */
export function otherVersion(baseUrl: string, version: string): string | undefined {
  const u = new URL(baseUrl);
  if (!VERSION_SEGMENT.test(u.pathname)) return undefined;
  u.pathname = u.pathname.replace(VERSION_SEGMENT, `/${version}/`);
  return u.toString();
}

async function readAt(ctx: CheckContext, op: Operation, base: string) {
  return ctx.send({ method: 'GET', path: new URL(op.path.replace(/^\//, ''), base).toString(), headers: credentialHeaders(ctx) });
}

function versioningChecks(spec: SpecDocument): CheckDef[] {
  const read = simpleRead(spec);
  if (!read) return [];
  return [
    {
      requirement: 'FSAPI-VER-001',
      family: 'versioning',
      group: 'versioning',
      operation: read.operationId,
      variant: 'base-v1',
      title: 'the base URL ends with /v1/ and the API answers there',
      async run(ctx) {
        ctx.fact(BASE_PATH, new URL(ctx.config.baseUrl).pathname);
        const res = await ctx.call(read);
        ctx.observe(`${describeRequest(res)} answered ${res.status}`);
      },
      judge(answers, facts) {
        const path = textFact(facts, BASE_PATH);
        check(VERSION_SEGMENT.test(path), `the base URL's path is ${path}; it must end with the version segment /v1/`);
        const res = lastAnswer(answers);
        // The recorded base must be the one the answer was read under.
        if (!new URL(res.exchange.request.url).pathname.startsWith(path)) throw new Error(`${describeRequest(res)} is not under the recorded base path ${path}`);
        notServerError(res, 'under the /v1/ base');
        check(res.status !== 404, `${describeRequest(res)} under the /v1/ base answered 404${summariseBody(res)}: the API is not served there`);
      },
    },
    {
      requirement: 'FSAPI-VER-002',
      family: 'versioning',
      group: 'versioning',
      operation: read.operationId,
      variant: 'other-versions-404',
      title: 'the same request under /v0/ and /v2/ answers 404',
      async run(ctx) {
        for (const v of OTHER_VERSIONS) {
          const base = otherVersion(ctx.config.baseUrl, v);
          if (!base) return ctx.skip(`the base URL ${new URL(ctx.config.baseUrl).pathname} has no /v1/ segment to replace (FSAPI-VER-001 judges it)`);
          (await readAt(ctx, read, base)).exchange.case = v;
        }
      },
      judge(answers) {
        const sent = answers.filter((r) => OTHER_VERSIONS.includes(r.exchange.case ?? ''));
        if (sent.length !== OTHER_VERSIONS.length) throw new Error(`${sent.length} of the ${OTHER_VERSIONS.length} reads under another version recorded to judge`);
        // Each read must be under the version segment its case names.
        for (const r of sent) if (!new URL(r.exchange.request.url).pathname.includes(`/${r.exchange.case}/`)) throw new Error(`${describeRequest(r)} is recorded as read under /${r.exchange.case}/`);
        const served = sent.filter((r) => r.status !== 404).map((r) => `${describeRequest(r)} answered ${r.status}`);
        if (served.length) fail(`another version segment is served: ${served.join('; ')}`);
      },
    },
  ];
}

export const versioningFamily: CheckFamily = {
  name: 'versioning',
  forSuite: (suite, plan) => (suite === 'versioning' ? versioningChecks(plan.spec) : []),
};
