// The embedded database's own thread (src/db/embedded.ts): owns the PGlite instance and answers
// the main thread's calls, so PostgreSQL's work (which PGlite runs synchronously) never holds the
// event loop that serves requests. Plain JavaScript: loaded by a Worker under tsx and Next alike.
import { Blob } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const { dataDir, loadDataDir, startParams, rawTypes, pgliteWasmModule, checkpoints } = workerData;

const engine = await PGlite.create({
  dataDir,
  // fsync is off: the embedded default is for one machine and development (README says so).
  relaxedDurability: true,
  pgliteWasmModule,
  loadDataDir: loadDataDir ? new Blob([readFileSync(loadDataDir)]) : undefined,
  startParams: [...PGlite.defaultStartParams, ...startParams],
});

// The types drizzle reads as raw text (it converts them itself, and passes a `parsers` option on
// every query that made PGlite copy its whole parser map per result): raw on the instance, and
// PGlite's usual parsers per query for every other caller (`usual`).
const usual = {};
for (const oid of rawTypes) {
  usual[oid] = engine.parsers[oid];
  engine.parsers[oid] = (value) => value;
}
const usualOptions = { parsers: usual };

/** Open transactions by id: the PGlite transaction and how to end it. */
const transactions = new Map();
/** Channels listened to: channel -> unlisten. */
const listening = new Map();

const handlers = {
  query: async ({ text, params, rowMode, usual: withUsual, tx }) =>
    (await clientOf(tx)).query(text, params, { ...(withUsual ? usualOptions : {}), ...(rowMode ? { rowMode } : {}) }),
  exec: async ({ text, usual: withUsual, tx }) => (await clientOf(tx)).exec(text, withUsual ? usualOptions : undefined),
  // Not awaited by the main thread: the transaction's first statement follows at once and waits
  // here for BEGIN (one thread hop less per transaction).
  begin: ({ tx: id }) => {
    let end;
    const ended = new Promise((resolve, reject) => (end = { resolve, reject }));
    let opened;
    const ready = new Promise((resolve, reject) => (opened = { resolve, reject }));
    const done = engine
      .transaction((tx) => {
        opened.resolve(tx);
        return ended;
      })
      .finally(() => transactions.delete(id));
    done.catch((err) => opened.reject(err));
    ready.catch(() => {});
    transactions.set(id, { ready, end, done });
  },
  commit: async ({ tx }) => {
    const open = transactions.get(tx);
    if (!open) throw new Error('The transaction has ended.');
    await open.ready;
    open.end.resolve();
    await open.done;
  },
  rollback: async ({ tx }) => {
    const open = transactions.get(tx);
    if (!open) return;
    const rolledBack = new Error('rollback');
    if (
      !(await open.ready.then(
        () => true,
        () => false,
      ))
    )
      return;
    open.end.reject(rolledBack);
    await open.done.catch((err) => {
      if (err !== rolledBack) throw err;
    });
  },
  listen: async ({ channel }) => {
    if (listening.has(channel)) return;
    listening.set(channel, await engine.listen(channel, (payload) => parentPort.postMessage({ notification: channel, payload })));
  },
  unlisten: async ({ channel }) => {
    const unlisten = listening.get(channel);
    listening.delete(channel);
    await unlisten?.();
  },
  dump: async ({ compression }) => {
    const dump = await engine.dumpDataDir(compression);
    return new Uint8Array(await dump.arrayBuffer());
  },
  close: async () => {
    clearInterval(checkpointing);
    await engine.close();
    setImmediate(() => process.exit(0));
  },
};

/** The engine, or the open transaction `tx` once it has begun. */
function clientOf(tx) {
  if (tx === undefined) return engine;
  const open = transactions.get(tx);
  if (!open) throw new Error('The transaction has ended.');
  return open.ready;
}

parentPort.on('message', async (call) => {
  try {
    const result = await handlers[call.op](call);
    parentPort.postMessage({ id: call.id, result });
  } catch (err) {
    parentPort.postMessage({ id: call.id, error: describeError(err) });
  }
});
const checkpointing = startCheckpoints(checkpoints);
parentPort.postMessage({ ready: true });

/**
 * Checkpoints, which PostgreSQL's checkpointer would start: PGlite runs PostgreSQL as one
 * single-user backend, which never checkpoints on its own (only when it shuts down). Without them
 * the WAL would grow for as long as the service runs, max_wal_size notwithstanding, and recovery
 * after a crash would replay all of it. As
 * PostgreSQL does by default: a checkpoint once `walBytes` of WAL were written since the last
 * (256 MB; PostgreSQL's max_wal_size is 1 GB), or after `maxAgeMs` (5 min, checkpoint_timeout)
 * when any was. Each holds this thread while it writes the dirty buffers (tens of ms for the
 * 32 MB buffer cache); queries wait as they would behind any statement.
 */
function startCheckpoints({ checkEveryMs = 15_000, walBytes = 256 * 1024 * 1024, maxAgeMs = 5 * 60_000 } = {}) {
  let lastAt = Date.now();
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      // Bytes of WAL since the last checkpoint's redo point (a checkpoint itself writes a few hundred).
      const { rows } = await engine.query(
        'select (pg_current_wal_insert_lsn() - redo_lsn)::float8 as written from pg_control_checkpoint()',
      );
      const written = Number(rows[0]?.written ?? 0);
      if (written >= walBytes || (written >= 64 * 1024 && Date.now() - lastAt >= maxAgeMs)) {
        await engine.exec('checkpoint');
        lastAt = Date.now();
      }
    } catch {
      // Closing, or a failure the next check meets again; a missed checkpoint loses nothing.
    } finally {
      running = false;
    }
  }, checkEveryMs);
  timer.unref();
  return timer;
}

/** The error as plain data (its PostgreSQL fields included: code, detail, constraint, ...). */
function describeError(err) {
  if (!(err instanceof Error)) return { message: String(err) };
  const fields = {};
  for (const [key, value] of Object.entries(err))
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  return { ...fields, name: err.name, message: err.message };
}
