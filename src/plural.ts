/** "1 suite", "2 suites": a count with its noun, singular or plural (the plural given when it is not just +s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
