/**
 * Pairs the vendor's operations with the reference's, best first and one to one, and assembles the binding: its
 * entries (active at ACTIVE_CONFIDENCE and above, suggestions below), the vendor's conventions, groups and the
 * operations it could not place.
 */
import type { Operation, SpecDocument } from '../../catalogue/openapi.js';
import { GROUPS, type GroupSlug } from '../../catalogue/groups.js';
import { SEED_FIXED, type BindingFile, type OperationBinding } from '../format.js';
import { ACTIVE_CONFIDENCE } from '../../confidence.js';
import { squash, words } from './vocabulary.js';
import { collectionOf, routeOf, shapeOf, type Shape } from './shapes.js';
import { effectOf, type Effect } from './effect.js';
import { contradiction } from './meaning.js';
import { confidence, score, THRESHOLD } from './scoring.js';
import { inferErrors, inferEvents, inferValues, queryRenames, rawFields } from './conventions.js';

export interface Inference {
  binding: BindingFile;
  /** Pairings too weak to act on: written commented out for a person to take or leave. */
  suggestions: { reference: string; entry: OperationBinding }[];
  /** Reference operations no vendor operation was found to play (suggestions aside). */
  missing: string[];
  threshold: number;
}

export function inferBinding(vendor: SpecDocument, reference: SpecDocument, specLabel: string, opts: { threshold?: number } = {}): Inference {
  const threshold = opts.threshold ?? ACTIVE_CONFIDENCE;
  const vs = vendor.operations.map((o) => shapeOf(vendor, o, collectionEffects(vendor)));
  const rs = reference.operations.map((o) => shapeOf(reference, o, collectionEffects(reference)));
  const spelled = vs.filter((v) => v.plural !== undefined);
  const pluralApi = spelled.filter((v) => v.plural).length > spelled.length / 2;
  // Collections the API writes: a POST, PUT or PATCH on the collection or on a member of it (a KYC singleton is
  // submitted at /identity-verifications/{customer}; Xero creates with a PUT).
  const creatableIn = (ops: readonly Operation[]) => new Set(ops.filter((o) => o.method === 'POST' || o.method === 'PUT' || o.method === 'PATCH').map((o) => collectionOf(routeOf(o.path))));
  const creates = { vendor: creatableIn(vendor.operations), reference: creatableIn(reference.operations) };
  const pairs: { v: Shape; r: Shape; score: number; reasons: string[] }[] = [];
  for (const v of vs) {
    for (const r of rs) {
      // Every path parameter must be fillable from the reference's, and no vendor one left without a value.
      if (v.params.length !== r.params.length) continue;
      const fixed = SEED_FIXED[r.op.operationId];
      // What the seed fixes is played only by the seed's own method and path.
      if (fixed && (v.op.method !== fixed.method || v.op.path !== fixed.path)) continue;
      if (v.op.method !== r.op.method || contradiction(v, r)) continue;
      const sc = score(v, r, pluralApi, creates);
      if (sc.score >= THRESHOLD) pairs.push({ v, r, ...sc });
    }
  }
  pairs.sort((a, b) => b.score - a.score);
  const takenV = new Set<string>();
  const takenR = new Set<string>();
  const operations: Record<string, OperationBinding> = {};
  const suggestions: Inference['suggestions'] = [];
  const bound: { v: Shape; r: Shape; entry: OperationBinding }[] = [];
  for (const p of pairs) {
    if (takenV.has(p.v.op.operationId) || takenR.has(p.r.op.operationId)) continue;
    // A suggestion holds its reference operation (no weaker pair of it is proposed), not its vendor operation.
    takenR.add(p.r.op.operationId);
    const entry: OperationBinding = { operation: p.v.op.operationId };
    const pp: Record<string, string> = {};
    p.r.params.forEach((name, i) => {
      const vName = p.v.params[i];
      if (vName && vName !== name) pp[name] = vName;
    });
    if (Object.keys(pp).length) entry.path_params = pp;
    const query = queryRenames(p.v.op, p.r.op);
    if (query) entry.query = query;
    if (p.v.envelope && !p.r.envelope) entry.envelope = p.v.envelope;
    if (p.r.list && p.v.list && JSON.stringify(p.v.list.shape) !== JSON.stringify(p.r.list.shape)) entry.list = p.v.list.shape;
    entry.confidence = confidence(p.score);
    entry.reason = p.reasons.join('; ') || 'weak evidence';
    if (entry.confidence < threshold) {
      suggestions.push({ reference: p.r.op.operationId, entry });
      continue;
    }
    takenV.add(p.v.op.operationId);
    operations[p.r.op.operationId] = entry;
    bound.push({ ...p, entry });
  }

  // Field names: a reference field the vendor spells otherwise (first_name / firstName) in a bound pair's schemas.
  const fields: Record<string, string> = {};
  for (const { v, r } of bound) {
    const vNames = [...rawFields(vendor, v.op)];
    for (const refName of rawFields(reference, r.op)) {
      const twin = vNames.find((n) => n !== refName && squash(n) === squash(refName));
      if (twin && !SEED_FIXED[r.op.operationId]) fields[refName] = twin;
    }
  }
  const events = inferEvents(vendor, reference);
  const { states, values } = inferValues(vendor, reference, bound, fields);
  const errors = inferErrors(vendor);

  const groups: Record<string, GroupSlug> = {};
  const unbound: { operation: string; reason: string }[] = [];
  for (const v of vs) {
    if (takenV.has(v.op.operationId)) continue;
    const g = v.op.group && v.op.group !== 'unbound' ? v.op.group : groupByWords([...v.groupWords, ...v.pathWords, ...v.idWords]);
    if (g) groups[v.op.operationId] = g;
    else unbound.push({ operation: v.op.operationId, reason: `${v.op.method} ${v.op.path} plays no reference operation, and neither its tags nor its path name a group` });
  }
  const binding: BindingFile = {
    binding: 1,
    spec: specLabel,
    ...(Object.keys(fields).length ? { fields } : {}),
    ...(Object.keys(states).length ? { states } : {}),
    ...(Object.keys(values).length ? { values } : {}),
    ...(Object.keys(events).length ? { events } : {}),
    ...(errors ? { errors } : {}),
    operations,
    ...(Object.keys(groups).length ? { groups } : {}),
    ...(unbound.length ? { unbound } : {}),
  };
  return { binding, suggestions, threshold, missing: reference.operations.map((o) => o.operationId).filter((id) => !operations[id]) };
}

function groupByWords(ws: string[]): GroupSlug | undefined {
  const counts = new Map<GroupSlug, number>();
  for (const g of GROUPS) {
    const gw = words(g.tag);
    const n = ws.filter((w) => gw.includes(w) || w === g.slug).length;
    if (n) counts.set(g.slug, n);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** What each collection does with money, said by its create (POST on the collection): its reads mean the same. */
function collectionEffects(spec: SpecDocument): Map<string, Effect> {
  const out = new Map<string, Effect>();
  for (const op of spec.operations) {
    if (op.method !== 'POST' || /\}$/.test(op.path)) continue;
    const effect = effectOf(spec, op);
    const collection = collectionOf(routeOf(op.path));
    if (effect && !out.has(collection)) out.set(collection, effect);
  }
  return out;
}
