/**
 * The default logger where pino's Node streams are missing (a Worker's bundle): pino's JSON lines
 * through console.log. Checked here on Node against pino's own output for the same calls.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDefaultLogger, createSilentLogger } from '../src/platform/logger-console.js';

function captureConsole(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  return lines;
}

function pinoLines(run: (logger: pino.Logger) => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  run(pino({ name: 'fnapi', base: undefined }, sink));
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => vi.restoreAllMocks());

describe('the console logger', () => {
  it('writes the lines pino writes (level, name, bindings, fields, msg, err), one JSON object each', () => {
    const lines = captureConsole();
    const calls = (logger: pino.Logger) => {
      const child = logger.child({ reqId: 'r-1' });
      child.info({ route: '/x', status: 200 }, 'answered %s in %d ms', 'GET', 12);
      child.error({ err: new TypeError('bad thing') }, 'unhandled error');
      logger.warn('plain %j', { a: 1 });
      logger.debug('below the level');
    };
    calls(createDefaultLogger());
    const ours = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const theirs = pinoLines(calls);
    expect(ours).toHaveLength(3);
    const strip = ({ time, err, ...rest }: Record<string, unknown>) => {
      expect(typeof time).toBe('number');
      const e = err as Record<string, unknown> | undefined;
      return { ...rest, err: e && { type: e.type, message: e.message, hasStack: typeof e.stack === 'string' } };
    };
    expect(ours.map(strip)).toEqual(theirs.map(strip));
  });

  it('follows level changes, isLevelEnabled, child levels, and stays quiet when silent', () => {
    const lines = captureConsole();
    const logger = createDefaultLogger();
    expect(logger.isLevelEnabled('debug')).toBe(false);
    logger.level = 'debug';
    expect(logger.isLevelEnabled('debug')).toBe(true);
    logger.debug('now shown');
    logger.child({ a: 1 }, { level: 'error' }).warn('hidden');
    createSilentLogger().error('never');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['now shown']);
  });

  it('never throws on a circular field or a bigint', () => {
    const lines = captureConsole();
    const circular: Record<string, unknown> = { n: 10n };
    circular.self = circular;
    createDefaultLogger().info({ circular }, 'odd values');
    expect(JSON.parse(lines[0]!)).toMatchObject({ circular: { n: '10', self: '[Circular]' }, msg: 'odd values' });
  });
});
