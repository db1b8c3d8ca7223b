/**
 * Certification's costs: certify and verify of a full run (time, CPU, peak memory, package size), alternated with
 * another checkout's (`--other DIR`, its own run and package: the formats differ), pair by pair; and a hostile
 * package, a 1 GiB entry of zeros (about 1 MiB gzipped) with a wrong signature, handed to each build's verify.
 *
 *   npx tsx bench/certify.ts [--pairs 3] [--other ../main] [--seed 20261120] [--keep]
 */
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { assertRan, benchArgs, BIN, type CliRun, ensureBuild, machine, printTable, round, runCli, sec, spread, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/certify.ts [--pairs 3] [--other ../main] [--seed 20261120] [--keep]';

const { values } = benchArgs(USAGE, { options: { pairs: { type: 'string', default: '3' }, other: { type: 'string' }, seed: { type: 'string', default: '20261120' }, keep: { type: 'boolean', default: false } } });
const pairs = Number(values.pairs);
const builds = [{ name: 'this', bin: BIN }, ...(values.other ? [{ name: 'other', bin: join(values.other, 'bin', 'fsapi-conformance.js') }] : [])];

await ensureBuild();
const work = mkdtempSync(join(tmpdir(), 'fsapi-bench-certify-'));

/** A tar header for `name` declaring `size` bytes (ustar, checksum computed). */
function header(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (s: string, at: number) => h.write(s, at, 'utf8');
  put(name, 0);
  put('0000644\0', 100);
  put('0000000\0', 108);
  put('0000000\0', 116);
  put(`${size.toString(8).padStart(11, '0')}\0`, 124);
  put('00000000000\0', 136);
  put('        ', 148);
  put('0', 156);
  put('ustar\0', 257);
  put('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** The hostile package: a 1 GiB entry of zeros first, then an envelope signed by no one. */
async function hostilePackage(path: string): Promise<number> {
  const gz = createGzip({ level: 9 });
  const out = createWriteStream(path);
  gz.pipe(out);
  const write = async (b: Buffer) => {
    if (!gz.write(b)) await once(gz, 'drain');
  };
  const gib = 1024 ** 3;
  await write(header('fsapi-certification/reports/allure-results/huge.json', gib));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 1024; i++) await write(zeros);
  const env = Buffer.from(JSON.stringify({ payloadType: 'application/vnd.in-toto+json', payload: Buffer.from('{}').toString('base64'), signatures: [{ keyid: 'x', sig: Buffer.alloc(64).toString('base64') }] }));
  await write(header('fsapi-certification/envelope.dsse.json', env.length));
  await write(Buffer.concat([env, Buffer.alloc((512 - (env.length % 512)) % 512), Buffer.alloc(1024)]));
  gz.end();
  await once(out, 'close');
  return statSync(path).size;
}

interface Sample {
  build: string;
  certify: CliRun;
  verify: CliRun;
  package_bytes: number;
  hostile: CliRun;
}

try {
  const samples: Sample[] = [];
  const hostile = join(work, 'hostile.tgz');
  const hostileBytes = await hostilePackage(hostile);
  // A build from before --allow-reference-sandbox certifies the embedded sandbox without being asked.
  const allow = new Map<string, string[]>();
  for (const b of builds) {
    const help = await runCli(['certify', '--help'], { cwd: work, bin: b.bin });
    allow.set(b.name, help.stdout.includes('--allow-reference-sandbox') ? ['--allow-reference-sandbox'] : []);
    const dir = join(work, b.name);
    mkdirSync(dir);
    const key = join(dir, 'signer');
    assertRan(await runCli(['keygen', '--out', key], { cwd: work, bin: b.bin }), `${b.name} keygen`);
    const run = await runCli(['run', '--strict', '--seed', values.seed!, '--report-dir', join(dir, 'reports'), '-q'], { cwd: work, bin: b.bin });
    assertRan(run, `${b.name} run`);
  }
  for (let i = 0; i < pairs; i++) {
    for (const b of builds) {
      const dir = join(work, b.name);
      const key = join(dir, 'signer');
      const pkg = join(dir, `pkg-${i}.tgz`);
      const certify = await runCli(['certify', '--run', join(dir, 'reports', 'latest'), '--key', `${key}.key`, '--out', pkg, ...allow.get(b.name)!], { cwd: work, bin: b.bin, cpu: true });
      assertRan(certify, `${b.name} certify`);
      const verify = await runCli(['verify', pkg, '--key', `${key}.pub`], { cwd: work, bin: b.bin, cpu: true });
      assertRan(verify, `${b.name} verify`);
      const h = await runCli(['verify', hostile, '--key', `${key}.pub`], { cwd: work, bin: b.bin, cpu: true });
      samples.push({ build: b.name, certify, verify, package_bytes: statSync(pkg).size, hostile: h });
      process.stderr.write(`pair ${i + 1}/${pairs} ${b.name}: certify ${sec(certify.wall_ms)} s, verify ${sec(verify.wall_ms)} s (exit ${verify.code}), hostile ${sec(h.wall_ms, 2)} s exit ${h.code} ${round(h.cpu?.max_rss_mb ?? 0, 0)} MiB\n`);
    }
  }
  const rows = builds.map((b) => {
    const mine = samples.filter((s) => s.build === b.name);
    const m = (f: (s: Sample) => number) => spread(mine.map(f)).median;
    return [
      b.name,
      sec(m((s) => s.certify.wall_ms)),
      sec(m((s) => (s.certify.cpu?.user_ms ?? 0) + (s.certify.cpu?.system_ms ?? 0))),
      String(round(m((s) => s.certify.cpu?.max_rss_mb ?? 0), 0)),
      sec(m((s) => s.verify.wall_ms)),
      sec(m((s) => (s.verify.cpu?.user_ms ?? 0) + (s.verify.cpu?.system_ms ?? 0))),
      String(round(m((s) => s.verify.cpu?.max_rss_mb ?? 0), 0)),
      String(round(m((s) => s.package_bytes) / 1024, 0)),
      `${sec(m((s) => s.hostile.wall_ms), 2)} (exit ${mine[0]!.hostile.code}, ${round(m((s) => s.hostile.cpu?.max_rss_mb ?? 0), 0)} MiB)`,
    ];
  });
  printTable(['build', 'certify s', 'certify CPU s', 'certify MiB', 'verify s', 'verify CPU s', 'verify MiB', 'package KiB', `1 GiB entry (${round(hostileBytes / 1024 / 1024, 1)} MiB gz): verify s`], rows);
  const file = writeResult('certify', {
    machine: machine(),
    pairs,
    hostile_package_bytes: hostileBytes,
    samples: samples.map((s) => ({ build: s.build, package_bytes: s.package_bytes, certify: { wall_ms: s.certify.wall_ms, cpu: s.certify.cpu }, verify: { wall_ms: s.verify.wall_ms, cpu: s.verify.cpu, code: s.verify.code }, hostile: { wall_ms: s.hostile.wall_ms, cpu: s.hostile.cpu, code: s.hostile.code, stderr: s.hostile.stderr.trim() } })),
  });
  process.stderr.write(`written: ${file}\n`);
} finally {
  if (!values.keep) rmSync(work, { recursive: true, force: true });
}
