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

/** The template's parameters that `params` gives no value for. */
export function missingPathParams(template: string, params: Record<string, string>): string[] {
  return [...template.matchAll(PARAM)].map((m) => m[1]!).filter((name) => params[name] === undefined);
}
