/**
 * The certificate a person reads (one self-contained HTML page) and a README badge (SVG), both rendered from the
 * signed predicate and the recomputed coverage only: verify renders them again and requires the packaged ones to
 * be the same bytes, so a badge cannot say more than the package proves.
 */
import type { Assessment } from '../results/assess.js';
import type { CertificationPredicate } from './layout.js';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const COLOURS: Record<string, string> = { conformant: '#1a7f37', 'non-conformant': '#cf222e', inconclusive: '#9a6700', incomplete: '#6e7781' };
const STATUS_COLOURS: Record<string, string> = { verified: '#1a7f37', failed: '#cf222e', 'not-verified': '#9a6700', waived: '#6e7781', 'not-applicable': '#6e7781' };
const GREY = '#6e7781';

/** What the run was, when it was less than a vendor's full run: the words both the certificate and the badge lead with. */
export function caveats(p: CertificationPredicate): string[] {
  const out: string[] = [];
  if (p.target.kind === 'reference-sandbox') out.push(`reference sandbox, not a vendor${p.target.sandbox_faults.length ? ` (faults: ${p.target.sandbox_faults.join(', ')})` : ''}`);
  if (p.scope.shard) out.push(`shard ${p.scope.shard.index}/${p.scope.shard.count}, not a full run`);
  else if (p.scope.not_run.length) out.push(`${p.scope.groups.length} of ${p.scope.groups.length + p.scope.not_run.length} suites`);
  return out;
}

const suites = (p: CertificationPredicate): string => {
  const all = p.scope.groups.length + p.scope.not_run.length;
  const run = `${p.scope.groups.length} of ${all} suites: ${p.scope.groups.join(', ')}`;
  return p.scope.not_run.length ? `${run}; not run: ${p.scope.not_run.join(', ')}${p.scope.shard ? ` (the other shards')` : ''}` : run;
};

const TARGET_KIND: Record<CertificationPredicate['target']['kind'], string> = {
  'reference-sandbox': "fsapi-conformance's own reference sandbox (its answers name it), not a vendor's service",
  loopback: 'a server on the machine that ran the suite (a loopback address)',
  remote: 'a remote service',
};

/** The caveats as sentences, for the banner under the headline. */
function caveatSentences(p: CertificationPredicate): string[] {
  const out: string[] = [];
  if (p.target.kind === 'reference-sandbox') {
    out.push(`This certifies fsapi-conformance's own reference sandbox, not a vendor's service${p.target.sandbox_faults.length ? `, with the fault switches ${p.target.sandbox_faults.join(', ')} on` : ''}.`);
  }
  if (p.scope.shard) out.push(`This is shard ${p.scope.shard.index} of ${p.scope.shard.count} of a run: the other shards' suites (${p.scope.not_run.join(', ') || 'none'}) are not in it.`);
  else if (p.scope.not_run.length) out.push(`This run covered ${p.scope.groups.length} of ${p.scope.groups.length + p.scope.not_run.length} suites; not run: ${p.scope.not_run.join(', ')}.`);
  return out;
}

export function renderCertificate(p: CertificationPredicate, a: Assessment): string {
  const warn = caveats(p);
  // A headline with caveats is grey whatever the verdict: a green "conformant" over the suite's own sandbox misleads.
  const colour = warn.length ? GREY : (COLOURS[p.verdict] ?? GREY);
  const rows = a.coverage.requirements
    .map((r) => `<tr><td><code>${esc(r.id)}</code></td><td>${esc(r.level)}</td><td style="color:${STATUS_COLOURS[r.status] ?? '#000'}">${esc(r.status)}</td><td>${r.checks.executed}/${r.checks.total}</td><td>${esc(r.reason ?? '')}</td></tr>`)
    .join('\n');
  const m = p.coverage.must;
  const c = p.counts;
  const doc = p.document.reference_profile
    ? `the reference profile of fsapi-conformance ${esc(p.suite.version)} (${p.document.operations} operations)`
    : `the vendor's own document, ${esc(p.document.title)} (OpenAPI ${esc(p.document.openapi)}, ${p.document.operations} operations): not the reference profile; compare its digest with the document the vendor publishes`;
  const notRejudged = p.rejudged.not_rejudged.length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Certificate: ${esc(p.party ?? p.document.title)} - ${esc(p.verdict)}${warn.length ? ` (${esc(warn.join('; '))})` : ''}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:60rem;color:#1f2328;padding:0 1rem}
.verdict{border-left:8px solid ${colour};padding:.5rem 1rem;background:#f6f8fa}
.verdict h1{margin:.2rem 0;color:${colour};text-transform:uppercase;letter-spacing:.05em}
.caveat{border:2px solid #9a6700;background:#fff8c5;padding:.5rem 1rem;font-weight:600}
dl{display:grid;grid-template-columns:14rem 1fr;gap:.2rem 1rem}dt{color:#59636e}dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:13px}td,th{border-bottom:1px solid #d1d9e0;padding:.25rem .5rem;text-align:left;vertical-align:top}
code,pre{font-family:ui-monospace,monospace}pre{background:#f6f8fa;padding:.75rem;overflow:auto}
</style></head><body>
<p>fsapi-conformance ${esc(p.suite.version)} certification${p.party ? ` of <strong>${esc(p.party)}</strong>` : ''}</p>
<div class="verdict"><h1>${esc(p.verdict)}${warn.length ? ` · ${esc(warn.join(' · '))}` : ''}</h1><p>${esc(p.headline)}</p>
<p><strong>MUST coverage: ${m.verified} of ${m.applicable} MUST requirements verified</strong>${m.waived ? `, ${m.waived} waived` : ''}${m.not_verified ? `, ${m.not_verified} not verified` : ''}${m.failed ? `, ${m.failed} failed` : ''}</p></div>
${warn.length ? `<p class="caveat">${caveatSentences(p).map(esc).join(' ')}</p>\n` : ''}<h2>What was tested</h2>
<dl>
<dt>Certified party</dt><dd>${p.party ? esc(p.party) : 'not named (certify --party)'}</dd>
<dt>Target</dt><dd>${esc(p.target.base_url)} (environment: ${esc(p.target.environment)}): ${TARGET_KIND[p.target.kind]}</dd>
<dt>Sandbox faults</dt><dd>${p.target.sandbox_faults.length ? esc(p.target.sandbox_faults.join(', ')) : 'none'}</dd>
<dt>Suites run</dt><dd>${esc(suites(p))}</dd>
<dt>Shard</dt><dd>${p.scope.shard ? `${p.scope.shard.index} of ${p.scope.shard.count}: a part of a run, not a full run` : 'none: the whole run'}</dd>
<dt>Operations left out</dt><dd>${p.scope.excluded_operations.length ? `${esc(p.scope.excluded_operations.join(', '))} (capabilities file)` : 'none'}</dd>
<dt>Document</dt><dd>${doc}</dd>
<dt>Document SHA-256</dt><dd><code>${esc(p.document.sha256)}</code></dd>
${p.binding ? `<dt>Binding</dt><dd>${p.binding.active_entries} active entries; SHA-256 <code>${esc(p.binding.sha256)}</code></dd>\n` : ''}<dt>Date</dt><dd>${esc(p.run.started_at)} to ${esc(p.run.finished_at)}</dd>
<dt>Checks</dt><dd>${c.total}: ${c.passed} passed, ${c.failed} failed, ${c.warning} warnings, ${c.skipped} skipped, ${c.error} errors${p.run.strict ? ' (--strict)' : ''}</dd>
<dt>Re-judged from the evidence</dt><dd>${p.rejudged.checks} of ${p.rejudged.planned} planned checks, offline, by the judgement code the checks use (${p.rejudged.answer_only} of them on their probe's answer, their state comparison not); ${notRejudged} not re-judged, each listed by id with why in the signed statement (rejudged.not_rejudged) and by verify --json</dd>
<dt>Suite</dt><dd>fsapi-conformance ${esc(p.suite.version)}; seed ${p.run.seed}; Node ${esc(p.run.node)} on ${esc(p.run.platform)}</dd>
<dt>Signing key fingerprint</dt><dd><code>${esc(p.signer.fingerprint)}</code></dd>
</dl>
<h2>How to verify</h2>
<p>Get the signer's public key (${esc(p.signer.public_key)}) from them by a channel you trust, check its fingerprint above, then, offline:</p>
<pre># with fsapi-conformance ${esc(p.suite.version)} installed (its README, Installing)
npx --no fsapi-conformance verify ${esc(p.package)} \\
  --key ${esc(p.signer.public_key)} --require conformant${warn.length ? ' --accept-caveats' : ''}</pre>
<p>It checks the signature and every file's digest, plans the run again and requires its checks to be that plan, judges the recorded exchanges again with the suite's own judgement code, and recomputes the counts, the verdict and this page. Exit 0 means all of it agrees and the verdict is conformant.${warn.length ? ` This package is less than a vendor's full run (${esc(warn.join('; '))}): without --accept-caveats, verify says so and exits 18.` : ''} This page alone proves nothing: the package does.</p>
<h2>Requirements</h2>
<table><thead><tr><th>Requirement</th><th>Level</th><th>Status</th><th>Checks executed</th><th>Why</th></tr></thead><tbody>
${rows}
</tbody></table>
</body></html>
`;
}

/** A shields-style badge: "fsapi | conformant · MUST 27/27 · 2026-11-27", led by what the run was when it was less. */
export function renderBadge(p: CertificationPredicate): string {
  const left = 'fsapi';
  const lead = p.target.kind === 'reference-sandbox' ? ['reference sandbox'] : [];
  if (p.scope.shard) lead.push(`shard ${p.scope.shard.index}/${p.scope.shard.count}`);
  else if (p.scope.not_run.length) lead.push(`${p.scope.groups.length}/${p.scope.groups.length + p.scope.not_run.length} suites`);
  const right = [...lead, p.verdict, `MUST ${p.coverage.must.verified}/${p.coverage.must.applicable}`, p.run.started_at.slice(0, 10)].join(' · ');
  const w = (s: string) => Math.round(s.length * 6.6 + 12);
  const lw = w(left);
  const rw = w(right);
  const colour = lead.length ? GREY : (COLOURS[p.verdict] ?? GREY);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + rw}" height="20" role="img" aria-label="${esc(`${left}: ${right}`)}">
<title>${esc(`${left}: ${right}`)}</title>
<rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${rw}" height="20" fill="${colour}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${lw / 2}" y="14">${esc(left)}</text><text x="${lw + rw / 2}" y="14">${esc(right)}</text>
</g></svg>
`;
}
