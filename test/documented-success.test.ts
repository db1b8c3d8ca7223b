/** What a valid request may be answered with (FSAPI-CONTRACT-004): a documented 2xx, or for an operation documenting none, a documented 3xx. */
import { describe, expect, it } from 'vitest';
import type { Operation } from '../src/catalogue/openapi.js';
import { documented2xx, documentedSuccesses } from '../src/checks/support.js';

const op = (statuses: string[]) => ({ responses: statuses.map((status) => ({ status, description: '', headers: [], content: [] })) }) as unknown as Operation;

describe('documented successes', () => {
  it('takes a documented 2xx, exactly or by range, and no 3xx beside one', () => {
    expect(documented2xx(op(['200', '404']), 200)).toBe(true);
    expect(documented2xx(op(['2XX']), 204)).toBe(true);
    expect(documented2xx(op(['201']), 200)).toBe(false);
    expect(documented2xx(op(['200', '302']), 302)).toBe(false);
  });

  it('takes a documented 3xx from an operation that documents no 2xx (a redirect to a download)', () => {
    expect(documented2xx(op(['302', '404']), 302)).toBe(true);
    expect(documented2xx(op(['302']), 301)).toBe(false);
    expect(documentedSuccesses(op(['302', '404']))).toBe('302');
  });
});
