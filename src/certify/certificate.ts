/** The certificate a person reads (one self-contained HTML page) and a README badge (SVG). */
import type { RunReport } from '../results/model.js';
import type { CertificationPredicate } from './layout.js';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const COLOURS: Record<string, string> = { conformant: '#1a7f37', 'non-conformant': '#cf222e', inconclusive: '#9a6700', incomplete: '#6e7781' };
const STATUS_COLOURS: Record<string, string> = { verified: '#1a7f37', failed: '#cf222e', 'not-verified': '#9a6700', waived: '#6e7781', 'not-applicable': '#6e7781' };

export function mustCoverage(report: RunReport): string {
  const m = report.coverage?.must;
  return m ? `${m.verified}/${m.applicable}` : 'n/a';
}

export function renderCertificate(report: RunReport, p: CertificationPredicate, packageName: string): string {
  const colour = COLOURS[report.verdict] ?? '#6e7781';
  const rows = (report.coverage?.requirements ?? [])
    .map((r) => `<tr><td><code>${esc(r.id)}</code></td><td>${esc(r.level)}</td><td style="color:${STATUS_COLOURS[r.status] ?? '#000'}">${esc(r.status)}</td><td>${r.checks.executed}/${r.checks.total}</td><td>${esc(r.reason ?? '')}</td></tr>`)
    .join('\n');
  const m = report.coverage?.must;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Certificate: ${esc(report.spec.title)} - ${esc(report.verdict)}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:60rem;color:#1f2328;padding:0 1rem}
.verdict{border-left:8px solid ${colour};padding:.5rem 1rem;background:#f6f8fa}
.verdict h1{margin:.2rem 0;color:${colour};text-transform:uppercase;letter-spacing:.05em}
dl{display:grid;grid-template-columns:14rem 1fr;gap:.2rem 1rem}dt{color:#59636e}dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:13px}td,th{border-bottom:1px solid #d1d9e0;padding:.25rem .5rem;text-align:left;vertical-align:top}
code,pre{font-family:ui-monospace,monospace}pre{background:#f6f8fa;padding:.75rem;overflow:auto}
</style></head><body>
<p>fsapi-conformance ${esc(p.suite.version)} certification</p>
<div class="verdict"><h1>${esc(report.verdict)}</h1><p>${esc(report.headline ?? '')}</p>
<p><strong>MUST coverage: ${m ? `${m.verified} of ${m.applicable} MUST requirements verified` : 'not recorded'}</strong>${m && m.waived ? `, ${m.waived} waived` : ''}${m && m.not_verified ? `, ${m.not_verified} not verified` : ''}</p></div>
<h2>What was tested</h2>
<dl>
<dt>Target</dt><dd>${esc(report.target.base_url)} (${report.target.embedded ? 'the embedded reference sandbox' : `environment: ${esc(report.target.environment)}`})</dd>
<dt>Document</dt><dd>${esc(report.spec.title)} (OpenAPI ${esc(report.spec.openapi)})</dd>
<dt>Document SHA-256</dt><dd><code>${esc(report.spec.sha256)}</code></dd>
<dt>Date</dt><dd>${esc(report.run.started_at)} to ${esc(report.run.finished_at)}</dd>
<dt>Checks</dt><dd>${report.counts.by_status.total}: ${report.counts.by_status.passed} passed, ${report.counts.by_status.failed} failed, ${report.counts.by_status.warning} warnings, ${report.counts.by_status.skipped} skipped, ${report.counts.by_status.error} errors${report.run.strict ? ' (--strict)' : ''}</dd>
<dt>Re-judged from the evidence</dt><dd>${p.rejudged.checks} of ${p.rejudged.of} checks, offline, by the judgement code the checks use (${p.rejudged.answer_only} of them on their probe's answer, their state comparison not)</dd>
<dt>Suite</dt><dd>fsapi-conformance ${esc(p.suite.version)}; seed ${p.run.seed}; Node ${esc(p.run.node)} on ${esc(p.run.platform)}</dd>
<dt>Signing key fingerprint</dt><dd><code>${esc(p.signer.fingerprint)}</code></dd>
</dl>
<h2>How to verify</h2>
<p>Get the signer's public key from them by a channel you trust, check its fingerprint above, then, offline:</p>
<pre># with fsapi-conformance ${esc(p.suite.version)} installed (its README, Installing)
npx --no fsapi-conformance verify ${esc(packageName)} --key signer.pub</pre>
<p>It checks the signature and every file's digest, judges every recorded exchange again with the suite's own judgement code, and recomputes the counts and the verdict. Exit 0 means all of it agrees. This page alone proves nothing: the package does.</p>
<h2>Requirements</h2>
<table><thead><tr><th>Requirement</th><th>Level</th><th>Status</th><th>Checks executed</th><th>Why</th></tr></thead><tbody>
${rows}
</tbody></table>
</body></html>
`;
}

/** A shields-style badge: "fsapi | conformant · MUST 27/27 · 2026-11-27". */
export function renderBadge(report: RunReport): string {
  const left = 'fsapi';
  const right = `${report.verdict} · MUST ${mustCoverage(report)} · ${report.run.started_at.slice(0, 10)}`;
  const w = (s: string) => Math.round(s.length * 6.6 + 12);
  const lw = w(left);
  const rw = w(right);
  const colour = COLOURS[report.verdict] ?? '#6e7781';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + rw}" height="20" role="img" aria-label="${esc(`${left}: ${right}`)}">
<title>${esc(`${left}: ${right}`)}</title>
<rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${rw}" height="20" fill="${colour}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${lw / 2}" y="14">${esc(left)}</text><text x="${lw + rw / 2}" y="14">${esc(right)}</text>
</g></svg>
`;
}
