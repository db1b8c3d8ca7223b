import { fromRoot } from '../paths.js';

export const REFERENCE_SPEC_PATH = fromRoot('spec', 'openapi.yaml');
export const REQUIREMENTS_PATH = fromRoot('spec', 'requirements.yaml');

export * from './groups.js';
export * from './openapi.js';
export * from './requirements.js';
export type { JsonSchema, SchemaProblem } from './json-schema.js';
