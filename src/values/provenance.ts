/** Which names a target looks up; where a request's values came from is src/http/request-parts.ts. */
/** Ids, tokens and references by their member or parameter name: the values a target looks up (and may not find). */
const RESOURCE_NAME = /(^id$|_id$|Id$|_ids?$|Ids$|ID$|token$|Token$|[sS]id$|_ref$|Ref$|_key$|Key$)/;
export const namesResource = (name: string): boolean => RESOURCE_NAME.test(name.split('.').at(-1)!);
