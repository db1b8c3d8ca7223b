/** Whether dist/.build-stamp under `root` is newer than every .ts of src, sandbox, fixtures and suites. */
export function buildIsCurrent(root: string): boolean;
