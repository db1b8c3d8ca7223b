/**
 * The one place secrets are hidden. Every exchange is recorded through it, and every message that leaves a
 * check (failure text, error text) passes it, so reports, console, JUnit and Allure never see a configured secret.
 */
export class Redactor {
  private readonly secrets: { name: string; value: string }[];

  constructor(secrets: { name: string; value: string }[]) {
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = secrets.filter((s) => s.value.length >= 4).sort((a, b) => b.value.length - a.value.length);
  }

  text(s: string): string {
    let out = s;
    for (const { name, value } of this.secrets) {
      if (!out.includes(value) && !out.includes(encodeURIComponent(value))) continue;
      out = out.split(value).join(`[REDACTED:${name}]`).split(encodeURIComponent(value)).join(`[REDACTED:${name}]`);
    }
    return out;
  }

  headers(h: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(h)) out[k] = this.text(v);
    return out;
  }

  /** True when the text still holds a secret (used by tests and as a last guard before writing). */
  leaks(s: string): boolean {
    return this.secrets.some(({ value }) => s.includes(value));
  }
}
