/** RFC 9457 problem documents, and the error a handler throws to answer one. */
import type { Schema } from './wire.js';

export type ProblemBody = Schema<'Problem'>;
/** `field`: a JSON Pointer into the body, or the name of the header, query or path parameter. */
export type FieldError = NonNullable<ProblemBody['errors']>[number];

export const PROBLEM_BASE = 'https://problems.fsapi.example/';

/**
 * Thrown anywhere in request processing; the pipeline turns it into a problem response. It carries no stack: it
 * is an answer, never logged, and a stack captured for each of a run's 2000 refusals cost more than the answers.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(detail);
    Error.stackTraceLimit = limit;
  }
}

export function problemBody(status: number, code: string, title: string, detail: string, errors?: FieldError[]): ProblemBody {
  return { type: `${PROBLEM_BASE}${code.replace(/_/g, '-')}`, title, status, detail, code, ...(errors ? { errors } : {}) };
}

export const notFound = (what: string, id: string): ApiError => new ApiError(404, 'not_found', 'Not found', `No ${what} ${id} exists.`);

export const validationError = (errors: FieldError[]): ApiError =>
  new ApiError(
    400,
    'validation_error',
    'Request validation failed',
    errors.length === 1 ? `${errors[0]!.field} ${errors[0]!.message}.` : `${errors.length} fields are invalid.`,
    errors,
  );

/** A business rule refused the request (422), naming the field it is about when there is one. */
export const unprocessable = (code: string, title: string, detail: string, field?: string): ApiError =>
  new ApiError(422, code, title, detail, field ? [{ field, message: detail }] : undefined);

export const conflict = (code: string, title: string, detail: string): ApiError => new ApiError(409, code, title, detail);
