/**
 * The one rule on made-up values (the document's examples, values made from its schemas): an answer that only says
 * the made-up resource does not exist (404, 410, or a 422 that names the made-up value or its member) is not a verdict on the
 * requirement under test. The check is skipped as a refused prerequisite, with the cause; and the traffic observer
 * counts such a 4xx as one the suite provoked. A check whose expected answer comes whatever the id (401 without a
 * valid key; 404 for an id made unknown on purpose) is judged on it as usual.
 */
import type { HttpResponse } from '../http/client.js';
import { namesResource } from './provenance.js';
import type { MadeUpValue, Probe } from '../http/request-parts.js';

/** Probes whose expected answer does not depend on the resource existing. */
const JUDGED_WHATEVER_THE_ID: ReadonlySet<Probe> = new Set<Probe>(['no-key', 'bad-key', 'unknown-id']);

/**
 * The made-up values an answer says do not exist, or none when the answer is anything else. Only values that name a
 * resource count: every path parameter, and the query parameters and body members named like ids; a made-up date
 * or enum next to a real id is no reason for the target not to find it.
 */
export function notFoundMadeUp(res: Pick<HttpResponse, 'status' | 'text'>, values: readonly MadeUpValue[] | undefined): MadeUpValue[] {
  const named = (values ?? []).filter((v) => v.in === 'path' || (v.in !== 'header' && namesResource(v.name)));
  if (named.length === 0) return [];
  // A path names the resource; failing that, a query parameter or body member that refers to one.
  if (res.status === 404 || res.status === 410) {
    const inPath = named.filter((v) => v.in === 'path');
    return inPath.length ? inPath : named;
  }
  if (res.status === 422) return named.filter((v) => (v.value.length >= 3 && res.text.includes(v.value)) || mentions(res.text, v.name));
  return [];
}

/** Whether an error text names a member or parameter (its last segment, as a word: "/customerId: no such customer"). */
function mentions(text: string, name: string): boolean {
  const member = name.split('.').at(-1)!;
  return member.length >= 3 && new RegExp(`(^|[^A-Za-z0-9_])${member.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^A-Za-z0-9_]|$)`).test(text);
}

/** Why the answer is no verdict on the check's requirement, or undefined when it is one. */
export function madeUpRefusal(res: Pick<HttpResponse, 'status' | 'text'>, values: readonly MadeUpValue[] | undefined, probe: Probe | undefined): string | undefined {
  if (probe && JUDGED_WHATEVER_THE_ID.has(probe)) return undefined;
  const named = notFoundMadeUp(res, values);
  if (named.length === 0) return undefined;
  const what = named
    .slice(0, 3)
    .map((v) => `${v.in} ${v.name}=${v.value.length > 40 ? `${v.value.slice(0, 40)}...` : v.value} (${v.origin === 'example' ? "the document's example" : 'made from its schema'})`)
    .join(', ');
  return `the target answered ${res.status}: it knows no resource by the made-up ${what}, so the answer says nothing of the requirement; give the operation a value source (an OpenAPI link from the operation that creates it, or a list the suite can read)`;
}
