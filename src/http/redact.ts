/**
 * The one place secrets are hidden. Every exchange is recorded through it, and every message that leaves a
 * check (failure text, error text) passes it, so reports, console, JUnit and Allure never see a configured secret.
 */
export class Redactor {
  private readonly secrets: { name: string; value: string }[];
  /** Each secret and its URL-encoded form, longest first, in one pattern: one scan per text, not two per secret. */
  private readonly pattern: RegExp | undefined;
  private readonly nameOf = new Map<string, string>();
  /** The pattern without the global flag, for a test that keeps no lastIndex between calls. */
  private readonly found: RegExp | undefined;

  constructor(secrets: { name: string; value: string }[]) {
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = secrets.filter((s) => s.value.length >= 4).sort((a, b) => b.value.length - a.value.length);
    for (const { name, value } of this.secrets) for (const form of [value, encodeURIComponent(value)]) if (!this.nameOf.has(form)) this.nameOf.set(form, name);
    const forms = [...this.nameOf.keys()].sort((a, b) => b.length - a.length);
    this.pattern = forms.length ? new RegExp(forms.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g') : undefined;
    this.found = this.pattern && new RegExp(this.pattern.source);
  }

  text(s: string): string {
    return this.pattern ? s.replace(this.pattern, (found) => `[REDACTED:${this.nameOf.get(found)}]`) : s;
  }

  headers(h: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    // One scan over every value at once (a secret in any value is in their join), and each value apart only when
    // that finds one: every exchange's headers pass here twice, and almost never hold a secret.
    if (this.found?.test(Object.values(h).join('\n'))) {
      for (const k in h) out[k] = this.text(h[k]!);
    } else {
      for (const k in h) out[k] = h[k]!;
    }
    return out;
  }

  /** True when the text still holds a secret (used by tests and as a last guard before writing). */
  leaks(s: string): boolean {
    return this.secrets.some(({ value }) => s.includes(value));
  }
}
