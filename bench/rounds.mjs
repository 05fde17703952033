// Rounds of forked workers: each implementation runs in its own process (JIT
// state and garbage never cross), answers one 'run' message at a time over IPC,
// and the parent runs the rounds, one run of each worker per round in a
// rotating order, so a disturbance on a shared machine hits every
// implementation in that round alike (run.mjs with worker.mjs; url.mjs with
// itself in worker mode).
import { fork } from 'node:child_process';

/** A forked worker: `ready` resolves with its 'ready' message; run() asks for one timed run. */
export class Worker {
  constructor(impl, script, args, { execArgv = [], timeoutMs = 0 } = {}) {
    this.impl = impl;
    this.timeoutMs = timeoutMs;
    this.stderr = '';
    this.child = fork(script, args, { execArgv, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    this.child.stderr.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    this.waiting = null;
    this.child.on('message', (msg) => {
      const w = this.waiting;
      this.waiting = null;
      if (!w) return;
      clearTimeout(w.timer);
      if (msg.type === 'error') w.reject(Object.assign(new Error(msg.error.message), { info: msg.error }));
      else w.resolve(msg);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      const w = this.waiting;
      this.waiting = null;
      if (w) {
        clearTimeout(w.timer);
        const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
        w.reject(new Error(`worker exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ''}`));
      }
    });
    this.ready = this.next();
  }
  next() {
    return new Promise((resolve, reject) => {
      const timer = this.timeoutMs
        ? setTimeout(() => {
            this.waiting = null;
            this.kill();
            reject(new Error(`worker timed out after ${this.timeoutMs / 1e3} s`));
          }, this.timeoutMs)
        : undefined;
      this.waiting = { resolve, reject, timer };
    });
  }
  async run() {
    const p = this.next();
    this.child.send({ cmd: 'run' });
    return (await p).r;
  }
  kill() {
    if (!this.exited) this.child.kill('SIGKILL'); // our own child, by its handle
  }
  close() {
    if (!this.exited) this.child.send({ cmd: 'exit' });
  }
}

/** The workers of round `round` in their order for that round (rotated, so none always runs first). */
export const rotate = (workers, round) => workers.map((_, i) => workers[(i + round) % workers.length]);

/** A thrown value as the error record a worker sends and a report prints. */
export function errorInfo(phase, e) {
  return { phase, name: e?.name ?? 'Error', code: e?.code, message: String(e?.message ?? e).slice(0, 300) };
}

/**
 * The worker side: prepare() once, then 'ready' with `info(ctx)`, then one
 * run(ctx) per 'run' message until 'exit'. A throw is sent as an error message.
 */
export function serve(prepare, run, info = (ctx) => ctx.info) {
  const fail = (e) => {
    const err = { ...errorInfo('worker', e), stack: String(e?.stack ?? '').slice(0, 2000) };
    process.send({ type: 'error', error: err }, () => process.exit(1));
  };
  prepare().then((ctx) => {
    process.on('message', (msg) => {
      if (msg?.cmd === 'run') run(ctx).then((r) => process.send({ type: 'run', r }), fail);
      else if (msg?.cmd === 'exit') process.exit(0);
    });
    process.send({ type: 'ready', info: info(ctx) });
  }, fail);
}
