/**
 * junit.xml: one <testsuite> per group, one <testcase> per check (classname = group, name = the check name, which
 * starts with the requirement ID), for CI systems that show test results.
 *
 * Mapping:
 * - passed  -> a plain testcase (INFO observations go to <system-out> as "OBSERVED: ...");
 * - failed  -> <failure message type="LEVEL"> with the message, source clause, reproduction and the exchanges;
 * - error   -> <error> with the same body (the suite could not decide: transport failure, timeout, harness fault);
 * - skipped -> <skipped message="[cause] reason"/> (the cause, e.g. credential or waived, when the check gave one);
 * - warning -> a PASSING testcase whose <system-out> starts with "WARNING [LEVEL]: why". JUnit has no warning
 *   state, and a warning does not change the verdict, so a CI that counts <failure> elements must not fail on it.
 * Each testcase carries <properties>: requirement, level, operation (when there is one), family, check_id, status.
 * The checks grouped under a contradiction of the document (src/results/document-conflicts.ts) are in a testsuite of
 * their own, named for it ("the document contradicts FSAPI-AUTH-003 (#/components/securitySchemes/bearerAuth)"),
 * each still failing as it did, its message saying so first: a CI's test tab shows them together, counted.
 */
import type { CheckResult, DocumentConflict, RecordedExchange, RunReport } from '../results/model.js';
import { conflictText, groupedChecks } from '../results/document-conflicts.js';
import { exitCodeOf } from '../results/verdict.js';
import { redactUrl, truncate } from './text.js';
import { attrs, xmlText } from './xml.js';

/** Evidence kept per exchange body in junit.xml (conformance.json has all of it). */
const BODY_CAP = 2_000;
const EXCHANGES_CAP = 5;

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function exchangeText(x: RecordedExchange): string {
  const lines = [`> ${x.request.method} ${x.request.url}`];
  if (x.request.body) lines.push(`> ${truncate(x.request.body, BODY_CAP)}${x.request.body_truncated ? ' [truncated when recorded]' : ''}`);
  if (x.response) {
    lines.push(`< ${x.response.status} (${x.response.size_bytes} bytes, ${Math.round(x.duration_ms)} ms)`);
    const ct = Object.entries(x.response.headers).find(([k]) => k.toLowerCase() === 'content-type');
    if (ct) lines.push(`< content-type: ${ct[1]}`);
    if (x.response.body) lines.push(`< ${truncate(x.response.body, BODY_CAP)}${x.response.body_truncated ? ' [truncated when recorded]' : ''}`);
  }
  if (x.error) lines.push(`! ${x.error}`);
  return lines.join('\n');
}

function failureBody(c: CheckResult, conflict: DocumentConflict | undefined): string {
  const parts = [c.message ?? '(no message)', '', `requirement: ${c.requirement} (${c.level}): ${c.title}`, `source: ${c.clause}`];
  if (conflict) parts.push(`grouped: ${conflictText(conflict)}`);
  if (c.reproduce) parts.push(`reproduce: ${c.reproduce}`);
  if (c.defined_at) parts.push(`defined at: ${c.defined_at}`);
  if (c.exchanges.length) {
    parts.push('', `exchanges (${c.exchanges.length}${c.exchanges.length > EXCHANGES_CAP ? `, last ${EXCHANGES_CAP} shown` : ''}):`);
    for (const x of c.exchanges.slice(-EXCHANGES_CAP)) parts.push(exchangeText(x), '');
  }
  return parts.join('\n').trimEnd();
}

function property(name: string, value: string | undefined): string {
  return value === undefined ? '' : `        <property${attrs({ name, value })}/>\n`;
}

function testcase(c: CheckResult, conflict: DocumentConflict | undefined): string {
  const name = c.name.startsWith(c.requirement) ? c.name : `${c.requirement} ${c.name}`;
  let out = `    <testcase${attrs({ classname: c.group, name, time: seconds(c.duration_ms) })}>\n`;
  out += '      <properties>\n';
  out += property('requirement', c.requirement);
  out += property('level', c.level);
  out += property('operation', c.operation);
  out += property('family', c.family);
  out += property('check_id', c.id);
  out += property('status', c.status);
  if (c.skip_cause) out += property('skip_cause', c.skip_cause);
  if (conflict) out += property('document_conflict', `#${conflict.pointer}`);
  out += '      </properties>\n';
  // A grouped failure's one-line message says first that the document itself declares what failed.
  const firstLine = `${conflict ? `[the document contradicts ${c.requirement}: #${conflict.pointer}] ` : ''}${(c.message ?? '').split('\n')[0]!}`;
  switch (c.status) {
    case 'failed':
      out += `      <failure${attrs({ message: truncate(firstLine || 'failed', 500), type: c.level })}>${xmlText(failureBody(c, conflict))}</failure>\n`;
      break;
    case 'error':
      out += `      <error${attrs({ message: truncate(firstLine || 'error', 500), type: c.level })}>${xmlText(failureBody(c, conflict))}</error>\n`;
      break;
    case 'skipped':
      out += `      <skipped${attrs({ message: truncate(`${c.skip_cause ? `[${c.skip_cause}] ` : ''}${c.message ?? 'skipped'}`, 500) })}/>\n`;
      break;
    case 'warning':
      out += `      <system-out>${xmlText(`WARNING [${c.level}]: ${c.message ?? 'no reason given'}\nA ${c.level} check that did not pass: reported, not counted as a failure (it is one under --strict).${conflict ? `\ngrouped: ${conflictText(conflict)}` : ''}${c.reproduce ? `\nreproduce: ${c.reproduce}` : ''}`)}</system-out>\n`;
      break;
    case 'passed':
      if (c.observation) out += `      <system-out>${xmlText(`OBSERVED: ${c.observation}`)}</system-out>\n`;
      break;
  }
  return `${out}    </testcase>\n`;
}

/** The testsuite of the checks grouped under one contradiction of the document: named for it, after the groups. */
const conflictSuite = (x: DocumentConflict) => `the document contradicts ${x.requirement} (#${x.pointer})`;

/** junit.xml, whole. */
export function renderJunit(report: RunReport): string {
  return [...junitPieces(report)].join('');
}

/** junit.xml in pieces, a testcase each, to be written as they come: a vendor run's is some 50 MB. */
export function* junitPieces(report: RunReport): Generator<string> {
  const grouped = groupedChecks(report.document_conflicts);
  const groups = new Map<string, CheckResult[]>();
  const conflicts = new Map<string, DocumentConflict>();
  for (const c of report.checks) {
    const conflict = grouped.get(c.id);
    const suite = conflict ? conflictSuite(conflict) : c.group;
    if (conflict) conflicts.set(suite, conflict);
    let list = groups.get(suite);
    if (!list) groups.set(suite, (list = []));
    list.push(c);
  }
  // The groups' suites first, then one suite per contradiction of the document (the order conformance.json gives).
  const suites = [...groups.keys()].sort((a, b) => Number(conflicts.has(a)) - Number(conflicts.has(b)));
  const s = report.counts.by_status;
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `<testsuites${attrs({
    name: `fsapi-conformance ${report.suite.version}: ${report.verdict}`,
    tests: s.total,
    failures: s.failed,
    errors: s.error,
    skipped: s.skipped,
    time: seconds(report.run.duration_ms),
    timestamp: report.run.started_at,
  })}>\n`;
  for (const group of suites) {
    const checks = groups.get(group)!;
    const conflict = conflicts.get(group);
    const count = (st: CheckResult['status']) => checks.filter((c) => c.status === st).length;
    let xml = `  <testsuite${attrs({
      name: group,
      tests: checks.length,
      failures: count('failed'),
      errors: count('error'),
      skipped: count('skipped'),
      time: seconds(checks.reduce((t, c) => t + c.duration_ms, 0)),
      timestamp: report.run.started_at,
    })}>\n`;
    xml += '    <properties>\n';
    for (const [name, value] of [
      ['verdict', report.verdict],
      ['exit_code', String(exitCodeOf(report))],
      ['target', redactUrl(report.target.base_url)],
      ['environment', report.target.environment],
      ['seed', String(report.run.seed)],
      ['run_id', report.run.id],
      ['spec_sha256', report.spec.sha256],
      ['requirements_sha256', report.requirements.sha256],
      ['strict', String(report.run.strict)],
      ...(conflict
        ? ([
            ['document_conflict', conflictText(conflict)],
            ['document_pointer', `#${conflict.pointer}`],
            ['document_operations', String(conflict.operations.length)],
          ] as const)
        : []),
    ] as const) {
      xml += `      <property${attrs({ name, value })}/>\n`;
    }
    xml += '    </properties>\n';
    yield xml;
    for (const c of checks) yield testcase(c, conflict);
    yield '  </testsuite>\n';
  }
  yield '</testsuites>\n';
}
