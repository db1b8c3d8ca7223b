/**
 * Versioning (seed, What the service does; Versioning): the base address ends with the version segment /v1/
 * and the API answers there; other version segments are not served (profile).
 */
import { check, describeRequest, fail, notServerError, summariseBody } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { CheckFamily } from './plan.js';
import { credentialHeaders, simpleRead } from './support.js';

const VERSION_SEGMENT = /\/v1\/?$/;

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
        const path = new URL(ctx.config.baseUrl).pathname;
        check(VERSION_SEGMENT.test(path), `the base URL's path is ${path}; it must end with the version segment /v1/`);
        const res = await ctx.call(read);
        notServerError(res, 'under the /v1/ base');
        check(res.status !== 404, `${describeRequest(res)} under the /v1/ base answered 404${summariseBody(res)}: the API is not served there`);
        ctx.observe(`${describeRequest(res)} answered ${res.status}`);
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
        const served: string[] = [];
        for (const v of ['v0', 'v2']) {
          const base = otherVersion(ctx.config.baseUrl, v);
          if (!base) return ctx.skip(`the base URL ${new URL(ctx.config.baseUrl).pathname} has no /v1/ segment to replace (FSAPI-VER-001 judges it)`);
          const res = await readAt(ctx, read, base);
          if (res.status !== 404) served.push(`${describeRequest(res)} answered ${res.status}`);
        }
        if (served.length) fail(`another version segment is served: ${served.join('; ')}`);
      },
    },
  ];
}

export const versioningFamily: CheckFamily = {
  name: 'versioning',
  forSuite: (suite, plan) => (suite === 'versioning' ? versioningChecks(plan.spec) : []),
};
