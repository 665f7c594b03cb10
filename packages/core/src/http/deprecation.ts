/**
 * An endpoint's deprecation, as HTTP says it: `Deprecation` (RFC 9745, `@<unix seconds>`), `Sunset`
 * (RFC 8594, an HTTP-date) and `Link: <url>; rel="deprecation"`. Computed once, at registration.
 */

/** A day (`'2026-12-01'`, midnight UTC), an ISO date-time, or a `Date`. */
export type DateOption = string | Date;

export interface DeprecationOptions {
  deprecated?: boolean | DateOption | undefined;
  sunset?: DateOption | undefined;
  deprecationLink?: string | undefined;
}

export interface DeprecationTerms {
  /** The operation is marked deprecated in the document. */
  deprecated: boolean;
  /** The sunset as the document states it (`x-sunset`): a day `YYYY-MM-DD`, or an ISO instant. */
  sunset?: string;
  /** Headers added to every answer of the endpoint (names in lower case), in this order. */
  headers: readonly (readonly [string, string])[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The instant a date option names; a bare day is midnight UTC. Throws a message naming the option. */
function instantOf(value: DateOption, option: string, where: string): Date {
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === 'string' && DAY.test(value)) date = new Date(`${value}T00:00:00Z`);
  else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) date = new Date(value);
  if (
    date === undefined ||
    Number.isNaN(date.getTime()) ||
    (typeof value === 'string' && DAY.test(value) && date.toISOString().slice(0, 10) !== value)
  ) {
    throw new Error(
      `${where}: ${option} is a date ('2026-12-01', midnight UTC), an ISO date-time or a Date, got ${JSON.stringify(value instanceof Date ? String(value) : value)}`,
    );
  }
  return date;
}

/** `2027-06-30` for midnight UTC, else the ISO instant. */
function documentedDate(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** The headers and document terms of an endpoint's `deprecated`, `sunset` and `deprecationLink`. */
export function deprecationTerms(options: DeprecationOptions, where: string): DeprecationTerms {
  const { deprecated, sunset, deprecationLink } = options;
  const headers: [string, string][] = [];
  if (deprecated !== undefined && typeof deprecated !== 'boolean') {
    headers.push(['deprecation', `@${Math.floor(instantOf(deprecated, 'deprecated', where).getTime() / 1000)}`]);
  }
  let documented: string | undefined;
  if (sunset !== undefined) {
    const date = instantOf(sunset, 'sunset', where);
    headers.push(['sunset', date.toUTCString()]);
    documented = documentedDate(date);
  }
  if (deprecationLink !== undefined) {
    if (typeof deprecationLink !== 'string' || !URL.canParse(deprecationLink, 'http://host/') || /[<>\s]/.test(deprecationLink)) {
      throw new Error(`${where}: deprecationLink is a URL, got ${JSON.stringify(deprecationLink)}`);
    }
    headers.push(['link', `<${deprecationLink}>; rel="deprecation"`]);
  }
  return {
    deprecated: deprecated !== undefined && deprecated !== false,
    ...(documented !== undefined ? { sunset: documented } : {}),
    headers,
  };
}

/** What each of those headers says, for the document. */
export const DEPRECATION_HEADER_DOCS: Record<string, { name: string; description: string }> = {
  deprecation: { name: 'Deprecation', description: 'When the operation was deprecated (RFC 9745): `@` and a Unix time' },
  sunset: { name: 'Sunset', description: 'When the operation is expected to go away (RFC 8594): an HTTP-date' },
  link: { name: 'Link', description: 'Where the deprecation is explained: `<url>; rel="deprecation"`' },
};
