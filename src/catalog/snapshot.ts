import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import type { Database, Executor } from '../db';
import { installations, moduleActions, modules, type ModuleActionRow, type ModuleRow } from '../db/schema';
import { checkOnce } from '../lib/checked-output';
import type { Logger } from '../logger';
import { CatalogChannel } from './notify';
import { presentModule } from './present';
import { Reloadable } from './reloadable';
import { moduleView } from './schema';

export interface CatalogEntry {
  module: ModuleRow;
  actions: ModuleActionRow[];
}

/** One action as the directory lists it (GET /api/v1/directory). */
export interface DirectoryItem {
  id: string;
  module: string;
  action: string;
  description: string;
  input_schema: Record<string, unknown>;
  trust_score: number;
  certification_tier: string;
}

/** By code unit, as PostgreSQL's C collation orders the names (and cursors compare them). */
export const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The public catalog at one moment, in memory: every public module with its actions by name,
 * the directory by (module, action), and documents derived from them (memo), built once per
 * snapshot. Immutable: a change builds a new one.
 */
export class CatalogSnapshot {
  readonly byName: Map<string, CatalogEntry>;
  readonly directory: DirectoryItem[];
  private memos = new Map<string, unknown>();

  constructor(
    /** Public modules by name. */
    readonly modules: CatalogEntry[],
  ) {
    this.byName = new Map(modules.map((e) => [e.module.name, e]));
    this.directory = directoryOf(modules);
  }

  /** A value derived from this snapshot (a document, a presented view), computed once. */
  memo<T>(key: string, build: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = build();
    if (this.memos.size > 2000) this.memos.clear();
    this.memos.set(key, value);
    return value;
  }

  forget(key: string): void {
    this.memos.delete(key);
  }

  /**
   * The module as GET /api/v1/modules presents it (shared by every tenant), checked against the
   * response schema once per snapshot (src/lib/checked-output.ts).
   */
  presented(entry: CatalogEntry, installed: boolean) {
    return this.memo(`module:${entry.module.name}:${installed}`, () =>
      checkOnce(moduleView, presentModule(entry.module, entry.actions, installed)),
    );
  }
}

export function directoryOf(entries: CatalogEntry[]): DirectoryItem[] {
  return entries
    .flatMap(({ module: m, actions }) =>
      actions.map((a) => ({
        id: `${m.name}.${a.name}`,
        module: m.name,
        action: a.name,
        description: a.description,
        input_schema: a.inputSchema,
        trust_score: m.trustScore,
        certification_tier: m.certificationTier,
      })),
    )
    .sort((x, y) => byCodeUnit(x.module, y.module) || byCodeUnit(x.action, y.action));
}

/** What one tenant sees beyond the public catalog: its installations and its own private modules. */
export interface TenantView {
  installed: Set<string>;
  /** The tenant's private modules by name (its public ones are in the snapshot). */
  own: CatalogEntry[];
  ownByName: Map<string, CatalogEntry>;
}

const MAX_TENANT_VIEWS = 100_000;
/** With change notifications (or one process): a safety net only. */
const NOTIFIED_MAX_AGE_MS = 60_000;
/** PostgreSQL while the notification channel is down: another instance's change shows within this. */
const UNNOTIFIED_MAX_AGE_MS = 1000;

/**
 * The catalog and the tenants' views of it, in process. Reads (module list and pages, directory,
 * search, discovery documents, the execute path's module lookup) come from here; the database is
 * read once per change instead of once per request.
 *
 * `invalidate(name)` is the one entry point after anything that changes a module (publish,
 * update, certification tier, trust score): it drops the snapshot and the tenant views here and
 * tells the other instances (PostgreSQL LISTEN/NOTIFY, src/catalog/notify.ts).
 * `invalidateTenant(id)` does the same for one tenant's installations. Embedded (PGlite), this
 * process is the only one; on PostgreSQL without a working channel, entries live one second.
 */
export class ModuleCache {
  private catalog: Reloadable<CatalogSnapshot>;
  private tenants = new Map<string, Reloadable<TenantView>>();
  private db?: Executor;
  private channel?: CatalogChannel;

  constructor() {
    this.catalog = new Reloadable(
      () => loadSnapshot(this.requireDb()),
      () => this.maxAgeMs(),
    );
  }

  /** Connects the cache to the database (and, on PostgreSQL, to the other instances). */
  async attach(database: Database, databaseUrl: string | undefined, logger: Logger): Promise<void> {
    this.db = database.db;
    if (database.kind === 'postgres' && databaseUrl) {
      this.channel = new CatalogChannel(databaseUrl, database.db, logger, {
        onChange: (message) => this.apply(message),
        onReset: () => this.dropAll(),
      });
      await this.channel.start();
    }
  }

  async close(): Promise<void> {
    await this.channel?.close();
  }

  /** The public catalog now. */
  snapshot(db: Executor): Promise<CatalogSnapshot> {
    this.db ??= db;
    return this.catalog.get();
  }

  /** The tenant's installations and private modules now. */
  tenant(db: Executor, tenantId: string): Promise<TenantView> {
    this.db ??= db;
    let entry = this.tenants.get(tenantId);
    if (!entry) {
      if (this.tenants.size >= MAX_TENANT_VIEWS) this.tenants.clear();
      entry = new Reloadable(
        () => loadTenantView(this.requireDb(), tenantId),
        () => this.maxAgeMs(),
      );
      this.tenants.set(tenantId, entry);
    }
    return entry.get();
  }

  /** A module the tenant may see (public, or its own) with whether it installed it. */
  async findVisible(db: Executor, tenantId: string, name: string): Promise<(CatalogEntry & { installed: boolean }) | undefined> {
    const [snapshot, view] = await Promise.all([this.snapshot(db), this.tenant(db, tenantId)]);
    const entry = snapshot.byName.get(name) ?? view.ownByName.get(name);
    return entry && { ...entry, installed: view.installed.has(name) };
  }

  /**
   * A module changed (published, updated, certified, re-scored): the snapshot is stale, and so is
   * its owner's view (which holds the owner's private modules). A name this process does not know
   * (a new module, or nothing loaded yet) drops every view.
   */
  invalidate(name: string): void {
    this.dropModule(name);
    this.channel?.publish(`module:${name}`);
  }

  /** The tenant's installations changed. */
  invalidateTenant(tenantId: string): void {
    this.tenants.get(tenantId)?.invalidate();
    this.channel?.publish(`tenant:${tenantId}`);
  }

  private apply(message: string): void {
    if (message.startsWith('tenant:')) this.tenants.get(message.slice('tenant:'.length))?.invalidate();
    else if (message.startsWith('module:')) this.dropModule(message.slice('module:'.length));
    else this.dropAll();
  }

  private dropModule(name: string): void {
    const publicEntry = this.catalog.peek()?.byName.get(name);
    this.catalog.invalidate();
    if (publicEntry) {
      // Built-in (no owner): no view holds it. Published: its owner's view, should it turn private.
      const owner = publicEntry.module.ownerTenantId;
      if (owner) this.tenants.get(owner)?.invalidate();
      return;
    }
    const holders = [...this.tenants.values()].filter((view) => view.peek()?.ownByName.has(name));
    if (holders.length === 0) this.tenants = new Map();
    for (const view of holders) view.invalidate();
  }

  private dropAll(): void {
    this.catalog.invalidate();
    // A new map: loads in flight for the old views store into objects nobody reads.
    this.tenants = new Map();
  }

  private maxAgeMs(): number {
    return this.channel && !this.channel.listening ? UNNOTIFIED_MAX_AGE_MS : NOTIFIED_MAX_AGE_MS;
  }

  private requireDb(): Executor {
    if (!this.db) throw new Error('ModuleCache used before attach()');
    return this.db;
  }
}

async function loadSnapshot(db: Executor): Promise<CatalogSnapshot> {
  const [rows, actions] = await Promise.all([
    db.select().from(modules).where(eq(modules.visibility, 'public')).orderBy(asc(modules.name)),
    db
      .select({ action: moduleActions })
      .from(moduleActions)
      .innerJoin(modules, eq(modules.name, moduleActions.moduleName))
      .where(eq(modules.visibility, 'public'))
      .orderBy(asc(moduleActions.moduleName), asc(moduleActions.position)),
  ]);
  return new CatalogSnapshot(
    withActions(
      rows,
      actions.map((r) => r.action),
    ),
  );
}

async function loadTenantView(db: Executor, tenantId: string): Promise<TenantView> {
  const [installed, own] = await Promise.all([
    db.select({ name: installations.moduleName }).from(installations).where(eq(installations.tenantId, tenantId)),
    db
      .select()
      .from(modules)
      .where(and(eq(modules.ownerTenantId, tenantId), ne(modules.visibility, 'public')))
      .orderBy(asc(modules.name)),
  ]);
  const actions =
    own.length === 0
      ? []
      : await db
          .select()
          .from(moduleActions)
          .where(
            inArray(
              moduleActions.moduleName,
              own.map((m) => m.name),
            ),
          )
          .orderBy(asc(moduleActions.moduleName), asc(moduleActions.position));
  const entries = withActions(own, actions);
  return { installed: new Set(installed.map((r) => r.name)), own: entries, ownByName: new Map(entries.map((e) => [e.module.name, e])) };
}

function withActions(rows: ModuleRow[], actions: ModuleActionRow[]): CatalogEntry[] {
  const byModule = new Map<string, ModuleActionRow[]>();
  for (const a of actions) {
    const list = byModule.get(a.moduleName);
    if (list) list.push(a);
    else byModule.set(a.moduleName, [a]);
  }
  return rows.map((m) => ({ module: m, actions: byModule.get(m.name) ?? [] })).sort((x, y) => byCodeUnit(x.module.name, y.module.name));
}
