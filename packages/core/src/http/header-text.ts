const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as text: HTTP carries bytes, which node:http and fetch hand over one character per
 * byte (latin1), so UTF-8 text arrives double-encoded. Read as UTF-8 when the bytes are valid UTF-8,
 * else left as they came.
 */
export function headerText(value: string): string {
  let high = false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0xff) return value;
    if (code >= 0x80) high = true;
  }
  if (!high) return value;
  const bytes = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) bytes[i] = value.charCodeAt(i);
  try {
    return utf8.decode(bytes);
  } catch {
    return value;
  }
}
