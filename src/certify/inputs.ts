/**
 * The package's inputs, checked against the suite's own and the run's: the requirement catalogue must be the one
 * this suite version ships, byte for byte (levels decide the verdict); the document must be the one the run
 * recorded, and it is the reference profile only when it is the suite's own file; a binding and a capabilities
 * file are there exactly when the run had them, with the digests it recorded. Then the catalogue is loaded from
 * them, in a private temporary folder under fixed names, and removed: nothing the signer named is written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogue, type Catalogue } from '../binding/catalogue-in-use.js';
import { REFERENCE_SPEC_PATH, REQUIREMENTS_PATH } from '../catalogue/index.js';
import { withoutParsedCache } from '../catalogue/yaml-file.js';
import { loadCapabilities, type Capabilities } from '../config/capabilities.js';
import type { RunReport } from '../results/model.js';
import { differs } from './difference.js';
import { VERIFY_EXIT } from './exit-codes.js';
import { INPUT_ROLES, sha256, type CertificationPredicate, type InputRole } from './layout.js';

export interface PackageInputs {
  catalogue: Catalogue;
  capabilities?: Capabilities;
  /** The packaged inputs by role: name in the package and digest. */
  byRole: Map<InputRole, { name: string; sha256: string }>;
}

let suiteDigests: { requirements: string; reference: string } | undefined;
/** The digests of the requirement catalogue and reference profile this suite version ships. */
export function suiteInputDigests(): { requirements: string; reference: string } {
  return (suiteDigests ??= { requirements: sha256(readFileSync(REQUIREMENTS_PATH)), reference: sha256(readFileSync(REFERENCE_SPEC_PATH)) });
}

function fail(message: string): never {
  return differs(VERIFY_EXIT.inputs, message);
}

export async function packageInputs(inputs: CertificationPredicate['inputs'], files: ReadonlyMap<string, Buffer>, report: RunReport): Promise<PackageInputs> {
  const byRole = new Map<InputRole, { name: string; sha256: string }>();
  for (const i of inputs) {
    if (!i.name.startsWith(`inputs/${i.role}.`)) differs(VERIFY_EXIT.digest, `${i.name}: not the name of a ${i.role} input (inputs/${i.role}.yaml or .json)`);
    if (byRole.has(i.role)) fail(`the statement names two ${i.role} inputs (${byRole.get(i.role)!.name}, ${i.name})`);
    const data = files.get(i.name);
    if (!data) differs(VERIFY_EXIT.digest, `${i.name}: the ${i.role} input the statement names is not in the package`);
    if (sha256(data) !== i.sha256) differs(VERIFY_EXIT.digest, `${i.name}: differs from the ${i.role} the statement names`);
    byRole.set(i.role, { name: i.name, sha256: i.sha256 });
  }
  const suite = suiteInputDigests();
  const requirements = byRole.get('requirements');
  if (!requirements) fail('the package holds no requirement catalogue (inputs/requirements.yaml)');
  if (requirements.sha256 !== suite.requirements) {
    fail(`${requirements.name}: SHA-256 ${requirements.sha256} is not the requirement catalogue fsapi-conformance ships (${suite.requirements}): levels decide the verdict, so only the suite's own is accepted`);
  }
  if (report.requirements.sha256 !== suite.requirements) fail(`reports/conformance.json: requirements.sha256 ${report.requirements.sha256} is not the suite's requirement catalogue (${suite.requirements})`);
  const doc = byRole.get('openapi');
  if (!doc) fail('the package holds no OpenAPI document (inputs/openapi.yaml)');
  if (doc.sha256 !== report.spec.sha256) fail(`${doc.name}: SHA-256 ${doc.sha256} is not the document the run used (reports/conformance.json spec.sha256 ${report.spec.sha256})`);
  const reference = doc.sha256 === suite.reference;
  if (report.spec.reference_profile !== reference) {
    fail(
      reference
        ? 'reports/conformance.json: spec.reference_profile is false, but the document is the reference profile'
        : `reports/conformance.json: spec.reference_profile is true, but ${doc.name} (SHA-256 ${doc.sha256}) is not the reference profile this suite version ships (${suite.reference})`,
    );
  }
  const binding = byRole.get('binding');
  if (!!binding !== !!report.spec.binding) fail(binding ? `${binding.name}: the run used no binding file (reports/conformance.json spec.binding)` : `the run used the binding file ${report.spec.binding}, which the package does not hold`);
  const caps = byRole.get('capabilities');
  const recordedCaps = report.run.settings?.capabilities;
  if (!!caps !== !!recordedCaps) fail(caps ? `${caps.name}: the run used no capabilities file (reports/conformance.json run.settings.capabilities)` : `the run used the capabilities file ${recordedCaps!.path}, which the package does not hold (certify finds it by the path the report records)`);
  if (caps && caps.sha256 !== recordedCaps!.sha256) fail(`${caps.name}: SHA-256 ${caps.sha256} is not the capabilities file the run recorded (${recordedCaps!.sha256})`);
  for (const role of INPUT_ROLES) if (!byRole.has(role) && (role === 'openapi' || role === 'requirements')) fail(`the package holds no ${role} input`);

  // A vendor's document is parsed from the package alone: no cache of another process's making is read, none written.
  // (The reference profile is the suite's own file, byte for byte: its cached parse is the suite's.)
  if (!reference) withoutParsedCache();
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-verify-'));
  try {
    const place = (role: InputRole): string | undefined => {
      const i = byRole.get(role);
      if (!i) return undefined;
      const path = join(dir, i.name.slice('inputs/'.length));
      writeFileSync(path, files.get(i.name)!, { mode: 0o600 });
      return path;
    };
    const specPath = reference ? undefined : place('openapi');
    const bindingPath = place('binding');
    const capsPath = place('capabilities');
    let catalogue: Catalogue;
    try {
      catalogue = await loadCatalogue({ ...(specPath ? { specPath } : {}), ...(bindingPath ? { bindingPath } : {}) });
    } catch (e) {
      return fail(`the packaged document${bindingPath ? ' and binding' : ''} cannot be loaded: ${(e as Error).message}`);
    }
    let capabilities: Capabilities | undefined;
    try {
      capabilities = capsPath ? loadCapabilities(capsPath, { strict: report.run.strict }) : undefined;
    } catch (e) {
      return fail(`${caps!.name} cannot be loaded: ${(e as Error).message}`);
    }
    return { catalogue, byRole, ...(capabilities ? { capabilities } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
