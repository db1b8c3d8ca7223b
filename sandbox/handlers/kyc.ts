/**
 * KYC: documents (stored as digest and size of the decoded bytes) and the verification of each customer.
 * A submission answers 202 in_review; the sandbox decides right after answering: id_number 000000000 is rejected
 * (document_mismatch), any other is approved. A rejected customer may submit again.
 */
import { createHash } from 'node:crypto';
import { conflict, notFound, unprocessable } from '../problem.js';
import { newId, type CustomerRec, type DocumentRec, type KycRec } from '../store.js';
import { applyReadOnly, created, emit, find, listOf, now, ok, param, type Context, type Handlers } from './context.js';
import type { Schema } from '../wire.js';

export const REJECTED_ID_NUMBER = '000000000';

export type KycDocumentView = Schema<'KycDocument'>;

export type KycVerificationView = Schema<'KycVerification'>;

type DocumentCreate = Schema<'KycDocumentCreate'>;

type Submission = Schema<'KycSubmission'>;

export function documentView(d: DocumentRec): KycDocumentView {
  return {
    id: d.id,
    object: 'kyc_document',
    customer_id: d.customer_id,
    type: d.type,
    side: d.side,
    file_name: d.file_name,
    content_type: d.content_type,
    size_bytes: d.size_bytes,
    sha256: d.sha256,
    status: 'uploaded',
    created_at: d.created_at,
  };
}

export function verificationView(k: KycRec): KycVerificationView {
  return {
    id: k.id,
    object: 'kyc_verification',
    customer_id: k.customer_id,
    status: k.status,
    id_type: k.id_type,
    document_ids: [...k.document_ids],
    rejection_reason: k.rejection_reason,
    history: k.history.map((h) => ({ ...h })),
    submitted_at: k.submitted_at,
    decided_at: k.decided_at,
    created_at: k.created_at,
    updated_at: k.updated_at,
  };
}

function customerOf(ctx: Context): CustomerRec {
  return find(ctx, (t) => t.customers, param(ctx, 'customer_id'), 'customer');
}

/** The verification of a customer; it lives in the customer's tenant (which may differ under tenant-isolation-broken). */
function verificationOf(ctx: Context, c: CustomerRec): KycRec {
  const owner = ctx.tenant.customers.has(c.id) ? ctx.tenant : ctx.store.ownerOf('customers', c.id)!;
  return owner.kyc.get(c.id)!;
}

/** The review's decision, taken right after the submission was answered. */
function decide(ctx: Context, c: CustomerRec, k: KycRec): void {
  const at = now();
  const rejected = k.id_number === REJECTED_ID_NUMBER && !ctx.faults.has('kyc-reject-ignored');
  k.status = rejected ? 'rejected' : 'approved';
  k.rejection_reason = rejected ? 'document_mismatch' : null;
  k.decided_at = at;
  k.updated_at = at;
  k.history.push({ status: k.status, at });
  c.kyc_status = k.status;
  c.updated_at = at;
  emit(ctx, rejected ? 'kyc.rejected' : 'kyc.approved', verificationView(k));
}

export const kyc: Handlers = {
  uploadKycDocument: {
    run(ctx) {
      const c = customerOf(ctx);
      const b = ctx.body as DocumentCreate;
      const bytes = Buffer.from(b.content, 'base64');
      const d: DocumentRec = applyReadOnly(ctx, {
        id: newId('doc'),
        seq: ctx.store.nextSeq(),
        customer_id: c.id,
        type: b.type,
        side: b.side ?? null,
        file_name: b.file_name,
        content_type: b.content_type,
        size_bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        created_at: now(),
      });
      ctx.tenant.documents.set(d.id, d);
      return created(ctx, documentView(d), `/customers/${c.id}/kyc/documents/${d.id}`);
    },
  },

  listKycDocuments: {
    run(ctx) {
      const c = customerOf(ctx);
      const docs = ctx.faults.has('kyc-documents-not-listed') ? [] : [...ctx.tenant.documents.values()].filter((d) => d.customer_id === c.id);
      return ok(listOf(ctx, docs, documentView));
    },
  },

  getKycDocument: {
    run(ctx) {
      const c = customerOf(ctx);
      const d = ctx.tenant.documents.get(param(ctx, 'document_id'));
      if (!d || d.customer_id !== c.id) throw notFound('KYC document', param(ctx, 'document_id'));
      return ok(documentView(d));
    },
  },

  getKycStatus: {
    run(ctx) {
      const c = customerOf(ctx);
      return ok(verificationView(verificationOf(ctx, c)));
    },
  },

  submitKyc: {
    run(ctx) {
      const c = customerOf(ctx);
      const k = verificationOf(ctx, c);
      const b = ctx.body as Submission;
      if (k.status === 'approved') throw conflict('kyc_already_approved', 'KYC already approved', `Customer ${c.id} is already verified.`);
      if (k.status === 'pending' || k.status === 'in_review') {
        throw conflict('kyc_in_review', 'KYC in review', `A verification of customer ${c.id} is already under review.`);
      }
      b.document_ids.forEach((id, i) => {
        const d = ctx.tenant.documents.get(id);
        if (!d || d.customer_id !== c.id) {
          throw unprocessable('document_not_found', 'Unknown document', `No KYC document ${id} exists for customer ${c.id}.`, `/document_ids/${i}`);
        }
      });
      const at = now();
      k.status = 'in_review';
      k.id_type = b.id_type;
      k.id_number = b.id_number;
      k.document_ids = [...b.document_ids];
      k.rejection_reason = null;
      k.submitted_at = at;
      k.decided_at = null;
      k.updated_at = at;
      if (!ctx.faults.has('kyc-skip-review')) k.history.push({ status: 'pending', at }, { status: 'in_review', at });
      c.kyc_status = 'in_review';
      c.updated_at = at;
      const view = verificationView(k);
      emit(ctx, 'kyc.submitted', view);
      ctx.after(() => decide(ctx, c, k));
      return { status: 202, body: view };
    },
  },
};
