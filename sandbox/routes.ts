/**
 * The sandbox's routes come from the spec: one route per path template, with the operations it documents.
 * Request parameters are validated against the parameter schemas of the spec (each compiled once, on first use:
 * a short run touches a few operations, and compiling all of them up front cost it 0.2 s).
 */
import { type HttpMethod, type Operation, type SpecDocument } from '../src/catalogue/index.js';
import type { JsonSchema } from '../src/catalogue/index.js';
import type { FaultSet } from './faults.js';
import type { FieldError } from './problem.js';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';

let reference: Promise<SpecDocument> | undefined;

/** The reference profile, loaded once per process (its validators are compiled as requests need them). */
export function referenceSpec(): Promise<SpecDocument> {
  // The process's one reference catalogue: the runner embedding the sandbox has usually loaded it already.
  reference ??= loadCatalogue().then(({ spec }) => spec);
  return reference;
}

export interface Route {
  template: string;
  ops: Map<HttpMethod, Operation>;
  regex: RegExp;
  paramNames: string[];
  literalSegments: number;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

export class Router {
  readonly routes: Route[];

  constructor(operations: readonly Operation[]) {
    const byTemplate = new Map<string, Route>();
    for (const op of operations) {
      let route = byTemplate.get(op.path);
      if (!route) {
        const paramNames: string[] = [];
        const segments = op.path.split('/').filter(Boolean);
        const pattern = segments
          .map((s) => {
            const m = /^\{([^}]+)\}$/.exec(s);
            if (m) {
              paramNames.push(m[1]!);
              return '/([^/]+)';
            }
            return `/${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
          })
          .join('');
        route = {
          template: op.path,
          ops: new Map(),
          regex: new RegExp(`^${pattern}$`),
          paramNames,
          literalSegments: segments.length - paramNames.length,
        };
        byTemplate.set(op.path, route);
      }
      route.ops.set(op.method, op);
    }
    // A literal segment wins over a parameter where both could match.
    this.routes = [...byTemplate.values()].sort((a, b) => b.literalSegments - a.literalSegments);
  }

  match(path: string): RouteMatch | undefined {
    for (const route of this.routes) {
      const m = route.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      try {
        route.paramNames.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
      } catch {
        return undefined;
      }
      return { route, params };
    }
    return undefined;
  }
}

/** The value of a query or path parameter, typed as its schema says, so the schema can judge it. */
function coerce(raw: string, schema: JsonSchema | undefined): unknown {
  const type = typeof schema === 'object' ? schema['type'] : undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/**
 * Validates the path and query parameters the operation documents. Returns the valid values (typed) and the
 * problems, each naming its parameter. Undocumented query parameters are ignored.
 */
export function validateParameters(
  spec: SpecDocument,
  op: Operation,
  pathParams: Record<string, string>,
  query: URLSearchParams,
  faults: FaultSet,
): { values: Record<string, unknown>; errors: FieldError[] } {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const p of op.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    let raw: string | undefined;
    if (p.in === 'path') raw = pathParams[p.name];
    else {
      const all = query.getAll(p.name);
      if (all.length > 1) {
        errors.push({ field: p.name, message: 'must be given at most once' });
        continue;
      }
      raw = all[0];
    }
    if (raw === undefined) {
      if (p.required) errors.push({ field: p.name, message: 'is required' });
      continue;
    }
    const value = coerce(raw, p.schema);
    if (p.schema !== undefined) {
      const validate = spec.validator(p.schema);
      if (!validate(value)) {
        const problems = (validate.errors ?? []).filter(
          // unbounded-limit: the page size's upper bound is not enforced.
          (e) => !(faults.has('unbounded-limit') && p.name === 'limit' && e.keyword === 'maximum'),
        );
        if (problems.length > 0) {
          errors.push({ field: p.name, message: problems[0]!.message ?? 'is invalid' });
          continue;
        }
      }
    }
    values[p.name] = value;
  }
  return { values, errors };
}
