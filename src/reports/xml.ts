/** A small XML 1.0 writer: escaping only (the document shapes are fixed by their writers). */
import { stripXmlForbidden } from './text.js';

/** Escapes character data; characters XML 1.0 forbids are removed (the exact text stays in conformance.json). */
export function xmlText(s: string): string {
  return stripXmlForbidden(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes an attribute value (double-quoted); tab, CR and LF are kept as character references, not normalised away. */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

export function attrs(a: Record<string, string | number | undefined>): string {
  return Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');
}
