/** Gap observations on the API as a whole: the version segment, and per group the statuses its resources show and which operations answer. */
import type { SpecDocument } from '../../catalogue/openapi.js';
import { CheckSkipped, listItems } from '../../harness/assert.js';
import { validRequest } from '../requests.js';
import { credentialHeaders, isWrite, jsonBodyOf, opsOfGroup, pathParamsOf, simpleRead } from '../support.js';
import { isObj } from '../../json.js';
import type { RequestParts } from '../../http/request-parts.js';
import { isSetupProblem, type Obs } from './shared.js';

export function versionObservation(spec: SpecDocument): Obs[] {
  const read = simpleRead(spec);
  if (!read) return [];
  return [
    {
      requirement: 'FSAPI-GAP-014',
      operation: read.operationId,
      variant: 'version-headers',
      title: 'API-Version, Deprecation and Sunset headers',
      async run(ctx) {
        const res = await ctx.send({ method: 'GET', path: read.path.replace(/^\//, ''), headers: credentialHeaders(ctx) });
        const seen = Object.entries(res.headers).filter(([k, v]) => /version|deprecation|sunset/i.test(k) || (k === 'link' && /deprecation|sunset|successor/i.test(v)));
        ctx.observe(seen.length ? `version headers: ${seen.map(([k, v]) => `${k}: ${v}`).join('; ')}` : `no API-Version, Deprecation or Sunset header on ${read.method} ${read.path} (${res.status})`);
      },
    },
  ];
}

/** Per group: the statuses its resources show, and which of its operations answer at all. */
export function groupObservations(group: string, spec: SpecDocument): Obs[] {
  const ops = opsOfGroup(spec, group);
  const reads = ops.filter((o) => o.method === 'GET');
  const defs: Obs[] = [];
  if (reads.length) {
    defs.push({
      requirement: 'FSAPI-GAP-015',
      variant: 'statuses-seen',
      title: `the status values seen on the ${group} resources`,
      async run(ctx) {
        const byObject = new Map<string, Set<string>>();
        for (const op of reads) {
          let parts: RequestParts;
          try {
            parts = await validRequest(ctx, op);
          } catch (e) {
            if (e instanceof CheckSkipped || isSetupProblem(e)) continue;
            throw e;
          }
          const res = await ctx.call(op, parts, { query: op.parameters.some((p) => p.name === 'limit') ? { limit: 100 } : {} });
          const objects = listItems(res) ?? (isObj(res.json) ? [res.json] : []);
          for (const o of objects) {
            if (typeof o['status'] !== 'string') continue;
            const kind = typeof o['object'] === 'string' ? o['object'] : op.operationId;
            if (!byObject.has(kind)) byObject.set(kind, new Set());
            byObject.get(kind)!.add(o['status']);
          }
        }
        ctx.observe(byObject.size ? [...byObject].map(([k, s]) => `${k}: ${[...s].sort().join(', ')}`).join('; ') : `no status member on the ${group} objects read`);
      },
    });
  }
  defs.push({
    requirement: 'FSAPI-GAP-016',
    variant: 'operations-answering',
    title: `which ${group} operations of the spec in use answer other than 404`,
    writes: ops.some(isWrite),
    async run(ctx) {
      const answers: string[] = [];
      let served = 0;
      for (const op of ops) {
        let parts: RequestParts = {};
        try {
          // A write on an existing object gets one of its own; a write on a collection needs no prerequisite.
          if (!isWrite(op) || pathParamsOf(op).length > 0) parts = await validRequest(ctx, op, { fresh: isWrite(op) });
        } catch (e) {
          if (e instanceof CheckSkipped || isSetupProblem(e)) {
            answers.push(`${op.operationId} not tried (${(e as Error).message.slice(0, 80)})`);
            continue;
          }
          throw e;
        }
        // Writes carry an empty object: enough to find the route, without creating anything where validation runs.
        const res = await ctx.call(op, jsonBodyOf(op) ? { ...parts, body: {} } : parts, { ...(jsonBodyOf(op) ? { probe: 'empty-body' as const } : {}) });
        if (res.status !== 404) served++;
        answers.push(`${op.operationId} ${res.status}`);
      }
      ctx.observe(`${served} of ${ops.length} operations answered other than 404: ${answers.join(', ')}`);
    },
  });
  return defs;
}
