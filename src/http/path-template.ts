const PARAM = /\{([^}]+)\}/g;

/**
 * An operation's path template filled in ("/customers/{id}" → "customers/cus_1"), relative to the base URL, each
 * parameter percent-encoded. Its own module: the preflight, in the run's main thread, needs it without the
 * workers' runtime.
 */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/^\//, '').replace(PARAM, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`path parameter ${name} of ${template} was not given`);
    return encodeURIComponent(v);
  });
}

/** Each template's parameters, found once: a run fills the same few dozen templates thousands of times. */
const paramNames = new Map<string, readonly string[]>();

/** The template's parameters in order: a segment may hold one with more around it (Twilio's `{Sid}.json`). */
export function pathParamNames(template: string): readonly string[] {
  let names = paramNames.get(template);
  if (!names) paramNames.set(template, (names = [...template.matchAll(PARAM)].map((m) => m[1]!)));
  return names;
}

/** The template's parameters that `params` gives no value for. */
export function missingPathParams(template: string, params: Record<string, string>): string[] {
  return pathParamNames(template).filter((name) => params[name] === undefined);
}
