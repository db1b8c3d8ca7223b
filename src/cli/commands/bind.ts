import { existsSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { EXIT } from '../../results/verdict.js';
import type { CommandSpec } from '../command.js';
import { invocation } from '../../invocation.js';
import { plural } from '../../reports/text.js';

export const bindCommand: CommandSpec = {
  name: 'bind',
  summary: "infer a binding from a vendor's OpenAPI document (or --check one), for review before a run",
  usage: 'fsapi-conformance bind --spec FILE [--out binding.yaml] [--force] | bind --spec FILE --check binding.yaml',
  description: `
A binding says how a vendor's document plays the reference profile's operations: which vendor operation plays each
reference operation, its path parameter names, field and state names, where the resource sits in a response (an
envelope) and how lists page. bind compares every operation of the document with the reference profile (method,
path structure, operationId, summary, tags, request and response field names) and writes what it finds, each entry
with a confidence and its reasons, plus the operations it placed only in a group and those it could not place.
Review it, then run with --spec FILE --binding binding.yaml. What the seed fixes (POST /customers with its fields,
GET /accounts, the headers and the /v1/ base) is never bound elsewhere. docs/binding.md describes the format.`,
  options: [
    { name: 'spec', type: 'string', value: 'FILE', env: 'FSAPI_SPEC', description: "The vendor's OpenAPI 3.0/3.1 document." },
    { name: 'out', type: 'string', value: 'FILE', default: 'binding.yaml', description: 'Where to write the inferred binding.' },
    { name: 'force', type: 'boolean', description: 'Overwrite --out when it exists.' },
    { name: 'check', type: 'string', value: 'FILE', description: 'Validate this binding against the document instead of inferring one; prints what each operation plays.' },
  ],
  exitCodes: [
    { code: EXIT.conformant, meaning: 'binding written (or, with --check, valid)' },
    { code: EXIT.usage, meaning: 'bad option, unreadable document, --out exists without --force, or (with --check) an invalid binding: the message names the entry' },
    { code: EXIT.internal, meaning: 'internal error of the suite' },
  ],
  async run(args) {
    const specArg = (args.values['spec'] as string | undefined) ?? process.env['FSAPI_SPEC'];
    if (!specArg) throw new UsageError('bind needs the vendor document', { fix: 'give --spec vendor.yaml (or FSAPI_SPEC)' });
    const specPath = resolve(specArg);
    const { loadCatalogue } = await import('../../binding/catalogue-in-use.js');
    const checkPath = args.values['check'] as string | undefined;
    if (checkPath) {
      const cat = await loadCatalogue({ specPath, bindingPath: resolve(checkPath) });
      const rows = cat.binding.accounting();
      const by = (s: string) => rows.filter((r) => r.status === s);
      for (const r of rows) {
        const what = r.status === 'bound' ? `plays ${r.bound_to}` : r.status === 'group-only' ? `group ${r.group} only` : `unbound: ${r.reason}`;
        process.stdout.write(`  ${r.operation.padEnd(36)} ${`${r.method} ${r.path}`.padEnd(48)} ${what}\n`);
      }
      const missing = cat.binding.reference.operations.filter((o) => !cat.binding.resolve(o.operationId)).map((o) => o.operationId);
      process.stdout.write(`\n${checkPath}: valid. ${plural(rows.length, 'operation')}: ${by('bound').length} bound, ${by('group-only').length} in a group only, ${by('unbound').length} unbound\n`);
      process.stdout.write(`${cat.binding.summary(checkPath)}\n`);
      if (missing.length) process.stdout.write(`reference operations no operation plays (their flows are skipped with this reason): ${missing.join(', ')}\n`);
      return EXIT.conformant;
    }
    const out = resolve((args.values['out'] as string | undefined) ?? 'binding.yaml');
    // The document is read first: a bad one is the error to fix, whatever --out holds.
    const [vendor, reference] = await Promise.all([loadCatalogue({ specPath }), loadCatalogue()]);
    if (existsSync(out) && !args.values['force']) throw new UsageError(`${relative(process.cwd(), out) || out} exists`, { fix: 'give another --out, or --force to overwrite it' });
    const { inferBinding } = await import('../../binding/infer.js');
    const inferred = inferBinding(vendor.spec, reference.spec, relative(process.cwd(), specPath) || specPath);
    const { binding, missing, suggestions, threshold } = inferred;
    const ops = Object.values(binding.operations ?? {});
    const header = [
      `# fsapi-conformance binding for ${binding.spec}, inferred by \`fsapi-conformance bind\`: review before use.`,
      '# Each operation entry names the vendor operation that plays a reference operation, with a confidence (0-1) and',
      `# the reasons. Pairings below ${threshold} are suggestions: commented out under operations, never used by a run`,
      '# until you uncomment them. `groups`: operations given only a group (its generic checks run); `unbound`: neither',
      "# (the seed's rules still apply to them). docs/binding.md describes every key.",
      ...(missing.length ? [`# Reference operations nothing plays (their flows will be skipped): ${missing.join(', ')}`] : []),
      '',
    ].join('\n');
    try {
      writeFileSync(out, `${header}${(await import('../../binding/write.js')).bindingYaml(binding, suggestions, threshold)}`);
    } catch (e) {
      throw new UsageError(`cannot write the binding (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { file: out, fix: 'give a writable path for --out' });
    }
    const shown = relative(process.cwd(), out) || out;
    process.stdout.write(
      `${shown}: ${ops.length} of ${reference.spec.operations.length} reference operations bound (active entries), ${suggestions.length} suggestion${suggestions.length === 1 ? '' : 's'} below ${threshold} confidence (commented out, not used), ` +
        `${plural(Object.keys(binding.groups ?? {}).length, 'operation')} in a group only, ${(binding.unbound ?? []).length} unbound, of ${vendor.spec.operations.length} in the document\n` +
        (suggestions.length ? `suggestions: ${suggestions.map((x) => `${x.reference} <- ${x.entry.operation} (${x.entry.confidence})`).join(', ')}\n` : '') +
        `review it, then: ${invocation()} run --spec ${relative(process.cwd(), specPath) || specPath} --binding ${shown}\n`,
    );
    return EXIT.conformant;
  },
};
