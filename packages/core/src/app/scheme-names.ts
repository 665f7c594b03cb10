import { type SecurityRequirement, schemeKey } from '@fnapi/openapi';
import type { RouteEntry } from './route-group.js';
import { handlerMetadata } from '../serve/endpoint.js';

interface Holder {
  key: string;
  where: string;
}

/**
 * Security-scheme names the app chose (`schemeName`, an endpoint's `security`). Two different
 * definitions under one chosen name are refused at registration; default names never clash (the
 * document numbers them), so nothing else here can fail.
 */
export class SchemeNames {
  private readonly holders = new Map<string, Holder>();

  /** Throws if `entries` give a chosen name a second definition; else returns how to record them. */
  check(entries: readonly RouteEntry[]): () => void {
    const staged = new Map<string, Holder>();
    for (const entry of entries) {
      const where = `${entry.method} ${entry.path}`;
      for (const sec of explicitSchemes(entry)) {
        const key = schemeKey(sec.scheme);
        const holder = this.holders.get(sec.name) ?? staged.get(sec.name);
        if (holder === undefined) staged.set(sec.name, { key, where });
        else if (holder.key !== key) {
          throw new Error(
            `Security scheme name "${sec.name}" is given to two different definitions, by ${holder.where} and ${where}; ` +
              'give one of them another schemeName',
          );
        }
      }
    }
    return () => {
      for (const [name, holder] of staged) this.holders.set(name, holder);
    };
  }
}

function explicitSchemes(entry: RouteEntry): SecurityRequirement[] {
  const { options, handler } = entry.definition;
  const metadata = handlerMetadata(handler);
  const all = [...(options.security ?? []), ...(metadata?.security ?? []), ...(metadata?.securityAlternatives ?? []).flat()];
  return all.filter((sec) => sec.explicit === true);
}
