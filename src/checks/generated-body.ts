/**
 * A request body made from the operation's own schema, for an operation no driver serves and whose document gives
 * no example: every required member, with the schema's examples, defaults and enums where it has them (Redocly's
 * openapi-sampler, deterministic), and this run's label where a member is an e-mail address, so what it creates
 * can be found and told apart from earlier runs.
 */
import { createRequire } from 'node:module';
import type { Faker } from '@faker-js/faker';
import { documentRef, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import { isObj } from '../json.js';

type Sampler = typeof import('openapi-sampler');
let sampler: Sampler | undefined;
// Loaded on first use: a run against the reference profile (every operation has a driver) never needs it.
const load = (): Sampler => (sampler ??= createRequire(import.meta.url)('openapi-sampler') as Sampler);

/** The schema with its references as the document writes them, for the sampler (which resolves them in it). */
function documentRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(documentRefs);
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' ? documentRef(x) : documentRefs(x);
  return out;
}

export function generatedBody(spec: SpecDocument, op: Operation, faker: Faker, label: { emailDomain: string; metadataValue: string }): unknown {
  const media = op.requestBody?.content.find((c) => c.mediaType.includes('json'));
  if (!media?.schema || typeof media.schema !== 'object') return undefined;
  const body = load().sample(documentRefs(media.schema) as Parameters<Sampler['sample']>[0], { skipReadOnly: true, skipNonRequired: false, quiet: true }, spec.raw);
  const mark = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(mark);
    if (!isObj(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = typeof x === 'string' && /e-?mail/i.test(k) ? `${faker.internet.username().toLowerCase().replace(/[^a-z0-9]/g, '')}.${label.metadataValue}@${label.emailDomain}` : mark(x);
    }
    return out;
  };
  return mark(body);
}
