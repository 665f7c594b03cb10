import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { SecurityRequirement } from './description.js';

/**
 * The security schemes of one document. Schemes defined alike share one entry; a scheme whose name
 * is taken by a different definition gets the name numbered (`apiKeyHeader2`). Explicit names are
 * reserved first (`reserve`), so they keep their name whatever the operations' order.
 */
export class SecuritySchemes {
  /** Definition key of each registered name. */
  private readonly byName = new Map<string, string>();
  /** The name given to each (preferred name, definition) met so far. */
  private readonly chosen = new Map<string, string>();

  constructor(private readonly registry: OpenAPIRegistry) {}

  reserve(sec: SecurityRequirement): void {
    if (sec.explicit) this.register(sec);
  }

  /** Registers the scheme if needed; returns the name the document uses for it. */
  register(sec: SecurityRequirement): string {
    const key = schemeKey(sec.scheme);
    const memo = `${sec.name}\u0000${key}`;
    const known = this.chosen.get(memo);
    if (known !== undefined) return known;
    let name = sec.name;
    for (let i = 2; this.byName.has(name) && this.byName.get(name) !== key; i++) name = `${sec.name}${i}`;
    if (!this.byName.has(name)) {
      this.byName.set(name, key);
      this.registry.registerComponent('securitySchemes', name, structuredClone(sec.scheme) as never);
    }
    this.chosen.set(memo, name);
    return name;
  }
}

/** A scheme definition as a string that is equal for definitions alike (key order does not matter). */
export function schemeKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(schemeKey).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${schemeKey(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
