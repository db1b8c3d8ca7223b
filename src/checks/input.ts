/**
 * Input validation (OWASP API3/API8, RFC 9110): bodies that break the request schema of the spec in use are
 * refused with a 4xx and change nothing (one check per operation and broken property), never cause a 5xx, and
 * (profile) answer 400/422 naming the field; read-only fields on create are refused or ignored.
 */
import { probeAnswer } from '../harness/judge.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { check, describeRequest, fail, answeredId, STATUS, summariseBody } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import { applyMutation, describeMutation, dottedOf, mutationsFor, pointerOf, slugOf, type Mutation } from './mutations.js';
import type { CheckFamily } from './plan.js';
import { isCreate, isWrite, jsonBodyOf, pathParamsOf, readerOf, scoped, skipEffects, stateProbe, type Scoped } from './support.js';
import { canonicalJson, isObj, type Json } from '../json.js';
import type { RequestParts } from '../http/request-parts.js';
import { mergedSchema } from '../catalogue/schema-walker.js';


/** The valid body with the mutation applied, checked to really break the schema (else the check is skipped). */
function mutatedBody(ctx: CheckContext, op: Operation, parts: RequestParts, m: Mutation): unknown {
  const body = applyMutation(parts.body, m);
  if (body === undefined) ctx.skip(`the valid request carries no ${dottedOf(m)} to ${m.kind === 'missing' ? 'remove' : 'break'}`);
  if (ctx.spec.validateRequestBody(op, body).length === 0) ctx.skip(`${describeMutation(m)} still satisfies the request schema of the spec in use`);
  return body;
}

/** Counts before/after for both the valid request and the mutated one (a driver may see either). */
async function effectsSnapshot(ctx: CheckContext, s: Scoped, mutated: RequestParts): Promise<string | undefined> {
  if (s.count) {
    const one = async (p: RequestParts) => {
      try {
        return String(await s.count!(p));
      } catch {
        return '?';
      }
    };
    return `${await one(s.parts)}/${await one(mutated)}`;
  }
  const probe = stateProbe(ctx, s);
  return typeof probe === 'string' ? undefined : probe.read();
}

function refusedCheck(op: Operation, m: Mutation): CheckDef {
  const refused = (answers: readonly HttpResponse[]) => {
    const res = probeAnswer(answers, ['invalid-body']);
    check(STATUS.is4xx(res.status), `${describeRequest(res)} ${describeMutation(m)} answered ${res.status}${summariseBody(res)}; expected a 4xx refusal`);
  };
  return {
    judge: refused,
    comparesState: true,
    requirement: 'FSAPI-INPUT-001',
    family: 'input',
    group: op.group!,
    operation: op.operationId,
    variant: slugOf(m),
    title: `a body ${describeMutation(m)} is refused with 4xx and changes nothing`,
    writes: true,
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const mutated: RequestParts = { ...s.parts, body: mutatedBody(ctx, op, s.parts, m) };
      const before = await effectsSnapshot(ctx, s, mutated);
      const res = await ctx.call(op, mutated, { probe: 'invalid-body' });
      refused([res]);
      if (before === undefined) skipEffects(ctx, `refused with ${res.status}`, s.why);
      const after = await effectsSnapshot(ctx, s, mutated);
      check(after === before, `the body ${describeMutation(m)} was answered ${res.status} but took effect (effects ${before} before, ${after} after)`);
    },
  };
}

/** Every negative body of an operation: its schema mutations, then bodies that are not the expected JSON at all. */
function negativeBodies(ctx: CheckContext, op: Operation, parts: RequestParts): { what: string; parts: RequestParts; raw?: string; m?: Mutation }[] {
  const out: { what: string; parts: RequestParts; raw?: string; m?: Mutation }[] = [];
  for (const m of mutationsFor(ctx.spec, op)) {
    const body = applyMutation(parts.body, m);
    if (body === undefined || ctx.spec.validateRequestBody(op, body).length === 0) continue;
    out.push({ what: `a body ${describeMutation(m)}`, parts: { ...parts, body }, m });
  }
  const text = JSON.stringify(parts.body ?? {});
  out.push({ what: 'truncated JSON', parts, raw: text.slice(0, Math.max(1, Math.floor(text.length / 2))) });
  out.push({ what: 'a JSON array body', parts, raw: '[]' });
  out.push({ what: 'a JSON null body', parts, raw: 'null' });
  out.push({ what: 'a JSON string body', parts, raw: '"fsapi"' });
  return out;
}

function noServerErrors(op: Operation): CheckDef {
  return {
    requirement: 'FSAPI-INPUT-002',
    family: 'input',
    group: op.group!,
    operation: op.operationId,
    variant: 'no-5xx',
    title: 'no invalid body (schema mutations, malformed JSON, non-object JSON) causes a 5xx',
    writes: true,
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const cases = negativeBodies(ctx, op, s.parts);
      const errors: string[] = [];
      for (const c of cases) {
        const res = await ctx.call(op, c.parts, { ...(c.raw !== undefined ? { rawBody: c.raw, probe: 'malformed-body' } : { probe: 'invalid-body' }) });
        if (res.status >= 500) errors.push(`${c.what} answered ${res.status}${summariseBody(res)}`);
      }
      if (errors.length) fail(`${errors.length} of ${cases.length} invalid bodies caused a server error: ${errors.slice(0, 3).join('; ')}${errors.length > 3 ? '; ...' : ''}`);
      ctx.observe(`${cases.length} invalid bodies, none answered 5xx`);
    },
  };
}

/**
 * Whether a problem's errors list names the broken field (JSON pointer, or the same path dotted). A vendor whose
 * error shape the binding declares (`errors`: a code and a message, no list) names it in its message.
 */
export function namesField(res: HttpResponse, m: Mutation, boundErrors = false): boolean {
  const errors = (res.json as { errors?: unknown } | undefined)?.errors;
  const pointer = pointerOf(m);
  if (!Array.isArray(errors)) {
    const message = (res.json as { detail?: unknown } | undefined)?.detail;
    return boundErrors && typeof message === 'string' && (message.includes(pointer) || new RegExp(`(^|[^\\w.])${dottedOf(m).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w.])`).test(message));
  }
  const names = new Set([pointer, pointer.slice(1), dottedOf(m)]);
  const parent = `/${m.path.slice(0, -1).join('/')}`;
  const leaf = m.path[m.path.length - 1]!;
  return errors.some((e) => {
    if (!isObj(e) || typeof e['field'] !== 'string') return false;
    if (names.has(e['field'])) return true;
    // A missing property may be reported on its parent object, naming the property in the message.
    return m.kind === 'missing' && (e['field'] === parent || e['field'] === parent.slice(1)) && typeof e['message'] === 'string' && e['message'].includes(leaf);
  });
}

function namedErrors(op: Operation): CheckDef {
  return {
    requirement: 'FSAPI-INPUT-003',
    family: 'input',
    group: op.group!,
    operation: op.operationId,
    variant: 'field-named',
    title: 'each refused invalid body answers 400 or 422 with errors[].field naming the broken field',
    writes: true,
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const cases = negativeBodies(ctx, op, s.parts).filter((c) => c.m);
      if (cases.length === 0) ctx.skip(`no property of the ${op.operationId} body has a constraint to break`);
      const wrong: string[] = [];
      let refused = 0;
      for (const c of cases) {
        const res = await ctx.call(op, c.parts, { probe: 'invalid-body' });
        if (!STATUS.is4xx(res.status)) continue; // accepted or a server error: FSAPI-INPUT-001/002 judge those
        refused++;
        if (res.status !== 400 && res.status !== 422) wrong.push(`${c.what} answered ${res.status}, not 400 or 422`);
        else if (!namesField(res, c.m!, ctx.binding.boundErrors)) {
          const listed = (res.json as { errors?: { field?: unknown }[] } | undefined)?.errors;
          wrong.push(`${c.what} answered ${res.status} ${Array.isArray(listed) ? `with errors naming ${listed.map((e) => String(e?.field)).slice(0, 3).join(', ') || 'nothing'}` : ctx.binding.boundErrors ? 'with a message that does not name it' : 'without an errors list'}, not ${pointerOf(c.m!)}`);
        }
      }
      if (refused === 0) ctx.skip(`none of the ${cases.length} invalid bodies was refused (FSAPI-INPUT-001 judges that)`);
      if (wrong.length) fail(`${wrong.length} of ${refused} refusals do not name the field: ${wrong.slice(0, 3).join('; ')}${wrong.length > 3 ? '; ...' : ''}`);
      ctx.observe(`${refused} refusals, each 400/422 naming its field`);
    },
  };
}

// --- Read-only fields --------------------------------------------------------------------------------------------

const READ_ONLY = ['id', 'status', 'kyc_status', 'balance', 'available_balance', 'tenant_id', 'created_at', 'updated_at'];
const PLANTED_TIME = '2001-02-03T04:05:06Z';
const PLANTED_AMOUNT = '987654.32';

/** Read-only fields worth planting, with values that fit them (so a target that applies them would store them). */
export function plantedFields(spec: SpecDocument, op: Operation, tail: string, tenant: string): Json {
  const created = op.responses.find((r) => r.status === '201') ?? op.responses.find((r) => r.status.startsWith('2'));
  const media = created?.content.find((c) => c.mediaType === 'application/json');
  const schema = mergedSchema(spec, media?.schema);
  const props = schema && isObj(schema['properties']) ? schema['properties'] : {};
  const out: Json = {};
  for (const name of READ_ONLY) {
    if (!(name in props) && name !== 'tenant_id') continue;
    const s = mergedSchema(spec, props[name] as Json) ?? {};
    if (name === 'id') {
      const prefix = typeof s['pattern'] === 'string' ? (/^\^([A-Za-z]+_)/.exec(s['pattern'])?.[1] ?? '') : '';
      out[name] = `${prefix}ReadOnly${tail}`;
    } else if (name === 'status' || name === 'kyc_status') {
      const values = Array.isArray(s['enum']) ? s['enum'].filter((v): v is string => typeof v === 'string') : [];
      // A value a new object would not start with: the last one listed (one value only cannot show anything).
      if (values.length > 1) out[name] = values[values.length - 1];
    } else if (name === 'balance' || name === 'available_balance') out[name] = PLANTED_AMOUNT;
    else if (name === 'tenant_id') out[name] = tenant;
    else out[name] = PLANTED_TIME;
  }
  return out;
}

/** Which planted fields the object carries as planted. */
export function appliedFields(planted: Json, obj: unknown): string[] {
  if (!isObj(obj)) return [];
  return Object.entries(planted)
    .filter(([k, v]) => {
      const got = obj[k];
      if (got === undefined || got === null) return false;
      if (k.endsWith('_at')) return typeof got === 'string' && Date.parse(got) === Date.parse(String(v));
      if (k.endsWith('balance')) return Number(got) === Number(v);
      return canonicalJson(got) === canonicalJson(v);
    })
    .map(([k]) => k);
}

function readOnlyCheck(op: Operation): CheckDef {
  return {
    requirement: 'FSAPI-INPUT-004',
    family: 'input',
    group: op.group!,
    operation: op.operationId,
    variant: 'read-only',
    title: 'read-only fields (id, status, balance, tenant, timestamps) added to a valid create are refused or ignored',
    writes: true,
    async run(ctx) {
      const first = await scoped(ctx, op, { fresh: true });
      const tail = ctx.faker.string.alphanumeric(12);
      const planted = first.driver?.readOnly?.fields ?? plantedFields(ctx.spec, op, tail, ctx.config.credentials.second?.tenantId ?? 'ten_fsapi_read_only');
      if (Object.keys(planted).length === 0) return ctx.skip(`the ${op.operationId} response documents no read-only field to plant`);
      const applied = (obj: unknown) => (first.driver?.readOnly && isObj(obj) ? first.driver.readOnly.applied(obj) : appliedFields(planted, obj));
      // Fields the created object documents, and the others (tenant_id): apart, so that refusing an unknown member
      // cannot hide a documented one being applied.
      const documented = documentedProperties(ctx.spec, op);
      const groups = [Object.keys(planted).filter((k) => documented.has(k)), Object.keys(planted).filter((k) => !documented.has(k))].filter((g) => g.length > 0);
      const reader = ctx.spec.operations.find((o) => o.method === 'GET' && pathParamsOf(o).length === pathParamsOf(op).length + 1 && o.path.startsWith(`${op.path}/{`) && !o.path.slice(op.path.length + 1).includes('/'));
      const notes: string[] = [];
      for (const [i, keys] of groups.entries()) {
        const s = i === 0 ? first : await scoped(ctx, op, { fresh: true });
        const fields = Object.fromEntries(keys.map((k) => [k, planted[k]]));
        const res = await ctx.call(op, { ...s.parts, body: { ...(isObj(s.parts.body) ? s.parts.body : {}), ...fields } });
        if (res.status >= 500) fail(`${describeRequest(res)} with read-only ${keys.join(', ')} caused a server error: ${res.status}${summariseBody(res)}`);
        if (!STATUS.is2xx(res.status)) {
          notes.push(`${keys.join(', ')} refused with ${res.status}`);
          continue;
        }
        const took = applied(res.json);
        check(took.length === 0, `the created object took the planted read-only field(s) ${took.map((k) => `${k}=${JSON.stringify(planted[k])}`).join(', ')}`);
        // The stored object, when it can be read back: what a later reader gets.
        const id = answeredId(res);
        if (reader && id) {
          const name = pathParamsOf(reader).at(-1)!.name;
          const back = await ctx.call(reader, { pathParams: { ...s.parts.pathParams, [name]: id } });
          if (STATUS.is2xx(back.status)) {
            const stored = applied(back.json);
            check(stored.length === 0, `the stored object (${reader.operationId} ${id}) took the planted read-only field(s) ${stored.join(', ')}`);
          } else if (back.status === 404 && keys.includes('tenant_id')) {
            fail(`the object created with tenant_id ${JSON.stringify(planted['tenant_id'])} (${id}) cannot be read by the business that created it: it went to another business`);
          }
        }
        notes.push(`${keys.join(', ')} accepted with ${res.status} and ignored`);
      }
      ctx.observe(notes.join('; '));
    },
  };
}

/** Properties the operation's success response documents (the fields a target could apply). */
function documentedProperties(spec: SpecDocument, op: Operation): Set<string> {
  const created = op.responses.find((r) => r.status === '201') ?? op.responses.find((r) => r.status.startsWith('2'));
  const schema = mergedSchema(spec, created?.content.find((c) => c.mediaType === 'application/json')?.schema);
  return new Set(schema && isObj(schema['properties']) ? Object.keys(schema['properties']) : []);
}

export const inputFamily: CheckFamily = {
  name: 'input validation',
  forOperation(op, plan) {
    if (!op.group || !isWrite(op) || !jsonBodyOf(op)) return [];
    const mutations = mutationsFor(plan.spec, op);
    const defs: CheckDef[] = mutations.map((m) => refusedCheck(op, m));
    // Malformed and non-object bodies apply to every JSON body; named fields only where there is a field to break.
    defs.push(noServerErrors(op));
    if (mutations.length > 0) defs.push(namedErrors(op));
    if (isCreate(op)) defs.push(readOnlyCheck(op));
    // PATCH re-reads use the GET of the same path when no driver counts effects.
    const reader = op.method === 'PATCH' ? readerOf(plan.spec, op) : undefined;
    return reader ? defs.map((d) => ({ ...d, uses: [reader.operationId] })) : defs;
  },
};
