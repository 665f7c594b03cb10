import { describe, expect, it } from 'vitest';
import { type Duration, durationMs, durationSeconds, HOUR } from '../src/index.js';

describe('durationSeconds', () => {
  it('reads a number as seconds and a string by its unit', () => {
    expect(durationSeconds('t', 0.25)).toBe(0.25);
    expect(durationSeconds('t', 0)).toBe(0);
    expect(durationSeconds('t', '250ms')).toBe(0.25);
    expect(durationSeconds('t', '10s')).toBe(10);
    expect(durationSeconds('t', '1.5s')).toBe(1.5);
    expect(durationSeconds('t', '5m')).toBe(300);
    expect(durationSeconds('t', '2h')).toBe(7200);
    expect(durationSeconds('t', '30d')).toBe(30 * 86_400);
    expect(durationSeconds('t', '.5s')).toBe(0.5);
  });

  it('gives whole milliseconds for timers and wires', () => {
    expect(durationMs('t', 2.5)).toBe(2500);
    expect(durationMs('t', '250ms')).toBe(250);
    expect(durationMs('t', '0.4ms')).toBe(0);
    expect(durationMs('t', '1m')).toBe(60_000);
  });

  it('refuses a number over the limit with a message naming the unit and the fix', () => {
    expect(() => durationSeconds('timeout', 5000, { maxNumber: HOUR })).toThrow(RangeError);
    expect(() => durationSeconds('timeout', 5000, { maxNumber: HOUR })).toThrow(
      "timeout is in seconds: 5000 s is over an hour (for milliseconds write '5000ms'; a longer span takes a unit, '2h')",
    );
    expect(durationSeconds('timeout', 3600, { maxNumber: HOUR })).toBe(3600);
    // A string with a unit says what it means: it may be longer.
    expect(durationSeconds('timeout', '2h', { maxNumber: HOUR })).toBe(7200);
    // Without a limit any length goes (ttl, window, maxAge, expiresIn, job delay and every).
    expect(durationSeconds('ttl', 86_400 * 365)).toBe(86_400 * 365);
  });

  it('refuses what is no duration, naming the option', () => {
    for (const bad of ['10', '10 s', '10sec', '1w', 'ms', '-1s', '1e3s', '', 'NaNs']) {
      expect(() => durationSeconds('heartbeat', bad as Duration), bad).toThrow(/^heartbeat is a number of seconds or a string with a unit/);
    }
    expect(() => durationSeconds('heartbeat', -1)).toThrow(/heartbeat is a number of seconds ≥ 0/);
    expect(() => durationSeconds('heartbeat', Number.NaN)).toThrow(RangeError);
    expect(() => durationSeconds('heartbeat', Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => durationSeconds('heartbeat', null as unknown as Duration)).toThrow(TypeError);
    expect(() => durationSeconds('ttl', 0, { zero: false })).toThrow('ttl must be longer than 0 seconds, got 0');
    expect(() => durationSeconds('ttl', '0s', { zero: false })).toThrow(/longer than 0/);
    expect(durationSeconds('expiresIn', -60, { negative: true })).toBe(-60);
  });

  it('types a string without a unit out', () => {
    // @ts-expect-error a bare numeric string has no unit
    const bare: Duration = '10';
    // @ts-expect-error weeks are not a unit
    const weeks: Duration = '1w';
    const ok: Duration[] = [1, '250ms', '10s', '5m', '2h', '30d'];
    expect([bare, weeks, ok.length]).toEqual(['10', '1w', 6]);
  });
});
