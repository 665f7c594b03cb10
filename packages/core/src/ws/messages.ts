import { compiledParser, type Schema } from '@fnapi/validation';

/** The outcome of checking one message against a schema. */
export type MessageCheck = { ok: true; value: unknown } | { ok: false; message: string };

/** Checks messages against one schema: the one place a WebSocket endpoint validates a message. */
export type MessageValidator = (value: unknown) => MessageCheck;

/**
 * A validator for a `receive` or `send` schema; undefined without one. The parse drops unknown keys
 * as a response model does; the failure names the first issue and where it is.
 */
export function messageValidator(schema: Schema | undefined): MessageValidator | undefined {
  if (schema === undefined) return undefined;
  const parser = compiledParser(schema);
  return (value) => {
    const parsed = parser.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    return { ok: false, message: `${where}${issue?.message ?? 'invalid message'}` };
  };
}

const encoder = new TextEncoder();

/** A close reason cut to the 123 bytes a close frame allows, never inside a UTF-8 sequence. */
export function closeReason(text: string): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: 41 of them always fit.
  if (text.length <= 41 || encoder.encode(text).byteLength <= 123) return text;
  let out = '';
  let size = 0;
  for (const char of text) {
    const bytes = encoder.encode(char).byteLength;
    if (size + bytes > 123) break;
    out += char;
    size += bytes;
  }
  return out;
}
