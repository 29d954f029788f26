/**
 * The embedded database (PGlite) on its own thread (pglite-worker.mjs). PGlite runs PostgreSQL
 * synchronously on the thread that owns it; on the service's main thread every query would hold
 * the event loop, and requests, timers and worker replies would wait behind it
 * (docs/performance.md, The embedded database on its own thread). Here the main thread sends each call
 * and awaits its answer; the database thread runs them in order, as PGlite itself would.
 *
 * `EmbeddedClient` offers what the service's users of PGlite call (drizzle-orm/pglite, pg-boss's
 * `fromPglite`, the health ping, the test template's dump): `query`, `exec`, `transaction`,
 * `listen`, `dumpDataDir`, `close`. Drizzle's client (`forDrizzle`) receives the types drizzle
 * converts itself as raw text; every other client receives PGlite's usual values.
 */
import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Results, Transaction } from '@electric-sql/pglite';

interface Call {
  op: 'query' | 'exec' | 'begin' | 'commit' | 'rollback' | 'listen' | 'unlisten' | 'dump' | 'close';
  [field: string]: unknown;
}

interface QueryOptions {
  rowMode?: 'array' | 'object';
}

export interface EmbeddedClient {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  dumpDataDir(compression?: 'none' | 'gzip' | 'auto'): Promise<Blob>;
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  /** A data-dir dump to start from (the data dir is empty): its path, read by the database thread itself rather than copied to it. */
  loadDataDir?: string;
  /** The data dir is empty: initdb runs in a child process first (or the dump is loaded). */
  fresh: boolean;
  startParams: string[];
  /** Type OIDs drizzle reads as raw text. */
  rawTypes: number[];
  /** When the database thread checkpoints (pglite-worker.mjs `startCheckpoints`, whose defaults apply otherwise). */
  checkpoints?: { checkEveryMs?: number; walBytes?: number; maxAgeMs?: number };
}

/** Starts the database thread and resolves once PGlite is open in it. */
export async function openEmbedded(options: EmbeddedOptions): Promise<{ forDrizzle: EmbeddedClient; forOthers: EmbeddedClient }> {
  const compiled = compiledPglite();
  if (options.fresh && !options.loadDataDir) await initdbInChild(options.dataDir, options.startParams);
  const thread = new DatabaseThread({ ...options, pgliteWasmModule: await compiled });
  await thread.ready;
  return { forDrizzle: clientFor(thread, false), forOthers: clientFor(thread, true) };
}

/**
 * Runs initdb for an empty data directory in a child process (pglite-initdb.mjs). In this process
 * the temporary instance's native memory would stay resident (glibc keeps it) for the process's
 * whole life (docs/performance.md, The embedded database on its own thread).
 */
function initdbInChild(dataDir: string, startParams: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./pglite-initdb.mjs', import.meta.url), [dataDir, JSON.stringify(startParams)], {
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `Creating the embedded database in ${dataDir} failed (${signal ?? `exit code ${code}`}): ${stderr.trim() || 'no output'}`,
          ),
        );
    });
  });
}

let compiling: Promise<WebAssembly.Module> | undefined;

/**
 * PGlite's WASM, compiled once per process and handed to each database thread (a compiled module
 * is shared across threads): compiling it again for every thread cost ~1.5 s of CPU per open.
 */
function compiledPglite(): Promise<WebAssembly.Module> {
  compiling ??= readFile(path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm')).then(
    (bytes) => WebAssembly.compile(bytes),
  );
  return compiling;
}

class DatabaseThread {
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private nextId = 1;
  private nextTransaction = 1;
  private closing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(options: EmbeddedOptions & { pgliteWasmModule: WebAssembly.Module }) {
    // Plain JavaScript: without the parent's loaders (tsx), which cost ~300 ms per thread start.
    this.worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
      workerData: options,
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    this.ready = new Promise((resolve, reject) => {
      this.worker.on(
        'message',
        (message: {
          ready?: true;
          id?: number;
          result?: unknown;
          error?: Record<string, unknown>;
          notification?: string;
          payload?: string;
        }) => {
          if (message.ready) return resolve();
          if (message.notification !== undefined) {
            for (const listener of this.listeners.get(message.notification) ?? []) listener(message.payload ?? '');
            return;
          }
          const call = this.pending.get(message.id!);
          if (!call) return;
          this.pending.delete(message.id!);
          this.settleRef();
          if (message.error) call.reject(Object.assign(new Error(String(message.error.message)), message.error));
          else call.resolve(message.result);
        },
      );
      this.worker.on('error', (err) => {
        this.fail(err);
        reject(err);
      });
      this.worker.on('exit', (code) => {
        const err = new Error(`The embedded database thread exited (code ${code}).`);
        this.fail(err);
        reject(err);
      });
    });
  }

  call<T>(call: Call): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.settleRef();
      this.worker.postMessage({ ...call, id });
    });
  }

  /** Closes PGlite and ends the thread; both clients share it, so a second call is the first's. */
  close(): Promise<void> {
    this.closing ??= this.call<void>({ op: 'close' }).catch(() => {});
    return this.closing;
  }

  nextTransactionId(): number {
    return this.nextTransaction++;
  }

  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(callback);
    await this.call({ op: 'listen', channel });
    return async () => {
      set.delete(callback);
      if (set.size === 0 && this.listeners.get(channel) === set) {
        this.listeners.delete(channel);
        await this.call({ op: 'unlisten', channel });
      }
    };
  }

  /** Like a socket: the thread keeps the process alive only while a call is waiting on it. */
  private settleRef(): void {
    if (this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const call of this.pending.values()) call.reject(this.failure);
    this.pending.clear();
    this.worker.unref();
  }
}

function clientFor(thread: DatabaseThread, usual: boolean): EmbeddedClient {
  const query = <T>(tx: number | undefined, text: string, params?: unknown[], options?: QueryOptions) =>
    thread.call<Results<T>>({ op: 'query', text, params: params ?? [], rowMode: options?.rowMode, usual, tx });
  const exec = (tx: number | undefined, text: string) => thread.call<Results[]>({ op: 'exec', text, usual, tx });
  return {
    query: (text, params, options) => query(undefined, text, params, options),
    exec: (text) => exec(undefined, text),
    async transaction(fn) {
      const id = thread.nextTransactionId();
      // Not awaited: its statements follow at once (the thread runs them after BEGIN), and a BEGIN
      // that fails fails them too.
      thread.call({ op: 'begin', tx: id }).catch(() => {});
      let closed = false;
      const tx = {
        query: (text: string, params?: unknown[], options?: QueryOptions) => query(id, text, params, options),
        exec: (text: string) => exec(id, text),
        sql: () => Promise.reject(new Error('Not available on the embedded database thread.')),
        listen: () => Promise.reject(new Error('Not available in a transaction on the embedded database thread.')),
        rollback: async () => {
          closed = true;
          await thread.call({ op: 'rollback', tx: id });
        },
        get closed() {
          return closed;
        },
      } as unknown as Transaction;
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn(tx);
      } catch (err) {
        if (!closed) await thread.call({ op: 'rollback', tx: id });
        closed = true;
        throw err;
      }
      if (!closed) await thread.call({ op: 'commit', tx: id });
      closed = true;
      return result;
    },
    listen: (channel, callback) => thread.listen(channel, callback),
    async dumpDataDir(compression = 'none') {
      const bytes = await thread.call<Uint8Array>({ op: 'dump', compression });
      return new Blob([bytes as Uint8Array<ArrayBuffer>]);
    },
    close: () => thread.close(),
  };
}
