/** Types of action/run.mjs (plain JavaScript: the action runs it before anything is built), for its tests. */
export function commandFor(env: NodeJS.ProcessEnv): { args: string[]; extraEnv: Record<string, string>; reportDir: string };
export function okCodes(env: NodeJS.ProcessEnv): Set<number>;
export function main(env?: NodeJS.ProcessEnv): Promise<number>;
export function artifactName(env: NodeJS.ProcessEnv): string;
export function targetSettings(env: NodeJS.ProcessEnv): Record<string, string>;
export function mustAnnotations(report: { checks: { requirement: string; level: string; status: string; message?: string; name: string }[] }): string[];
