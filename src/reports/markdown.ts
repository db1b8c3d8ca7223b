/**
 * summary.md: the run as a GitHub job summary or PR comment.
 *
 * Order: verdict (the headline, the exit code and its meaning), run diagnostics (what makes the run weak, with the
 * fix), where the document contradicts the seed (each once, its checks grouped there), coverage (MUST requirements not verified or waived, operations not exercised), counts, one table per group
 * (a group with no executed check says "not tested"), every failure and error grouped per requirement with its
 * message and a reproduction, warnings (collapsed), the exploration's suggestions (values the document allows that
 * the target refused), the gap report, the baseline diff, a footer.
 * Its sections share the marks of markdown-marks.ts; the results by group are markdown-groups.ts.
 * It is bounded (default 60,000 UTF-8 bytes, under GitHub's 65,536 characters for a comment and 1 MiB for a job summary): lists are capped with
 * "and N more" pointing to conformance.json, and the caps shrink until the whole fits.
 */
import { LEVELS } from '../catalogue/requirements.js';
import type { CheckResult, Gap, RequirementCoverage, RunReport } from '../results/model.js';
import { conflictText, groupedChecks } from '../results/document-conflicts.js';
import { BLOCKING_LEVELS, EXIT_CODE_HELP, exitCodeFor, exitCodeOf } from '../results/verdict.js';
import { renderDiffMarkdown } from './diff.js';
import { renderDocumentChange, renderTrendMarkdown } from './regression-render.js';
import { intermittentLine } from '../results/attempts.js';
import { gapsFromChecks } from './gaps.js';
import { countGroup, groupOrder, groupTables } from './markdown-groups.js';
import { byId, COLUMNS, countsHeader, countsLine, countsRow, ICON, levelRank, type Caps } from './markdown-marks.js';
import { mdBlock, mdCode, mdEscape } from './markdown-text.js';
import { formatDuration, oneLine, plural, redactUrl, trialNote, truncate } from './text.js';

/** In UTF-8 bytes, which is never fewer than characters: safe for both GitHub limits. */
export const SUMMARY_MAX_BYTES = 60_000;
const size = (s: string) => Buffer.byteLength(s, 'utf8');

const VERDICT_ICON = { conformant: '✅', 'non-conformant': '❌', inconclusive: '❔', incomplete: '⏸️' } as const;
const VERDICT_TITLE = { conformant: 'Conformant', 'non-conformant': 'Non-conformant', inconclusive: 'Inconclusive', incomplete: 'Incomplete' } as const;
function head(report: RunReport): string[] {
  const regression = report.baseline?.regression ?? false;
  const code = exitCodeOf(report);
  const meaning = EXIT_CODE_HELP.find((x) => x.code === code)?.meaning ?? '';
  const t = report.target;
  const out = [
    `# ${trialNote(report) ? '🧪 Trial, ' : `${VERDICT_ICON[report.verdict]} `}${VERDICT_TITLE[report.verdict]}: ${mdEscape(report.spec.title || 'Financial Services API')}`,
    '',
    ...(trialNote(report) ? [`**${mdEscape(trialNote(report)!)}**: a binding or document fault shows here as failures the vendor's own API may not have.`, ''] : []),
    ...(report.headline ? [`**${mdEscape(report.headline)}**`, ''] : []),
    `**Verdict: ${report.verdict}**. Exit code **${code}**: ${mdEscape(meaning)}.`,
  ];
  if (report.verdict !== 'incomplete' && regression) {
    // The verdict's own code means what EXIT_CODE_HELP says of it (1: non-conformant), not the regression.
    const alone = exitCodeFor(report.verdict);
    out.push('', `Exit code ${code} rather than ${alone}, the code of the verdict alone (${report.verdict}): a check that passed in the baseline fails now, a regression (see "Compared with the baseline").`);
  }
  const flaky = report.baseline && intermittentLine(report.baseline);
  if (flaky) out.push('', `**${mdEscape(flaky)}** (see "Compared with the baseline").`);
  if (report.run.incomplete_reason) out.push('', `Incomplete: ${mdEscape(report.run.incomplete_reason)}`);
  out.push(
    '',
    `Target ${mdCode(redactUrl(t.base_url))} (${t.environment}${t.embedded ? ', embedded reference sandbox' : ''})${report.run.strict ? ', strict mode' : ''}: ` +
      `${plural(report.counts.by_status.total, 'check')}, ${countsLine(report.counts.by_status)}.`,
  );
  out.push('', ...countsHeader('level'));
  for (const l of LEVELS) {
    const c = report.counts.by_level[l];
    if (c.total) out.push(countsRow(`${l}${BLOCKING_LEVELS.includes(l) ? ' (blocking)' : ''}`, c));
  }
  out.push(countsRow('**all**', report.counts.by_status));
  return out;
}

/** The faults and settings the run had, the command that repeats it, and how to reproduce a failure by hand. */
function repeatSection(report: RunReport): string[] {
  const r = report.run;
  const t = report.target;
  const faults = t.sandbox_faults ?? [];
  const out = ['', '## Repeat this run', ''];
  const settings = [
    t.embedded ? `embedded reference sandbox, ${faults.length ? `fault switch${faults.length === 1 ? '' : 'es'} on: ${faults.map((f) => mdCode(f)).join(', ')} (docs/sandbox.md)` : 'no fault switch on'}` : `target ${mdCode(redactUrl(t.base_url))} (${t.environment})`,
    `seed ${mdCode(String(r.seed))}`,
    `groups ${r.groups.map((g) => mdCode(g)).join(', ')}`,
    ...(r.shard ? [`shard ${r.shard.index}/${r.shard.count}`] : []),
    ...(r.strict ? ['strict'] : []),
    ...(report.spec.reference_profile ? [] : [`document ${mdCode(report.spec.path)}${report.spec.binding ? ` with binding ${mdCode(report.spec.binding)}` : ''}`]),
  ];
  out.push(`This run: ${settings.join(' · ')}.`);
  if (!r.repeat) return out;
  out.push('', 'The same run again (same seed, groups, faults and document):', '', mdBlock(r.repeat.command, 'sh'));
  if (r.repeat.sandbox) {
    out.push(
      '',
      'To reproduce a failure by hand: the run\'s sandbox stopped with it, so start one with the same faults, which writes the settings the scripts below read (FSAPI_BASE_URL, FSAPI_CA_FILE for `--cacert`, the keys). The sandbox has no seed of its own (its state starts empty); the run\'s seed made the request bodies, which the scripts carry as sent.',
      '',
      mdBlock(`${r.repeat.sandbox}   # serves until Ctrl-C: leave it running\nset -a; . ./sandbox.env; set +a   # in another shell, then paste a script below`, 'sh'),
    );
  } else {
    out.push('', 'The scripts below read FSAPI_BASE_URL, FSAPI_API_KEY and, for `--cacert`, FSAPI_CA_FILE from the environment: export the run\'s settings first.');
  }
  return out;
}

function diagnostics(report: RunReport): string[] {
  const d = report.diagnostics ?? [];
  if (!d.length) return [];
  const out = ['', '## Run diagnostics', '', 'Read these first: they make the per-check results below weak or meaningless.', ''];
  for (const x of d) out.push(`- ⚠️ ${mdEscape(x.message)}  `, `  Fix: ${mdEscape(x.fix)}`);
  return out;
}

/** Where the document contradicts a seed rule: each once, with its evidence; its checks are grouped here. */
function conflictsSection(report: RunReport, caps: Caps): string[] {
  const conflicts = report.document_conflicts ?? [];
  if (!conflicts.length) return [];
  const checkById = new Map(report.checks.map((c) => [c.id, c]));
  const out = [
    '',
    '## Where the document contradicts the seed',
    '',
    'The document in use declares what a seed rule forbids. Each contradiction is stated once, with its place in the document; the checks that failed or warned because the target did what its document says are grouped here instead of listed one by one below. They still count: the verdict is the same.',
    '',
  ];
  for (const x of conflicts) {
    const checks = x.checks.map((id) => checkById.get(id)).filter((c): c is CheckResult => !!c);
    const level = checks[0]?.level ?? report.coverage?.requirements.find((r) => r.id === x.requirement)?.level;
    const examples = checks.slice(0, 3).map((c) => mdCode(c.name)).join(', ');
    out.push(
      `- ${checks.length ? ICON[checks[0]!.status] : 'ℹ️'} **${mdEscape(x.requirement)}**${level ? ` (${level}${checks[0] ? `: ${mdEscape(checks[0].title)}` : ''})` : ''}: ${mdEscape(conflictText(x))}${examples ? `; e.g. ${examples}${checks.length > 3 ? ` and ${checks.length - 3} more` : ''}` : ''}.`,
    );
    if (x.operations.length) out.push(`  <details><summary>the ${plural(x.operations.length, 'operation')} it applies to</summary>`, '', `  ${x.operations.slice(0, caps.list).map((o) => mdCode(o)).join(', ')}${x.operations.length > caps.list ? `, …and ${x.operations.length - caps.list} more (\`document_conflicts\` in conformance.json)` : ''}`, '', '  </details>');
  }
  return out;
}

const STATUS_LABEL: Record<RequirementCoverage['status'], string> = {
  verified: '✅ verified',
  failed: '❌ failed',
  'not-verified': '❔ not verified',
  waived: '🏳️ waived',
  'not-applicable': '➖ not applicable',
};

function coverageSection(report: RunReport, caps: Caps): string[] {
  const cov = report.coverage;
  if (!cov) return [];
  const m = cov.must;
  const out = [
    '',
    '## Coverage',
    '',
    `MUST requirements: ${m.verified} verified, ${m.failed} failed, ${m.not_verified} not verified, ${m.waived} waived of ${m.applicable} that apply` +
      `${m.not_applicable ? ` (${m.not_applicable} not applicable to this run)` : ''}.`,
  ];
  const open = cov.requirements.filter((r) => r.status === 'not-verified' || r.status === 'waived');
  const must = open.filter((r) => r.level === 'MUST');
  if (must.length) {
    out.push('', '| requirement | level | status | why |', '|---|---|---|---|');
    for (const r of must) out.push(`| ${mdEscape(r.id)} | ${r.level} | ${STATUS_LABEL[r.status]} | ${r.reason ? mdCode(truncate(oneLine(r.reason), caps.text), true) : ''} |`);
  }
  const others = open.filter((r) => r.level !== 'MUST');
  if (others.length) {
    out.push('', `<details><summary>${plural(others.length, 'other requirement')} not verified or waived (CONTRACT, SHOULD, PROFILE, INFO)</summary>`, '');
    out.push('| requirement | level | status | why |', '|---|---|---|---|');
    for (const r of others.slice(0, caps.list)) out.push(`| ${mdEscape(r.id)} | ${r.level} | ${STATUS_LABEL[r.status]} | ${r.reason ? mdCode(truncate(oneLine(r.reason), caps.text), true) : ''} |`);
    if (others.length > caps.list) out.push('', `…and ${others.length - caps.list} more: see \`coverage\` in conformance.json.`);
    out.push('', '</details>');
  }
  const ops = cov.operations;
  out.push('', `Document operations exercised: ${ops.exercised} of ${ops.total}${ops.not_in_run ? ` (${ops.not_in_run} left out of this run on purpose)` : ''}.`);
  const missed = ops.list.filter((o) => !o.exercised && !o.not_in_run);
  if (missed.length) {
    out.push('', `<details><summary>${plural(missed.length, 'operation')} of the document not exercised</summary>`, '');
    for (const o of missed.slice(0, caps.list)) out.push(`- ${mdCode(o.operation)} (${mdCode(`${o.method} ${o.path}`)}): ${mdEscape(o.reason ?? 'not reached')}`);
    if (missed.length > caps.list) out.push(`- …and ${missed.length - caps.list} more`);
    out.push('', '</details>');
  }
  return out;
}

function failures(report: RunReport, caps: Caps): string[] {
  const rank = (c: CheckResult) => (BLOCKING_LEVELS.includes(c.level) ? 0 : c.status === 'failed' && c.level !== 'INFO' ? 1 : 2);
  const all = report.checks.filter((c) => c.status === 'failed' || c.status === 'error');
  if (!all.length) return [];
  // The checks grouped under a contradiction of the document are stated there once; the heading still counts them.
  const grouped = groupedChecks(report.document_conflicts);
  const bad = all.filter((c) => !grouped.has(c.id)).sort((a, b) => rank(a) - rank(b) || levelRank(a) - levelRank(b) || byId(a, b));
  const byReq = new Map<string, CheckResult[]>();
  for (const c of bad) (byReq.get(c.requirement) ?? byReq.set(c.requirement, []).get(c.requirement)!).push(c);
  const requirements = new Set(all.map((c) => c.requirement)).size;
  const out = ['', `## Failures and errors (${plural(all.length, 'check')}, ${plural(requirements, 'requirement')})`];
  if (all.length > bad.length) out.push('', `${plural(all.length - bad.length, 'failed check')} ${all.length - bad.length === 1 ? 'is' : 'are'} grouped under "Where the document contradicts the seed" above${bad.length ? '; the rest follow' : ''}.`);
  let shown = 0;
  for (const [req, checks] of byReq) {
    if (shown >= caps.detail) break;
    shown++;
    const first = checks[0]!;
    const tally = COLUMNS.filter((x) => x.status === 'failed' || x.status === 'error')
      .map((x) => [x, checks.filter((c) => c.status === x.status).length] as const)
      .filter(([, n]) => n)
      .map(([x, n]) => `${n} ${x.status === 'error' ? (n === 1 ? 'error' : 'errors') : 'failed'}`)
      .join(', ');
    const sites = [...new Set(checks.map((c) => c.defined_at).filter((at): at is string => !!at))];
    out.push('', `### ${ICON[first.status]} ${mdEscape(req)} · ${first.level} · ${tally}`, '', `Source: ${mdEscape(first.clause)}${sites.length ? `; defined at ${sites.map((at) => mdCode(at)).join(', ')}` : ''}`, '');
    // Checks with the same message are listed together: a defect repeated over many operations reads once.
    const byMessage = new Map<string, CheckResult[]>();
    for (const c of checks) (byMessage.get(c.message ?? '') ?? byMessage.set(c.message ?? '', []).get(c.message ?? '')!).push(c);
    let listed = 0;
    for (const [message, same] of byMessage) {
      if (listed >= caps.list) break;
      listed++;
      const names = same.slice(0, 5).map((c) => mdCode(c.name)).join(', ');
      const more = same.length > 5 ? ` and ${same.length - 5} more` : '';
      out.push(`- ${ICON[same[0]!.status]} ${names}${more}: ${mdCode(truncate(oneLine(message || '(no message)'), caps.text))}`);
    }
    if (byMessage.size > listed) out.push(`- …and ${byMessage.size - listed} more messages for ${mdEscape(req)}: see conformance.json`);
    // The whole sequence the check sent; a script cut short would not reproduce, so one too long is pointed to.
    const scriptCap = caps.text * 8;
    const repro = checks.find((c) => c.reproduce && c.reproduce.length <= scriptCap) ?? checks.find((c) => c.reproduce);
    if (repro) {
      const script = repro.reproduce!;
      out.push('', `Reproduce (${mdCode(repro.name)}; see "Repeat this run" for the settings it reads):`, '');
      out.push(script.length <= scriptCap ? mdBlock(script, 'sh') : `The script (${plural(script.split('\n').length, 'line')}) is this check's \`reproduce\` in conformance.json.`);
    }
  }
  if (byReq.size > shown) {
    const rest = [...byReq].slice(shown);
    out.push('', `…and ${rest.length} more requirements with failures or errors:`, '');
    for (const [req, checks] of rest.slice(0, caps.list)) out.push(`- ${ICON[checks[0]!.status]} ${mdEscape(req)} (${checks[0]!.level}): ${plural(checks.length, 'check')}, e.g. ${mdCode(truncate(oneLine(checks[0]!.message ?? ''), Math.min(caps.text, 200)))}`);
    if (rest.length > caps.list) out.push(`- …and ${rest.length - caps.list} more`);
    out.push('', 'Every message, exchange and reproduction line is in conformance.json.');
  }
  return out;
}

function warnings(report: RunReport, caps: Caps): string[] {
  const grouped = groupedChecks(report.document_conflicts);
  const all = report.checks.filter((c) => c.status === 'warning');
  const warned = all.filter((c) => !grouped.has(c.id)).sort((a, b) => levelRank(a) - levelRank(b) || byId(a, b));
  if (!all.length) return [];
  const apart = all.length - warned.length;
  const out = [
    '',
    '## Warnings',
    '',
    `<details><summary>${plural(all.length, 'warning')}${apart ? ` (${apart} grouped under "Where the document contradicts the seed")` : ''}: SHOULD and PROFILE checks that failed; they do not change the verdict (they do under --strict)</summary>`,
    '',
    '| check | level | why |',
    '|---|---|---|',
  ];
  for (const c of warned.slice(0, caps.list)) {
    out.push(`| ${mdCode(c.name, true)} | ${c.level} | ${c.message ? mdCode(truncate(oneLine(c.message), caps.text), true) : ''} |`);
  }
  if (warned.length > caps.list) out.push('', `…and ${warned.length - caps.list} more: see conformance.json.`);
  out.push('', '</details>');
  return out;
}

/** The exploration's suggestions: values the document allows that the target refused, each with its minimal request. */
function refusedValues(report: RunReport, caps: Caps): string[] {
  const refused = report.checks.filter((c) => c.refused_value).sort(byId);
  if (!refused.length) return [];
  const out = [
    '',
    `## Values the document allows that the target refused (${plural(refused.length, 'suggestion')})`,
    '',
    'The exploration sent requests valid for the document that the target refused with a documented 400 or 422, each shrunk to the one change that draws the refusal, confirmed on the valid request the target accepted. Either the document should say so (an enum, a pattern, a documented rule) or the target has a defect. Suggestions: they never change the verdict or the exit code.',
    '',
    '| operation | minimal request | answer | refused |',
    '|---|---|---|---|',
  ];
  for (const c of refused.slice(0, caps.list)) {
    const v = c.refused_value!;
    const said = [v.title, v.detail].filter((t) => t !== undefined).join(': ');
    out.push(`| ${mdCode(c.operation ?? c.group, true)} | ${mdCode(truncate(oneLine(v.request), caps.text), true)} | ${v.status}${said ? ` ${mdCode(truncate(oneLine(said), caps.text), true)}` : ''} | ${v.refused} of ${v.explored} explored |`);
  }
  if (refused.length > caps.list) out.push('', `…and ${refused.length - caps.list} more: see \`refused_value\` in conformance.json.`);
  return out;
}

function gapReport(report: RunReport, caps: Caps): string[] {
  const gaps: Gap[] = report.gaps.length ? report.gaps : gapsFromChecks(report.checks);
  if (!gaps.length) return [];
  const out = [
    '',
    '## Gap report',
    '',
    'Where the seed specification is silent, the suite records what this target does (INFO: never a failure). For the specification owners:',
  ];
  for (const g of gaps.slice(0, caps.list)) {
    out.push('', `- **${mdEscape(g.requirement)}**: ${mdEscape(g.statement)}`);
    if (!g.observations.length) out.push('  - (nothing observed)');
    for (const o of g.observations.slice(0, Math.max(1, Math.floor(caps.list / 5)))) out.push(`  - observed: ${mdCode(truncate(oneLine(o), caps.text))}`);
    const more = g.observations.length - Math.max(1, Math.floor(caps.list / 5));
    if (more > 0) out.push(`  - …and ${more} more observations`);
  }
  if (gaps.length > caps.list) out.push('', `…and ${gaps.length - caps.list} more gaps: see \`gaps\` in conformance.json.`);
  return out;
}

function footer(report: RunReport): string[] {
  const r = report.run;
  return [
    '',
    '---',
    '',
    `Target: ${mdCode(redactUrl(report.target.base_url))}${report.target.tenant_id ? ` · tenant ${mdCode(report.target.tenant_id)}` : ''}  `,
    `Seed: ${mdCode(String(r.seed))} · run ${mdCode(r.id)}${r.shard ? ` · shard ${r.shard.index}/${r.shard.count}` : ''}${r.merged_from ? ` · merged from ${r.merged_from.length} shards` : ''}  `,
    `Spec: ${mdCode(report.spec.path)} (${mdEscape(report.spec.title)}, OpenAPI ${mdEscape(report.spec.openapi)}${report.spec.reference_profile ? ', reference profile' : ''}), SHA-256 ${mdCode(report.spec.sha256)}  `,
    `Requirements: ${report.requirements.count}, SHA-256 ${mdCode(report.requirements.sha256)}  `,
    `Started ${mdEscape(r.started_at)} · duration ${formatDuration(r.duration_ms)} · ${plural(r.requests_sent, 'request')} · fsapi-conformance ${mdEscape(report.suite.version)} · Node ${mdEscape(r.node)}  `,
    'Full results: `conformance.json` (every check with its evidence), `junit.xml`, `allure-report/index.html` (HTML; `fsapi-conformance report` builds it when the run did not).',
  ];
}

/** summary.md's sections around "Results by group", which do not depend on how many rows each group shows. */
interface Around {
  before: string[];
  after: string[];
}

function around(report: RunReport, caps: Caps): Around {
  return {
    before: [
      ...head(report),
      // A release's document change comes first: it explains much of what follows.
      ...(report.baseline?.document?.changed ? ['', renderDocumentChange(report.baseline.document, { cap: caps.list, heading: '##' })] : []),
      ...diagnostics(report),
      ...conflictsSection(report, caps),
      ...repeatSection(report),
      ...coverageSection(report, caps),
    ],
    after: [
      ...failures(report, caps),
      ...warnings(report, caps),
      ...refusedValues(report, caps),
      ...gapReport(report, caps),
      ...(report.baseline ? ['', renderDiffMarkdown(report.baseline, { cap: caps.list, heading: '##' })] : []),
      ...(report.trend ? ['', renderTrendMarkdown(report.trend)] : []),
      ...footer(report),
    ],
  };
}

function render(report: RunReport, caps: Caps, rowsPerGroup: number, sections: Around): string {
  return `${[...sections.before, ...groupTables(report, rowsPerGroup, caps), ...sections.after].join('\n')}\n`;
}

/**
 * A row of a group's table takes at least this many bytes ("| x | `` | INFO |  |" and its newline): no more rows per
 * group than the summary's size over this can fit, which bounds the search for the most that do.
 */
const MIN_ROW_BYTES = 15;

/**
 * Renders summary.md, shrinking the caps until it fits in `maxBytes`. The sections around the groups' tables are
 * rendered once per caps, and the search for the most rows per group that fit starts at what could fit at all: a
 * 2,000-operation document's 57,413 checks took 6.3 s to summarise in its run, every section rendered again at each
 * of the search's 17 steps, the first of them with tens of thousands of rows.
 */
export function renderSummary(report: RunReport, opts: { maxBytes?: number } = {}): string {
  const max = opts.maxBytes ?? SUMMARY_MAX_BYTES;
  const largestGroup = Math.max(0, ...Object.values(report.counts.by_group).map((c) => c.total), ...groupOrder(report).map((g) => countGroup(report, g).total));
  let caps: Caps = { detail: 25, list: 50, text: 800 };
  for (let attempt = 0; attempt < 8; attempt++) {
    const sections = around(report, caps);
    // The per-group check lists take what is left: the most rows per group that still fit.
    let lo = 0;
    let hi = Math.min(largestGroup, Math.floor(max / MIN_ROW_BYTES));
    if (size(render(report, caps, 0, sections)) <= max) {
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (size(render(report, caps, mid, sections)) <= max) lo = mid;
        else hi = mid - 1;
      }
      return render(report, caps, lo, sections);
    }
    caps = { detail: Math.max(1, Math.floor(caps.detail / 2)), list: Math.max(3, Math.floor(caps.list / 2)), text: Math.max(80, Math.floor(caps.text / 2)) };
  }
  // Pathological input (thousands of groups or gaps): the head and footer only.
  return `${[...head(report), ...diagnostics(report), '', 'The full summary does not fit here: see conformance.json and junit.xml.', ...footer(report)].join('\n')}\n`;
}
