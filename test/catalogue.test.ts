/** The catalogue module: bad spec or catalogue files give one error naming the file, the place and the fix. */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec, loadRequirements, REFERENCE_SPEC_PATH, REQUIREMENTS_PATH } from '../src/catalogue/index.js';
import { UsageError } from '../src/errors.js';
import { createHash, randomBytes } from 'node:crypto';
import { privateCacheDir } from '../src/cache-dir.js';
import { createRequire } from 'node:module';
import { describeErrors, type JsonSchema } from '../src/catalogue/json-schema.js';
import { schemaKey } from '../src/catalogue/precompiled.js';
import { exploredSchemas } from '../src/explore/reference-validators.js';
import { generateValid } from '../src/values/generate.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const dir = mkdtempSync(join(tmpdir(), 'fsapi-catalogue-'));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
async function failure(p: Promise<unknown> | (() => unknown)): Promise<UsageError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return e as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('loadSpec', () => {
  it('indexes the reference profile by operation and group', async () => {
    const spec = await loadSpec(REFERENCE_SPEC_PATH);
    expect(spec.operations).toHaveLength(spec.byId.size);
    expect(spec.byId.get('listAccounts')).toMatchObject({ group: 'accounts', method: 'GET', path: '/accounts' });
    expect(spec.sha256).toMatch(/^[a-f0-9]{64}$/);
  });

  it('names a missing file', async () => {
    const e = await failure(loadSpec(join(dir, 'nope.yaml')));
    expect(e.describe()).toMatch(/nope\.yaml: cannot read the OpenAPI document \(ENOENT\)/);
  });

  it('names the line of a YAML syntax error', async () => {
    const e = await failure(loadSpec(write('broken.yaml', 'openapi: 3.1.0\ninfo:\n  title: x\n   version: 1\n')));
    expect(e.file).toMatch(/broken\.yaml$/);
    expect(e.where).toMatch(/^[34]:/); // the parser flags the mapping that the bad indent breaks
    expect(e.fix).toMatch(/syntax/);
  });

  it('refuses a document that is not OpenAPI, saying what to supply', async () => {
    const e = await failure(loadSpec(write('notapi.json', '{"swagger": "2.0", "info": {}}')));
    expect(e.message).toMatch(/not an OpenAPI document/);
    expect(e.fix).toMatch(/OpenAPI 3\.0 or 3\.1/);
  });

  it('refuses an invalid OpenAPI 3.1 document and points at the offending line', async () => {
    const text = readFileSync(REFERENCE_SPEC_PATH, 'utf8').replace('    post:\n      operationId: createCustomer', '    post:\n      operationId: 42');
    const e = await failure(loadSpec(write('invalid.yaml', text)));
    expect(e.message).toMatch(/not a valid OpenAPI 3\.1\.0 document/);
    expect(Number(e.where)).toBeGreaterThan(0);
  });

  it('accepts an OpenAPI 3.0 document and treats nullable as a null alternative', async () => {
    const p = write(
      'v30.yaml',
      `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /accounts:
    get:
      operationId: listAccounts
      tags: [Accounts]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, properties: { nickname: { type: string, nullable: true } } }
`,
    );
    const spec = await loadSpec(p);
    const op = spec.byId.get('listAccounts')!;
    expect(spec.validateResponse(op, 200, 'application/json', { nickname: null })).toEqual({ kind: 'ok' });
    expect(spec.validateResponse(op, 200, 'application/json', { nickname: 3 }).kind).toBe('schema');
    expect(spec.validateResponse(op, 500, 'application/json', {}).kind).toBe('undocumented-status');
    expect(spec.validateResponse(op, 200, 'text/plain', 'x').kind).toBe('undocumented-media-type');
  });
});

describe("the build's precompiled validators (src/catalogue/precompiled.ts)", () => {
  it('are made from the reference profile as it is, and judge every declared schema as a fresh compile does', async () => {
    // npm test builds first; this reads what `npm run build` wrote, as a run of the compiled build does.
    const mod = createRequire(import.meta.url)('../dist/src/catalogue/reference-validators.cjs') as Record<string, unknown>;
    expect(mod['SOURCE_SHA256']).toBe(createHash('sha256').update(readFileSync(REFERENCE_SPEC_PATH)).digest('hex'));
    const spec = await loadSpec(REFERENCE_SPEC_PATH);
    const samples = (examples: unknown[]) => [...examples, ...examples.map((e) => (isRecord(e) ? Object.fromEntries(Object.entries(e).map(([k, v]) => [k, typeof v === 'string' ? 42 : 'x'])) : e)), {}, [], null, 'x', 7];
    let judged = 0;
    for (const op of spec.operations) {
      const declared = [
        ...op.parameters.map((p) => ({ schema: p.schema, examples: [p.example] })),
        ...[...(op.requestBody?.content ?? []), ...op.responses.flatMap((r) => r.content)].map((m) => ({ schema: m.schema, examples: m.examples })),
      ];
      for (const { schema, examples } of declared) {
        if (typeof schema !== 'object') continue;
        const pre = mod[schemaKey(schema)] as ((x: unknown) => boolean) & { errors?: unknown };
        expect(typeof pre, `${op.operationId}: no precompiled validator for ${JSON.stringify(schema).slice(0, 80)}`).toBe('function');
        // Loaded from the sources, the document compiles its own (no build's validators sit next to them).
        const compiled = spec.validator(schema as JsonSchema);
        for (const x of samples(examples)) {
          expect(pre(x), `${op.operationId} ${JSON.stringify(x).slice(0, 80)}`).toBe(compiled(x));
          expect(describeErrors(pre.errors as never)).toEqual(describeErrors(compiled.errors));
          judged++;
        }
      }
    }
    expect(judged).toBeGreaterThan(1000);
  });

  it("hold every schema the exploration proves its values against, so no worker compiles one (and ajv's compiler never loads in a run)", async () => {
    const mod = createRequire(import.meta.url)('../dist/src/catalogue/reference-validators.cjs') as Record<string, unknown>;
    const spec = await loadSpec(REFERENCE_SPEC_PATH);
    const explored = exploredSchemas(spec);
    expect(explored.length).toBeGreaterThan(100);
    let judged = 0;
    for (const schema of explored) {
      const pre = mod[schemaKey(schema as object)] as ((x: unknown) => boolean) & { errors?: unknown };
      expect(typeof pre, `no precompiled validator for ${JSON.stringify(schema).slice(0, 80)}`).toBe('function');
      const compiled = spec.validator(schema as JsonSchema);
      const made = generateValid(spec, schema, 7);
      for (const x of [...(made.ok ? [made.value] : []), {}, 'x', 7, null]) {
        expect(pre(x), `${JSON.stringify(schema).slice(0, 80)} ${JSON.stringify(x).slice(0, 40)}`).toBe(compiled(x));
        judged++;
      }
    }
    expect(judged).toBeGreaterThan(400);
  });
});

describe('loadRequirements', () => {
  it('loads the catalogue', () => {
    const cat = loadRequirements(REQUIREMENTS_PATH);
    expect(cat.get('FSAPI-AUTH-001').level).toBe('MUST');
    expect(() => cat.get('FSAPI-NOPE-001')).toThrow(/unknown requirement/);
  });

  it('refuses a duplicate ID and names its line', async () => {
    const text = readFileSync(REQUIREMENTS_PATH, 'utf8').replace('id: FSAPI-AUTH-002', 'id: FSAPI-AUTH-001');
    const e = await failure(() => loadRequirements(write('dup.yaml', text)));
    expect(e.message).toMatch(/FSAPI-AUTH-001 is listed twice/);
    expect(Number(e.where)).toBeGreaterThan(50);
  });

  it('refuses an unknown level and says which levels exist', async () => {
    const text = readFileSync(REQUIREMENTS_PATH, 'utf8').replace('level: SHOULD', 'level: MAY');
    const e = await failure(() => loadRequirements(write('level.yaml', text)));
    expect(e.message).toMatch(/level/);
    expect(e.fix).toMatch(/MUST, CONTRACT, SHOULD, PROFILE, INFO/);
  });

  it('refuses a MUST that cites no seed section', async () => {
    const text = readFileSync(REQUIREMENTS_PATH, 'utf8').replace(
      'source: { seed: "Authentication > Keys, rule 3" }',
      'source: { profile: somewhere }',
    );
    const e = await failure(() => loadRequirements(write('must.yaml', text)));
    expect(e.message).toMatch(/requirements\.0\.source/);
  });
});

// Skipped where Node has no user ids (Windows): there the temporary directory is the user's own, and the folder
// is used without an owner check.
describe('the private cache folder (src/cache-dir.ts)', () => {
  const name = () => `fsapi-test-cache-${randomBytes(6).toString('hex')}`;
  const at = (n: string) => join(tmpdir(), `${n}-${process.getuid!()}`);

  it.skipIf(!process.getuid)('is made for this user alone, and found again', () => {
    const n = name();
    try {
      const dir = privateCacheDir(n);
      expect(dir).toBe(at(n));
      const st = statSync(dir!);
      expect(st.uid).toBe(process.getuid!());
      expect(st.mode & 0o777).toBe(0o700);
      expect(privateCacheDir(n)).toBe(dir);
    } finally {
      rmSync(at(n), { recursive: true, force: true });
    }
  });

  it.skipIf(!process.getuid)('is refused when others could write to it, or when a link stands in its place', () => {
    const open = name();
    const link = name();
    const target = mkdtempSync(join(tmpdir(), 'fsapi-test-target-'));
    try {
      mkdirSync(at(open));
      chmodSync(at(open), 0o777);
      expect(privateCacheDir(open)).toBeUndefined();
      symlinkSync(target, at(link));
      expect(privateCacheDir(link)).toBeUndefined();
    } finally {
      rmSync(at(open), { recursive: true, force: true });
      rmSync(at(link), { force: true });
      rmSync(target, { recursive: true, force: true });
    }
  });
});
