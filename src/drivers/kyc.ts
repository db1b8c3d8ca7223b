/** KYC: verification status, submission (counted in the history), documents (counted in the list). */
import { kycDocumentCreate, kycSubmission } from '../../fixtures/factories.js';
import type { JsonObject } from '../harness/world.js';
import type { OperationDriver } from './types.js';
import { bodyOf, consumable, idOf, pathParam, READ_ONLY_TIMESTAMP, readOk, readOnlyFields } from './shared.js';

/**
 * How many submissions a verification's history shows. Each submission adds pending and in_review, and its
 * decision approved or rejected; the largest of those counts survives a history that leaves a step out.
 */
export function submissionsIn(history: unknown): number {
  const steps = Array.isArray(history) ? (history as JsonObject[]).map((h) => h['status']) : [];
  const n = (...s: string[]) => steps.filter((x) => typeof x === 'string' && s.includes(x)).length;
  return Math.max(n('pending'), n('in_review'), n('approved', 'rejected'));
}

export const kycDrivers: OperationDriver[] = [
  {
    operationId: 'getKycStatus',
    kind: 'read',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      return { pathParams: { customer_id: idOf(c) } };
    },
  },
  {
    operationId: 'submitKyc',
    kind: 'action',
    async build(scope, { fresh }) {
      // A submission is accepted once per customer (409 while in review or once approved): never shared.
      const { customer, doc } = await consumable(scope, fresh, 'submitKyc', async () => {
        const customer = await scope.world.newCustomer();
        return { customer, doc: await scope.world.kycDocument(idOf(customer)) };
      });
      return { pathParams: { customer_id: idOf(customer) }, body: kycSubmission(scope.ctx.faker, [idOf(doc)]) };
    },
    effects(parts) {
      const id = pathParam(parts, 'customer_id');
      return { kind: 'read', read: 'getKycStatus', pathParams: { customer_id: id }, count: (res) => submissionsIn(readOk(res, `read the KYC status of ${id}`)['history']) };
    },
    vary: (parts, scope) => ({ ...parts, body: { ...bodyOf(parts), id_number: `N${scope.ctx.faker.string.numeric(8)}` } }),
  },
  {
    operationId: 'uploadKycDocument',
    kind: 'create',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      return { pathParams: { customer_id: idOf(c) }, body: kycDocumentCreate(scope.ctx.faker) };
    },
    /** Documents of the customer with the request's file name (unique per request). */
    effects(parts) {
      const id = pathParam(parts, 'customer_id');
      const name = bodyOf(parts)['file_name'];
      return { kind: 'list', list: 'listKycDocuments', pathParams: { customer_id: id }, what: `list the KYC documents of ${id}`, count: (docs) => docs.filter((d) => d['file_name'] === name).length };
    },
    vary: (parts) => ({ ...parts, body: { ...bodyOf(parts), side: bodyOf(parts)['side'] === 'back' ? 'front' : 'back' } }),
    readOnly: readOnlyFields({
      id: 'doc_FsapiReadOnly0001',
      size_bytes: 999_999,
      sha256: 'ab'.repeat(32),
      created_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'getKycDocument',
    kind: 'read',
    async build(scope) {
      const c = await scope.world.customer();
      const d = await scope.world.kycDocument(idOf(c));
      return { pathParams: { customer_id: idOf(c), document_id: idOf(d) } };
    },
  },
  {
    operationId: 'listKycDocuments',
    kind: 'read',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      return { pathParams: { customer_id: idOf(c) } };
    },
  },
];
