/**
 * Where an app stands in its life, for probes and load balancers: `starting` until its startup
 * callbacks have run, `ready` while it serves, `stopping` from SIGTERM (or `close()`) on — through the
 * `shutdownDelay` pause and the drain — and `stopped` once its shutdown callbacks have run.
 */
export type ServingPhase = 'starting' | 'ready' | 'stopping' | 'stopped';

/** The app's serving phase: read by health endpoints, moved by the app and its transports. */
export class ServingState {
  private current: ServingPhase = 'starting';

  get phase(): ServingPhase {
    return this.current;
  }
  /** Startup has finished and no shutdown has begun: the instance should receive traffic. */
  get ready(): boolean {
    return this.current === 'ready';
  }
  /** A shutdown has begun (the instance should leave the balancer's pool) or is done. */
  get stopping(): boolean {
    return this.current === 'stopping' || this.current === 'stopped';
  }

  /** Moves to `phase`; a server calls `to('stopping')` when it starts to shut down. */
  to(phase: ServingPhase): void {
    this.current = phase;
  }
}
