/** KYC: verify customer identity and submit KYC documents. */
import { createHash } from 'node:crypto';
import { kycDocumentCreate, kycSubmission } from '../fixtures/factories.js';
import { check, fail } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import { STATUS } from '../src/harness/assert.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { findInList, idOf, jsonOf, readUntil, type JsonObject } from '../src/world/flow-support.js';

const base = { family: 'flow', group: 'kyc', writes: true } as const;
const decided = (k: JsonObject) => k['status'] === 'approved' || k['status'] === 'rejected';

async function upload(ctx: CheckContext, cid: string): Promise<JsonObject> {
  return jsonOf(await ctx.call('uploadKycDocument', { pathParams: { customer_id: cid }, body: kycDocumentCreate(ctx.faker) }));
}

function steps(k: JsonObject): string[] {
  return Array.isArray(k['history']) ? (k['history'] as JsonObject[]).map((h) => String(h['status'])) : [];
}

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-KYC-001',
    operation: 'submitKyc',
    variant: 'lifecycle',
    title: 'a fresh customer reads not_started; after upload and submission KYC reaches approved through pending and in_review',
    uses: ['getKycStatus', 'uploadKycDocument'],
    async run(ctx) {
      const cid = idOf(await ctx.world.newCustomer());
      const start = jsonOf(await ctx.call('getKycStatus', { pathParams: { customer_id: cid } }));
      check(start['status'] === 'not_started', `a new customer's KYC reads ${JSON.stringify(start['status'])}, not not_started`);
      const doc = await upload(ctx, cid);
      const submitted = jsonOf(await ctx.call('submitKyc', { pathParams: { customer_id: cid }, body: kycSubmission(ctx.faker, [idOf(doc)]) }));
      check(['pending', 'in_review'].includes(String(submitted['status'])), `the submission answered status ${JSON.stringify(submitted['status'])}; expected pending or in_review`);
      const end = await readUntil(ctx, 'getKycStatus', { pathParams: { customer_id: cid } }, decided);
      check(end.ok, `KYC of ${cid} is still ${JSON.stringify(end.value['status'])} after ${ctx.config.webhookWaitMs} ms`);
      check(end.value['status'] === 'approved', `KYC of ${cid} ended ${JSON.stringify(end.value['status'])} (${JSON.stringify(end.value['rejection_reason'])}); a valid submission is approved`);
      const h = steps(end.value);
      const order = ['not_started', 'pending', 'in_review', 'approved'].map((s) => h.indexOf(s));
      check(order.every((i) => i >= 0), `the KYC history of ${cid} is [${h.join(', ')}]; it lacks ${['not_started', 'pending', 'in_review', 'approved'].filter((_, i) => order[i]! < 0).join(' and ')}`);
      check(order.every((i, n) => n === 0 || i > order[n - 1]!), `the KYC history of ${cid} is out of order: [${h.join(', ')}]`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-KYC-002',
    operation: 'submitKyc',
    variant: 'reject-resubmit',
    title: 'a submission with id_number 000000000 ends rejected with a reason, and a new submission is accepted',
    uses: ['getKycStatus', 'uploadKycDocument'],
    referenceOnly: true,
    async run(ctx) {
      const cid = idOf(await ctx.world.newCustomer());
      const doc = await upload(ctx, cid);
      jsonOf(await ctx.call('submitKyc', { pathParams: { customer_id: cid }, body: kycSubmission(ctx.faker, [idOf(doc)], { reject: true }) }));
      const end = await readUntil(ctx, 'getKycStatus', { pathParams: { customer_id: cid } }, decided);
      check(end.ok, `KYC of ${cid} is still ${JSON.stringify(end.value['status'])} after ${ctx.config.webhookWaitMs} ms`);
      check(end.value['status'] === 'rejected', `id_number 000000000 ended ${JSON.stringify(end.value['status'])}; the sandbox rule rejects it`);
      const reason = end.value['rejection_reason'];
      check(typeof reason === 'string' && reason !== '', `the rejected verification of ${cid} carries no rejection_reason (${JSON.stringify(reason)})`);
      const again = await ctx.call('submitKyc', { pathParams: { customer_id: cid }, body: kycSubmission(ctx.faker, [idOf(doc)]) });
      const resubmitted = jsonOf(again, STATUS.is2xx, 'status of the resubmission after rejection');
      check(['pending', 'in_review'].includes(String(resubmitted['status'])), `the resubmission answered status ${JSON.stringify(resubmitted['status'])}; expected pending or in_review`);
      const final = await readUntil(ctx, 'getKycStatus', { pathParams: { customer_id: cid } }, (k) => k['status'] === 'approved');
      check(final.ok, `after resubmission KYC of ${cid} reads ${JSON.stringify(final.value['status'])}, not approved`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-KYC-003',
    operation: 'uploadKycDocument',
    variant: 'listed-with-digest',
    title: "an uploaded document is listed for the customer with the SHA-256 of the decoded bytes",
    uses: ['listKycDocuments'],
    async run(ctx) {
      const cid = idOf(await ctx.world.newCustomer());
      // Bytes of this check's own (a PNG with a random trailer): a digest no other upload shares.
      const png = Buffer.from(String(kycDocumentCreate(ctx.faker)['content']), 'base64');
      const bytes = Buffer.concat([png, Buffer.from(ctx.faker.string.alphanumeric(24))]);
      const body = { ...kycDocumentCreate(ctx.faker), content: bytes.toString('base64') };
      const digest = createHash('sha256').update(bytes).digest('hex');
      const doc = jsonOf(await ctx.call('uploadKycDocument', { pathParams: { customer_id: cid }, body }));
      const id = idOf(doc);
      const { item } = await findInList(ctx, 'listKycDocuments', { pathParams: { customer_id: cid } }, (d) => d['id'] === id);
      if (!item) fail(`document ${id} is not listed by GET /customers/${cid}/kyc/documents`);
      check(item['sha256'] === digest, `document ${id} is listed with sha256 ${JSON.stringify(item['sha256'])}; the decoded bytes sent hash to ${digest}`);
      if ('size_bytes' in item) check(item['size_bytes'] === bytes.length, `document ${id} is listed with size_bytes ${JSON.stringify(item['size_bytes'])}; ${bytes.length} bytes were sent`);
    },
  },
];

await defineSuite('kyc', flows);
