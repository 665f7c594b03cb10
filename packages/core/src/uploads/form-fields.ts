// What both form readers (busboy's streaming one and the platform's in-memory one) do alike.

/** The media type of a `Content-Type` value, lower-case, without parameters. */
export function mediaTypeOf(contentType: string | null): string | undefined {
  if (!contentType) return undefined;
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/** Puts a field's value into the body (appended for an array field); returns its index in the array. */
export function put(body: Record<string, unknown>, name: string, array: boolean, value: unknown): number {
  if (!array) {
    body[name] = value;
    return 0;
  }
  const list = (body[name] ??= []) as unknown[];
  list.push(value);
  return list.length - 1;
}
