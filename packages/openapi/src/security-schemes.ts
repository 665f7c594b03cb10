import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { SecurityRequirement } from './description.js';

/** The security schemes of one document, registered as operations require them. */
export class SecuritySchemes {
  private readonly byName = new Map<string, string>();

  register(sec: SecurityRequirement, registry: OpenAPIRegistry): void {
    const serialized = stableStringify(sec.scheme);
    const existing = this.byName.get(sec.name);
    if (existing === undefined) {
      this.byName.set(sec.name, serialized);
      registry.registerComponent('securitySchemes', sec.name, structuredClone(sec.scheme) as never);
    } else if (existing !== serialized) {
      throw new Error(
        `Security scheme "${sec.name}" is declared twice with different definitions ` +
          `(${existing} and ${serialized}); give the second one another name`,
      );
    }
  }
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
