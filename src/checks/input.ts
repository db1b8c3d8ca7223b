/**
 * Input validation (OWASP API3/API8, RFC 9110): bodies that break the request schema of the spec in use are
 * refused with a 4xx and change nothing (one check per operation and broken property), never cause a 5xx, and
 * (profile) answer 400/422 naming the field; read-only fields on create are refused or ignored.
 */
import { judgeSkips, probeAnswer } from '../harness/judge.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { check, describeRequest, fail, answeredId, STATUS, summariseBody } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import { applyMutation, describeMutation, dottedOf, mutationsFor, pointerOf, slugOf, type Mutation } from './mutations.js';
import type { CheckFamily } from './plan.js';
import { isCreate, isWrite, jsonBodyOf, pathParamsOf, readerOf, scoped, skipEffects, stateProbe, type Scoped } from './support.js';
import { canonicalJson, isObj, type JsonObject } from '../json.js';
import type { RequestParts } from '../http/request-parts.js';
import { mergedSchema } from '../catalogue/schema-walker.js';
import { sameValue } from '../drivers/shared.js';


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

/** Bodies that are not the expected JSON object at all, by the case name their exchange records. */
const RAW_BODIES: Record<string, { what: string; raw: (valid: string) => string }> = {
  'truncated-json': { what: 'truncated JSON', raw: (text) => text.slice(0, Math.max(1, Math.floor(text.length / 2))) },
  'json-array': { what: 'a JSON array body', raw: () => '[]' },
  'json-null': { what: 'a JSON null body', raw: () => 'null' },
  'json-string': { what: 'a JSON string body', raw: () => '"fsapi"' },
};

interface NegativeBody {
  /** Recorded with its exchange (a mutation's slug or a RAW_BODIES key): what the judge names the answer by. */
  case: string;
  parts: RequestParts;
  raw?: string;
}

/** Every negative body of an operation: its schema mutations (those that break the schema), then the raw ones. */
function negativeBodies(ctx: CheckContext, op: Operation, parts: RequestParts, mutations: readonly Mutation[]): NegativeBody[] {
  const out: NegativeBody[] = [];
  for (const m of mutations) {
    const body = applyMutation(parts.body, m);
    if (body === undefined || ctx.spec.validateRequestBody(op, body).length === 0) continue;
    out.push({ case: slugOf(m), parts: { ...parts, body } });
  }
  const text = JSON.stringify(parts.body ?? {});
  for (const [name, b] of Object.entries(RAW_BODIES)) out.push({ case: name, parts, raw: b.raw(text) });
  return out;
}

/** Sends a negative body, its case recorded with the exchange. */
async function sendNegative(ctx: CheckContext, op: Operation, c: NegativeBody): Promise<HttpResponse> {
  const res = await ctx.call(op, c.parts, c.raw !== undefined ? { rawBody: c.raw, probe: 'malformed-body' } : { probe: 'invalid-body' });
  res.exchange.case = c.case;
  return res;
}

/**
 * The answers to negative bodies, each with what its recorded case broke (from the document's mutations, so the
 * evidence names a case, never the words). A case the document does not give is not this check's evidence.
 */
function negativeAnswers(answers: readonly HttpResponse[], mutations: readonly Mutation[]): { what: string; m?: Mutation; res: HttpResponse }[] {
  return answers.flatMap((res) => {
    const name = res.exchange.case;
    if (name === undefined) return [];
    const m = mutations.find((x) => slugOf(x) === name);
    if (m) return [{ what: `a body ${describeMutation(m)}`, m, res }];
    const raw = RAW_BODIES[name];
    if (!raw) throw new Error(`${describeRequest(res)} is recorded as case ${JSON.stringify(name)}, which this operation's document does not give`);
    return [{ what: raw.what, res }];
  });
}

function noServerErrors(op: Operation, mutations: readonly Mutation[]): CheckDef {
  return {
    requirement: 'FSAPI-INPUT-002',
    family: 'input',
    group: op.group!,
    operation: op.operationId,
    variant: 'no-5xx',
    title: 'no invalid body (schema mutations, malformed JSON, non-object JSON) causes a 5xx',
    writes: true,
    judge(answers) {
      const sent = negativeAnswers(answers, mutations);
      if (sent.length === 0) throw new Error('no answer to an invalid body recorded to judge');
      const errors = sent.filter((c) => c.res.status >= 500).map((c) => `${c.what} answered ${c.res.status}${summariseBody(c.res)}`);
      if (errors.length) fail(`${errors.length} of ${sent.length} invalid bodies caused a server error: ${errors.slice(0, 3).join('; ')}${errors.length > 3 ? '; ...' : ''}`);
    },
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const cases = negativeBodies(ctx, op, s.parts, mutations);
      for (const c of cases) await sendNegative(ctx, op, c);
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

function namedErrors(op: Operation, mutations: readonly Mutation[], boundErrors: boolean): CheckDef {
  return {
    requirement: 'FSAPI-INPUT-003',
    family: 'input',
    group: op.group!,
    operation: op.operationId,
    variant: 'field-named',
    title: 'each refused invalid body answers 400 or 422 with errors[].field naming the broken field',
    writes: true,
    judge(answers) {
      const sent = negativeAnswers(answers, mutations).filter((c) => c.m);
      if (sent.length === 0) throw new Error('no answer to an invalid body recorded to judge');
      const wrong: string[] = [];
      let refused = 0;
      for (const { what, m, res } of sent) {
        if (!STATUS.is4xx(res.status)) continue; // accepted or a server error: FSAPI-INPUT-001/002 judge those
        refused++;
        if (res.status !== 400 && res.status !== 422) wrong.push(`${what} answered ${res.status}, not 400 or 422`);
        else if (!namesField(res, m!, boundErrors)) {
          const listed = (res.json as { errors?: { field?: unknown }[] } | undefined)?.errors;
          wrong.push(`${what} answered ${res.status} ${Array.isArray(listed) ? `with errors naming ${listed.map((e) => String(e?.field)).slice(0, 3).join(', ') || 'nothing'}` : boundErrors ? 'with a message that does not name it' : 'without an errors list'}, not ${pointerOf(m!)}`);
        }
      }
      if (refused === 0) judgeSkips.skip(`none of the ${sent.length} invalid bodies was refused (FSAPI-INPUT-001 judges that)`);
      if (wrong.length) fail(`${wrong.length} of ${refused} refusals do not name the field: ${wrong.slice(0, 3).join('; ')}${wrong.length > 3 ? '; ...' : ''}`);
    },
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const cases = negativeBodies(ctx, op, s.parts, mutations).filter((c) => c.raw === undefined);
      if (cases.length === 0) ctx.skip(`no property of the ${op.operationId} body has a constraint to break`);
      let refused = 0;
      for (const c of cases) if (STATUS.is4xx((await sendNegative(ctx, op, c)).status)) refused++;
      ctx.observe(`${refused} refusals, each 400/422 naming its field`);
    },
  };
}

// --- Read-only fields --------------------------------------------------------------------------------------------

const READ_ONLY = ['id', 'status', 'kyc_status', 'balance', 'available_balance', 'tenant_id', 'created_at', 'updated_at'];
const PLANTED_TIME = '2001-02-03T04:05:06Z';
const PLANTED_AMOUNT = '987654.32';

/** Read-only fields worth planting, with values that fit them (so a target that applies them would store them). */
export function plantedFields(spec: SpecDocument, op: Operation, tail: string, tenant: string): JsonObject {
  const created = op.responses.find((r) => r.status === '201') ?? op.responses.find((r) => r.status.startsWith('2'));
  const media = created?.content.find((c) => c.mediaType === 'application/json');
  const schema = mergedSchema(spec, media?.schema);
  const props = schema && isObj(schema['properties']) ? schema['properties'] : {};
  const out: JsonObject = {};
  for (const name of READ_ONLY) {
    if (!(name in props) && name !== 'tenant_id') continue;
    const s = mergedSchema(spec, props[name] as JsonObject) ?? {};
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
export function appliedFields(planted: JsonObject, obj: unknown): string[] {
  if (!isObj(obj)) return [];
  return Object.entries(planted)
    .filter(([k, v]) => {
      const got = obj[k];
      if (got === undefined || got === null) return false;
      // As a reader means it (decimals by value, timestamps by instant), and by the field's kind when its form differs.
      if (sameValue(got, v)) return true;
      if (k.endsWith('_at')) return typeof got === 'string' && Date.parse(got) === Date.parse(String(v));
      if (k.endsWith('balance')) return Number(got) === Number(v);
      return canonicalJson(got) === canonicalJson(v);
    })
    .map(([k]) => k);
}

const PLANTED = 'planted:';
const READ_BACK = 'read-back';

/** The read-only fields a create's recorded case names, with the values its recorded request body planted. */
function plantedIn(res: HttpResponse, keys: string[]): JsonObject {
  let body: unknown;
  try {
    body = JSON.parse(res.exchange.request.body ?? '');
  } catch {
    body = undefined;
  }
  const missing = isObj(body) ? keys.filter((k) => !(k in body)) : keys;
  if (!isObj(body) || missing.length) throw new Error(`${describeRequest(res)} is recorded as planting ${missing.join(', ')}, which its recorded body does not carry`);
  return Object.fromEntries(keys.map((k) => [k, body[k] as JsonObject]));
}

/**
 * Each create that planted read-only fields (its case names them; its recorded body holds their values), and the
 * read-back that follows it: a server error fails, a refusal passes, an accepted create must not carry any planted
 * value, nor the object read back; one that planted tenant_id must still be readable by its own business.
 */
function judgeReadOnly(answers: readonly HttpResponse[]): void {
  let creates = 0;
  for (const [i, res] of answers.entries()) {
    const name = res.exchange.case;
    if (!name?.startsWith(PLANTED)) continue;
    creates++;
    const keys = name.slice(PLANTED.length).split(',');
    const planted = plantedIn(res, keys);
    if (res.status >= 500) fail(`${describeRequest(res)} with read-only ${keys.join(', ')} caused a server error: ${res.status}${summariseBody(res)}`);
    if (!STATUS.is2xx(res.status)) continue;
    const took = appliedFields(planted, res.json);
    check(took.length === 0, `the created object took the planted read-only field(s) ${took.map((k) => `${k}=${JSON.stringify(planted[k])}`).join(', ')}`);
    const back = answers[i + 1]?.exchange.case === READ_BACK ? answers[i + 1]! : undefined;
    if (!back) continue;
    const id = answeredId(res);
    if (STATUS.is2xx(back.status)) {
      const stored = appliedFields(planted, back.json);
      check(stored.length === 0, `the stored object (${back.exchange.operation ?? back.exchange.request.url} ${id}) took the planted read-only field(s) ${stored.join(', ')}`);
    } else if (back.status === 404 && keys.includes('tenant_id')) {
      fail(`the object created with tenant_id ${JSON.stringify(planted['tenant_id'])} (${id}) cannot be read by the business that created it: it went to another business`);
    }
  }
  if (creates === 0) throw new Error('no answer to a create with planted read-only fields recorded to judge');
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
    judge: judgeReadOnly,
    async run(ctx) {
      const first = await scoped(ctx, op, { fresh: true });
      const tail = ctx.faker.string.alphanumeric(12);
      const planted = first.driver?.readOnly?.fields ?? plantedFields(ctx.spec, op, tail, ctx.config.credentials.second?.tenantId ?? 'ten_fsapi_read_only');
      if (Object.keys(planted).length === 0) return ctx.skip(`the ${op.operationId} response documents no read-only field to plant`);
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
        // The planted fields' names, as data for the judge (their values are in the recorded body).
        res.exchange.case = `${PLANTED}${keys.join(',')}`;
        if (!STATUS.is2xx(res.status)) {
          notes.push(`${keys.join(', ')} ${res.status >= 500 ? 'caused' : 'refused with'} ${res.status}`);
          continue;
        }
        // The stored object, when it can be read back: what a later reader gets.
        const id = answeredId(res);
        if (reader && id) {
          const name = pathParamsOf(reader).at(-1)!.name;
          const back = await ctx.call(reader, { pathParams: { ...s.parts.pathParams, [name]: id } });
          back.exchange.case = READ_BACK;
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
    defs.push(noServerErrors(op, mutations));
    if (mutations.length > 0) defs.push(namedErrors(op, mutations, plan.binding?.boundErrors ?? false));
    if (isCreate(op)) defs.push(readOnlyCheck(op));
    // PATCH re-reads use the GET of the same path when no driver counts effects.
    const reader = op.method === 'PATCH' ? readerOf(plan.spec, op) : undefined;
    return reader ? defs.map((d) => ({ ...d, uses: [reader.operationId] })) : defs;
  },
};
