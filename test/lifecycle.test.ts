/**
 * The resource lifecycle walk (src/checks/lifecycle.ts) on a small vendor document of our own
 * (test/fixtures/lifecycle/vendor.yaml) against a loopback server that keeps what it is sent: notes behave, and each
 * other collection breaks one step (tags read back another id, labels leave the new one out of their list, pins
 * ignore updates, boxes ignore deletes, locks refuse every create; keys are deleted softly, as documented). Each LIFE requirement passes on notes and fails
 * where its step is broken; a refused create skips the later steps; what a check created is deleted at its end.
 * The resource model (src/values/resources.ts) is checked on the same document, and the reference profile plans no
 * walk (its operations all play themselves).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../src/catalogue/openapi.js';
import { planChecks } from '../src/checks/planner.js';
import type { CheckResult, RunReport } from '../src/results/model.js';
import { fromRoot } from '../src/paths.js';
import { resourcesOf } from '../src/values/resources.js';
import { runCli, spawnCli } from './helpers/cli.js';
import { httpsServer, json, type Cert, type TestServer } from './helpers/servers.js';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';
import { busy } from './helpers/busy.js';

const DOC = fromRoot('test', 'fixtures', 'lifecycle', 'vendor.yaml');
const KEY = 'sk_test_lifecycle_fixture';

type Item = Record<string, unknown>;
/** What the server keeps, by collection, in the order made. */
const store = new Map<string, Map<string, Item>>();
let made = 0;
/** The server as it starts: 25 notes and every other collection empty. */
function seedStore(): void {
  for (const name of ['notes', 'tags', 'labels', 'pins', 'boxes', 'keys', 'files', 'crates']) store.set(name, new Map());
  for (let i = 1; i <= 25; i++) store.get('notes')!.set(`note_seed${i}`, { id: `note_seed${i}`, title: `seed ${i}`, pinned: false, created_at: '2026-01-01T00:00:00Z' });
  made = 0;
}
seedStore();

const problem = (res: Parameters<typeof json>[0], status: number, title: string) => json(res, status, { title, status }, { 'content-type': 'application/problem+json' });

let server: TestServer & { cert: Cert };
let report: RunReport;
const dir = mkdtempSync(join(tmpdir(), 'fsapi-lifecycle-'));

beforeAll(async () => {
  server = await httpsServer((req, res, body) => {
    const u = new URL(req.url ?? '/', 'https://x');
    // Files live in folders, whose names must match the pattern their read documents.
    const file = /^\/v1\/folders\/([^/]+)\/files(?:\/([^/]+))?$/.exec(u.pathname);
    if (file) {
      if (!/^fld_[a-z0-9]{4}$/.test(file[1]!)) return problem(res, 422, `folder ${file[1]} is not a folder name`);
      const files = store.get('files')!;
      if (req.method === 'POST') {
        const item = { id: `file_${++made}`, folder: file[1] };
        files.set(item.id, item);
        return json(res, 201, item);
      }
      const one = files.get(file[2] ?? '');
      return one && one['folder'] === file[1] ? json(res, 200, one) : problem(res, 404, 'no such file');
    }
    const [, collection, id] = u.pathname.replace(/^\/v1/, '').split('/');
    if (req.headers['api-key'] !== KEY) return json(res, 401, { title: 'unauthorised' }, { 'www-authenticate': 'ApiKey', 'content-type': 'application/problem+json' });
    const items = store.get(collection ?? '');
    if (collection === 'locks') return req.method === 'POST' ? problem(res, 403, 'locks cannot be made with this key') : problem(res, 404, 'no such lock');
    if (!items) return problem(res, 404, 'not found');
    let sent: Item = {};
    if (req.method === 'POST' || req.method === 'PATCH' || req.method === 'PUT') {
      if (!String(req.headers['content-type']).startsWith('application/json')) return problem(res, 415, 'JSON only');
      try {
        sent = JSON.parse(body) as Item;
      } catch {
        return problem(res, 400, 'malformed JSON');
      }
      if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return problem(res, 400, 'an object, please');
    }
    const one = id === undefined ? undefined : items.get(decodeURIComponent(id));
    const envelope = (x: Item) => (collection === 'boxes' ? { data: x } : x);
    if (id === undefined && req.method === 'POST') {
      if (collection === 'notes' && typeof sent['title'] !== 'string') return problem(res, 422, 'title is required');
      const key = collection === 'tags' ? 'tag_id' : 'id';
      const item: Item = { ...sent, [key]: `${collection === 'boxes' ? 'box' : collection!.slice(0, -1)}_${++made}`, ...(collection === 'notes' ? { created_at: new Date().toISOString() } : {}), ...(collection === 'keys' ? { status: 'active' } : {}) };
      items.set(String(item[key]), item);
      return json(res, 201, envelope(item));
    }
    if (id === undefined && req.method === 'GET') {
      if (collection === 'notes') {
        const limit = Number(u.searchParams.get('limit') ?? 10);
        if (!(limit >= 1 && limit <= 10)) return problem(res, 400, 'limit is 1 to 10');
        const all = [...items.values()];
        const from = Number(u.searchParams.get('cursor') ?? 0);
        const page = all.slice(from, from + limit);
        const more = from + limit < all.length;
        return json(res, 200, { data: page, has_more: more, next_cursor: more ? String(from + limit) : null });
      }
      // Broken lists: tags page by a page number the suite cannot follow, labels leave out all but one.
      if (collection === 'tags') return json(res, 200, { items: [{ tag_id: 'tag_other', name: 'other' }], page: 1 });
      if (collection === 'labels') return json(res, 200, [{ id: 'label_other', text: 'other' }]);
      return problem(res, 405, 'no list');
    }
    if (!one) return problem(res, 404, `no such ${collection}`);
    if (req.method === 'GET') return json(res, 200, envelope(collection === 'tags' ? { tag_id: 'tag_other', name: 'other' } : one));
    if (req.method === 'PATCH' || req.method === 'PUT') {
      const next = { ...one, ...sent };
      // Pins answer the update and keep nothing of it.
      if (collection !== 'pins') items.set(id!, next);
      return json(res, 200, next);
    }
    if (req.method === 'DELETE' && collection === 'keys') {
      // Keys are revoked, and read so: a soft delete their document describes.
      one['status'] = 'revoked';
      return json(res, 200, one);
    }
    if (req.method === 'DELETE') {
      // Boxes answer the delete and keep the box.
      if (collection !== 'boxes') items.delete(id!);
      res.writeHead(204).end();
      return;
    }
    return problem(res, 405, 'method not allowed');
  });
  writeFileSync(join(dir, 'ca.pem'), server.cert.cert);
  await walk('r');
  report = JSON.parse(readFileSync(join(dir, 'r', 'latest', 'conformance.json'), 'utf8')) as RunReport;
}, busy(240_000));

afterAll(() => server.close());

/** A run of the document's operations (`unbound`) against the server, its reports under dir/<into>. */
function walk(into: string, env: Record<string, string> = {}) {
  return runCli(['run', '--spec', DOC, '--groups', 'unbound', '--seed', '11', '--report-dir', join(dir, into)], {
    FSAPI_BASE_URL: server.url,
    FSAPI_API_KEY: KEY,
    FSAPI_TENANT_ID: 'tenant_lifecycle',
    FSAPI_CA_FILE: join(dir, 'ca.pem'),
    FSAPI_RATE_LIMIT: '0',
    ...env,
  });
}

const walkOf = (operation: string): CheckResult => {
  const c = report.checks.find((x) => x.family === 'lifecycle' && x.operation === operation);
  if (!c) throw new Error(`no lifecycle check on ${operation}: ${report.checks.filter((x) => x.family === 'lifecycle').map((x) => x.id).join('; ')}`);
  return c;
};

describe('the resource model of a document', () => {
  it('pairs each create with its read, list, update and delete through the value sources, and the reference profile walks nothing', async () => {
    const spec = await loadSpec(DOC);
    const notes = resourcesOf(spec).find((r) => r.create.operationId === 'notes.create')!;
    expect(notes).toMatchObject({ noun: 'note', read: { param: 'note_id', idAt: '/id', resourceAt: '' }, list: { select: '/data/*/id' }, update: { writable: ['title', 'pinned'] } });
    expect([notes.read!.op, notes.update!.op, notes.delete!.op, notes.list!.op].map((o) => o.operationId)).toEqual(['notes.get', 'notes.update', 'notes.delete', 'notes.list']);
    expect(notes.read!.source).toMatchObject({ producer: 'notes.create', kind: 'create', select: '/id', active: true });
    // An envelope, another id member, a list of the document's own shape.
    expect(resourcesOf(spec).find((r) => r.create.operationId === 'boxes.create')).toMatchObject({ read: { idAt: '/data/id', resourceAt: '/data' } });
    expect(resourcesOf(spec).find((r) => r.create.operationId === 'tags.create')).toMatchObject({ read: { idAt: '/tag_id' }, list: { select: '/items/*/tag_id' } });
    expect(resourcesOf(spec).find((r) => r.create.operationId === 'labels.create')!.list).toMatchObject({ select: '/*/id' });
    const reference = await planChecks(await loadCatalogue());
    expect(reference.filter((p) => p.def.family === 'lifecycle')).toEqual([]);
    const vendor = (await planChecks(await loadCatalogue({ specPath: DOC }))).filter((p) => p.def.family === 'lifecycle');
    // Every LIFE requirement has checks here, and every check writes (none is sent to a live target without --allow-live-writes).
    expect([...new Set(vendor.map((p) => p.def.requirement))].sort()).toEqual(['FSAPI-LIFE-001', 'FSAPI-LIFE-002', 'FSAPI-LIFE-003', 'FSAPI-LIFE-004']);
    expect(vendor.every((p) => p.def.writes === true)).toBe(true);
  });
});

describe('the walk against a target that keeps what it is sent', { timeout: busy(60_000) }, () => {
  it('ends in a verdict with no suite error', () => {
    expect(report.checks.filter((c) => c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  });

  it('passes every step on the collection that behaves, walking its list to the page the new note is on', () => {
    for (const op of ['notes.get', 'notes.list', 'notes.update', 'notes.delete']) expect(walkOf(op).status, `${op}: ${walkOf(op).message}`).toBe('passed');
    // Twenty-five notes were there before, ten to a page: the new one is on page three or later.
    expect(walkOf('notes.list').message).toMatch(/found on page ([3-9]|\d\d) of GET \/v1\/notes\?limit=10/);
    expect(walkOf('notes.update').message).toMatch(/title, pinned read back as sent/);
  });

  it('fails each step where the target breaks it, saying exactly what differed', () => {
    expect(walkOf('tags.get')).toMatchObject({ status: 'warning', message: expect.stringMatching(/GET \/v1\/tags\/tag_\d+ answered 200 with \/tag_id "tag_other", not "tag_\d+": the tag that POST \/v1\/tags answered 201 created does not read back/) });
    expect(walkOf('labels.list')).toMatchObject({ status: 'warning', message: expect.stringMatching(/label_\d+, the label that POST \/v1\/labels answered 201 created, is not among the 1 item on 1 page of GET \/v1\/labels \(the document gives the list no query parameter to page it by\): it lists label_other/) });
    expect(walkOf('pins.replace')).toMatchObject({ status: 'warning', message: expect.stringMatching(/PUT \/v1\/pins\/pin_\d+ answered 200, but GET \/v1\/pins\/pin_\d+ reads color "\w+" where the update sent "\w+", weight absent where the update sent \d/) });
    expect(walkOf('boxes.delete')).toMatchObject({ status: 'warning', message: expect.stringMatching(/after DELETE \/v1\/boxes\/box_\d+ answered 204, GET \/v1\/boxes\/box_\d+ answered 200 .*still reads; expected 404 or 410/) });
  });

  it('takes a soft delete the document describes (the state the delete answered reads back) as deleted', () => {
    expect(walkOf('keys.revoke')).toMatchObject({ status: 'passed', message: expect.stringMatching(/GET \/v1\/keys\/key_\d+ answered 200 with status "revoked", as the delete answered \(the create answered "active"\)/) });
  });

  it('makes a parent value valid for the step as well as the create, where the step documents a stricter one', () => {
    const read = walkOf('files.get');
    expect(read.status, read.message).toBe('passed');
    expect(read.exchanges.find((x) => x.request.method === 'POST')!.request.url).toMatch(/\/v1\/folders\/fld_[a-z0-9]{4}\/files$/);
  });

  it('skips a list whose further pages it cannot follow, as not known, never failed', () => {
    expect(walkOf('tags.list')).toMatchObject({ status: 'skipped', skip_cause: 'binding', message: expect.stringMatching(/is not among the 1 item on 1 page of GET \/v1\/tags.*further pages cannot be read/) });
  });

  it('skips every step on a resource whose create the target refuses, with its words', () => {
    for (const op of ['locks.get', 'locks.delete']) {
      expect(walkOf(op)).toMatchObject({ status: 'skipped', skip_cause: 'prerequisite', message: expect.stringMatching(/the create it builds on was refused: POST \/v1\/locks answered 403 \(locks cannot be made with this key\)/) });
    }
  });

  it('walks once the other checks are done: it changes and deletes in collections whose listed items they share', () => {
    // Not the checks that judge what was observed (they come last), nor those that wait, in a file of their own.
    const others = report.checks.filter((c) => c.family !== 'lifecycle' && !c.id.includes(' observed-') && c.family !== 'observation' && !c.id.endsWith(' replay-delayed'));
    const lastOther = others.flatMap((c) => c.exchanges.map((x) => x.started_at)).sort().at(-1)!;
    const firstCreate = report.checks
      .filter((c) => c.family === 'lifecycle')
      .flatMap((c) => c.exchanges.filter((x) => x.request.method === 'POST').map((x) => x.started_at))
      .sort()[0]!;
    expect(firstCreate > lastOther, `${firstCreate} > ${lastOther}`).toBe(true);
  });

  it('deletes what each check created where the document offers a delete', () => {
    for (const op of ['notes.get', 'notes.list', 'notes.update', 'labels.list', 'labels.get']) {
      const x = walkOf(op).exchanges;
      const created = JSON.parse(x.find((e) => e.request.method === 'POST')!.response!.body ?? '{}') as { id: string };
      expect(x.at(-1)!.request, op).toMatchObject({ method: 'DELETE', url: expect.stringContaining(`/${created.id}`) });
      expect(store.get(op.split('.')[0]!)!.has(created.id), op).toBe(false);
    }
  });

  it("sends no cleanup delete the document forbids: crates' create answers ids that break the delete's uuid format", () => {
    const c = walkOf('crates.get');
    expect(c.exchanges.filter((x) => x.request.method === 'DELETE')).toEqual([]);
    // The delete step itself is skipped, naming the disagreement, never failed.
    const del = walkOf('crates.delete');
    expect(del.status).toBe('skipped');
    expect(del.message).toMatch(/the id the create answered does not fit crates\.delete: path crate_id="crate_\d+" breaks its schema \(format "uuid", type "string"\)/);
    expect(server.requests.filter((r) => r.method === 'DELETE' && r.url.startsWith('/v1/crates/crate_'))).toEqual([]);
    expect(c.message).toMatch(/is left behind: a delete by the id the create answered would break the document \(path crate_id="crate_\d+" breaks its schema \(format "uuid", type "string"\)\), so none was sent/);
  });

  it('judges the answers on real resources against the document: the read after a delete is a probe, its undocumented 404 a gap', () => {
    // boxes.get documents 404; labels.get does too; notes.delete's 204 and the reads' 200s all fit their schemas.
    for (const op of ['notes.get', 'notes.update', 'notes.delete', 'labels.delete']) {
      expect(report.checks.find((c) => c.operation === op && c.requirement === 'FSAPI-CONTRACT-002')?.status, op).toBe('passed');
      expect(report.checks.find((c) => c.operation === op && c.requirement === 'FSAPI-CONTRACT-001')?.status, op).not.toBe('failed');
    }
  });
});

describe('the same walk with its suite run in parts (FSAPI_PART_CHECKS)', () => {
  it('runs every check once, in the order one file runs them, to the same statuses: the parts are one suite', async () => {
    seedStore();
    const size = Math.ceil(report.checks.length / 4);
    const run = await walk('parts', { FSAPI_PART_CHECKS: String(size) });
    expect(run.stderr).toMatch(/unbound in 4 parts of at most about \d+ checks, one after another/);
    // A line as each part ends; the suite counts as run once the last has.
    expect(run.stdout.split('\n').filter((l) => / unbound [1-4]\/4 /.test(l))).toHaveLength(4);
    const parted = JSON.parse(readFileSync(join(dir, 'parts', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(parted.run.incomplete_reason).toBeUndefined();
    const statuses = (r: RunReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
    expect(statuses(parted)).toEqual(statuses(report));
    // The walks ran once the other checks were done, as in one file (the test above): the parts ran one after another.
    const others = parted.checks.filter((c) => c.family !== 'lifecycle' && !c.id.includes(' observed-') && c.family !== 'observation' && !c.id.endsWith(' replay-delayed'));
    const lastOther = others.flatMap((c) => c.exchanges.map((x) => x.started_at)).sort().at(-1)!;
    const firstCreate = parted.checks.filter((c) => c.family === 'lifecycle').flatMap((c) => c.exchanges.filter((x) => x.request.method === 'POST').map((x) => x.started_at)).sort()[0]!;
    expect(firstCreate > lastOther, `${firstCreate} > ${lastOther}`).toBe(true);
  }, busy(240_000));

  it('stops a run in parts on SIGTERM: exit 5, the report holds the checks its parts ran, and says the run was cut short', async () => {
    seedStore();
    const size = Math.ceil(report.checks.length / 8);
    const cli = spawnCli(['run', '--spec', DOC, '--groups', 'unbound', '--seed', '11', '--report-dir', join(dir, 'stopped')], {
      FSAPI_BASE_URL: server.url,
      FSAPI_API_KEY: KEY,
      FSAPI_TENANT_ID: 'tenant_lifecycle',
      FSAPI_CA_FILE: join(dir, 'ca.pem'),
      FSAPI_RATE_LIMIT: '0',
      FSAPI_PART_CHECKS: String(size),
    });
    await cli.stdoutLine(/ unbound 2\/8 /);
    cli.child.kill('SIGTERM');
    const done = await cli.done;
    expect(done.code).toBe(5);
    const stopped = JSON.parse(readFileSync(join(dir, 'stopped', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(stopped.run.incomplete_reason).toMatch(/interrupted/);
    // The two parts that had ended, whole (the part under way when the signal came may have finished some checks too).
    expect(stopped.checks.length).toBeGreaterThanOrEqual(2 * size);
    expect(stopped.checks.length).toBeLessThan(report.checks.length);
  }, busy(240_000));
});
