/**
 * A request body made from the operation's own schema, for an operation no driver serves and whose document gives
 * no valid example: every required member, valid for its format, pattern, enum and bounds, readOnly members left
 * out, a discriminated branch with its discriminator set (src/values/generate.ts), and this run's label where a
 * member is an e-mail address, so what it creates can be found and told apart from earlier runs.
 */
import type { Faker } from '@faker-js/faker';
import { requestMediaOf, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import { isObj } from '../json.js';
import { generateValid, type GenerateOptions, type Generated } from '../values/generate.js';

export function generatedBody(spec: SpecDocument, op: Operation, faker: Faker, label: { emailDomain: string; metadataValue: string }, seed: number, opts: GenerateOptions = {}): Generated {
  const media = requestMediaOf(op);
  const mark = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(mark);
    if (!isObj(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = typeof x === 'string' && /e-?mail/i.test(k) ? `${faker.internet.username().toLowerCase().replace(/[^a-z0-9]/g, '')}.${label.metadataValue}@${label.emailDomain}` : mark(x);
    }
    return out;
  };
  return generateValid(spec, media?.schema, seed, mark, opts);
}
