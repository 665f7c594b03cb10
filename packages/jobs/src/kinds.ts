import { isStandardSchema } from '@fnapi/validation';
import { type JobContext, type RunOptions, type ScheduleOptions, seconds } from './options.js';

/** A job kind as the package keeps it: how its jobs run, its handler, and its schedule if it has one. */
export interface Kind {
  name: string;
  options: RunOptions;
  handler: (payload: unknown, job: JobContext) => unknown;
  schedule?: ScheduleOptions;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The job kinds and schedules of one `Jobs`, by name: checked once, when they are defined. */
export class Kinds {
  private readonly byName = new Map<string, Kind>();

  /** Checks a kind's name, handler and options (each mistake throws here, not at its first job) and records it. */
  add(kind: Kind & { options: { payload?: unknown } }): void {
    if (typeof kind.name !== 'string' || !NAME.test(kind.name)) {
      throw new TypeError(`A job name is 1–100 letters, digits, ".", "_" or "-", got ${JSON.stringify(kind.name)}`);
    }
    if (this.byName.has(kind.name)) throw new Error(`Job "${kind.name}" is already defined`);
    if (typeof kind.handler !== 'function') throw new TypeError(`Job "${kind.name}" needs a handler function`);
    const payload = kind.options.payload;
    if (payload !== undefined && !isStandardSchema(payload)) {
      throw new TypeError(`Job "${kind.name}": payload is a zod schema or another Standard Schema`);
    }
    seconds('timeout', kind.options.timeout, 0);
    seconds('lockDuration', kind.options.lockDuration, 30);
    this.byName.set(kind.name, kind);
  }

  names(): IterableIterator<string> {
    return this.byName.keys();
  }

  all(): IterableIterator<Kind> {
    return this.byName.values();
  }

  /** The names of the job kinds, and of the schedules. */
  describe(): { jobs: string[]; schedules: string[] } {
    const kinds = [...this.byName.values()];
    return {
      jobs: kinds.filter((k) => !k.schedule).map((k) => k.name),
      schedules: kinds.filter((k) => k.schedule).map((k) => k.name),
    };
  }
}
