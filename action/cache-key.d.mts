/** Types of action/cache-key.mjs (plain JavaScript: the action runs it before anything is installed), for its tests. */
export function cacheKey(root?: string): string;
