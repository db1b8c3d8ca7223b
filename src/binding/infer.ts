/**
 * Infers a binding from a vendor's document by comparing each of its operations with the reference profile's:
 * method, path structure, operationId, summary, tags and the field names of request and response schemas. Every
 * entry carries a confidence and the reasons, for a person to review before a certification run. A pairing whose
 * confidence is below ACTIVE_CONFIDENCE (src/confidence.ts) is only a suggestion (written commented out, never used by a run); a
 * pairing that contradicts the reference operation's action (freeze, upload, ...) or names another resource is
 * not proposed at all. It also infers the vendor's conventions: field, query and path parameter names, enum values
 * (`states`, `values`), event types, the error shape, envelopes and list paging.
 *
 * The work is split by job under infer/: vocabulary (words and synonyms), shapes (what an operation looks like),
 * meaning (action, resource and effect agreement), scoring, pairing (the binding assembled) and conventions (names,
 * values, events, errors).
 */
export { inferBinding, type Inference } from './infer/pairing.js';
