// Runs a child process for scripts/start.mjs the way a supervisor should: SIGTERM, SIGINT and
// SIGHUP are forwarded to the child, and the caller then exits the way the child did (its exit
// code, or the same signal). Each signal is forwarded once: a terminal's Ctrl-C reaches the whole
// process group and npm forwards it again, and a second SIGINT would cut server.ts's graceful
// shutdown short. If this process's parent goes away (npm killed, or a shell that did not exec
// us), the child is stopped with SIGTERM too, so it is never left running re-parented to init.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'];
const PARENT_CHECK_MS = 500;

/** Runs a command with inherited stdio; resolves with how it ended: `{ code, signal }`. */
export function supervise(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    const forwarded = new Set();
    const forward = (signal) => {
      if (forwarded.has(signal) || child.exitCode !== null || child.signalCode !== null) return;
      forwarded.add(signal);
      child.kill(signal);
    };
    const handlers = SIGNALS.map((signal) => [signal, () => forward(signal)]);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    // Our parent died (its children are re-parented): stop the child as if we had been told to.
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) forward('SIGTERM');
    }, PARENT_CHECK_MS);
    const done = () => {
      clearInterval(watch);
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('exit', (code, signal) => {
      done();
      resolve({ code, signal });
    });
  });
}

/** Ends this process the way the child ended: same exit code, or the same signal. */
export function exitLike({ code, signal }) {
  if (signal) {
    // No handler is installed any more, so the default action ends us with that signal.
    process.kill(process.pid, signal);
    // Fallback if the signal does not end us: the shell convention 128 + signal number.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 1000);
    return;
  }
  process.exit(code ?? 1);
}
