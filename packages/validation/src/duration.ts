/** The units a duration string may carry: milliseconds, seconds, minutes, hours, days. */
export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

/**
 * A length of time as every fnapi option takes it: a number of seconds (`0.25`), or a string with its
 * unit (`'250ms'`, `'10s'`, `'5m'`, `'2h'`, `'30d'`).
 */
export type Duration = number | `${number}${DurationUnit}`;

export interface DurationOptions {
  /**
   * Largest number of seconds a bare number may be; a string with a unit may be longer. Options that
   * are never meant to be long (timeouts) set an hour, so `timeout: 5000` meant as milliseconds is caught.
   */
  maxNumber?: number | undefined;
  /** Whether 0 is accepted (it usually turns the thing off); default true. */
  zero?: boolean | undefined;
  /** Whether a negative number is accepted (a time in the past, e.g. an already expired token); default false. */
  negative?: boolean | undefined;
}

/** An hour: the largest bare number the timeouts take (a longer one is almost surely milliseconds). */
export const HOUR = 3600;

const SECONDS_PER_UNIT: Record<DurationUnit, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };
const DURATION = /^([0-9]+(?:\.[0-9]+)?|\.[0-9]+)(ms|s|m|h|d)$/;

/**
 * The seconds a duration option stands for: `name` is the option, named in the error a bad value throws
 * (a `TypeError` for what is no duration, a `RangeError` for one out of bounds). Negative, non-finite
 * and malformed values are refused; so is a number over `maxNumber`, with a message naming the unit.
 */
export function durationSeconds(name: string, value: Duration, options: DurationOptions = {}): number {
  let seconds: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (value < 0 && options.negative !== true)) {
      throw new RangeError(`${name} is a number of seconds ≥ 0 or a string with a unit ('250ms', '10s', '5m'), got ${String(value)}`);
    }
    if (options.maxNumber !== undefined && value > options.maxNumber) {
      throw new RangeError(
        `${name} is in seconds: ${value} s is over ${describeLimit(options.maxNumber)} (for milliseconds write '${value}ms'; a longer span takes a unit, '2h')`,
      );
    }
    seconds = value;
  } else if (typeof value === 'string') {
    const match = DURATION.exec(value.trim());
    if (match === null) {
      throw new TypeError(
        `${name} is a number of seconds or a string with a unit (ms, s, m, h, d) such as '250ms' or '10s', got ${JSON.stringify(value)}`,
      );
    }
    seconds = Number(match[1]) * SECONDS_PER_UNIT[match[2] as DurationUnit];
  } else {
    throw new TypeError(`${name} is a number of seconds or a string with a unit such as '250ms' or '10s', got ${typeof value}`);
  }
  if (seconds === 0 && options.zero === false) throw new RangeError(`${name} must be longer than 0 seconds, got ${JSON.stringify(value)}`);
  return seconds;
}

/** The same duration in whole milliseconds (what timers, HTTP servers, BullMQ and the SSE `retry` field take). */
export function durationMs(name: string, value: Duration, options?: DurationOptions): number {
  return Math.round(durationSeconds(name, value, options) * 1000);
}

function describeLimit(seconds: number): string {
  return seconds === HOUR ? 'an hour' : `${seconds} s`;
}
