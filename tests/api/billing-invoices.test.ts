/**
 * Invoices (docs/billing.md, Invoices): closing cycles (idempotent, also concurrently on two instances), the
 * lines (fee, overage, proration), `billing.invoice_created`, sequential numbers, the JSON and PDF
 * routes with their scope and tenant checks, the admin pay/void transitions and the
 * `billing:close` script.
 *
 * The scenarios live in 2031 and later (tenants' `created_at` is moved there): the service's own
 * hourly job, which closes cycles by the real clock, never reaches them, so what each test closes
 * is its own doing.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { closeCycles, type CloseFailure } from '../../src/billing/close';
import { events, invoices, planChanges, tenants, usageCounters, webhookDeliveries, type TermsSnapshot } from '../../src/db/schema';
import { BILLING_CLOSE_QUEUE } from '../../src/jobs/billing';
import { newId } from '../../src/lib/ids';
import { ADMIN_TOKEN, backends, expectError, startTestServer, type TestServer } from '../harness';
import { startReceiver } from '../receiver';
import { scriptCommand } from '../server-command';

const root = path.resolve(import.meta.dirname, '../..');
const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', ENCRYPTION_KEY: randomBytes(32).toString('base64') };

const snapshot = (plan: TermsSnapshot['plan']): TermsSnapshot => ({
  plan,
  requests_per_minute: null,
  executions_per_month: null,
  overage_unit_micro_usd: null,
  monthly_fee_micro_usd: null,
});

/** The real clock's current cycle, the next one's start, and the first instant a close may not be asked for (ISO). */
function realCycles() {
  const now = new Date();
  const month = (n: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + n, 1)).toISOString();
  return { cycle: month(0), next: month(1), horizon: month(2) };
}

/** Runs `npm run billing:close`'s script under this Node; resolves with its exit code and output. */
function runCli(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, scriptCommand('scripts/billing-close.ts', args), {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

backends.describe('invoices (%s)', (backend) => {
  let s: TestServer;
  /** A second instance on the same PostgreSQL database (postgres only). */
  let second: TestServer | undefined;
  beforeAll(async () => {
    s = await startTestServer({ backend, env: ENV });
    if (backend === 'postgres')
      second = await startTestServer({ backend, databaseUrl: s.config.databaseUrl, dataDir: s.config.dataDir, env: ENV });
  }, 180_000);
  // The second first: the first owns (and drops) the database.
  afterAll(async () => {
    await second?.close();
    await s?.close();
  });

  /** A tenant on `plan` that registered at `createdAt` (moved into the scenario's time). */
  async function tenant(plan: 'free' | 'pro' | 'business', createdAt: string) {
    const t = await s.register();
    if (plan !== 'free') await s.setPlan(t.tenantId, plan);
    await s.svc.db
      .update(tenants)
      .set({ createdAt: new Date(createdAt) })
      .where(eq(tenants.id, t.tenantId));
    return t;
  }
  const setUsage = (tenantId: string, cycleStart: string, executions: number, overage: number) =>
    s.svc.db.insert(usageCounters).values({ tenantId, cycleStart, executions, overage });
  const invoicesOf = (tenantId: string) => s.svc.db.select().from(invoices).where(eq(invoices.tenantId, tenantId)).orderBy(invoices.number);
  const createdEvents = (tenantId: string) =>
    s.svc.db
      .select()
      .from(events)
      .where(and(eq(events.tenantId, tenantId), eq(events.type, 'billing.invoice_created')));
  const admin = (p: string, method = 'POST') => s.call(p, { method, headers: { 'x-admin-token': ADMIN_TOKEN } });
  const fetchPdf = (p: string, key: string) => fetch(s.url + p, { headers: { 'x-api-key': key } });
  const pdfText = async (bytes: ArrayBuffer) =>
    (await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true })).text;

  it('pro with 50,250 executions in a closed cycle: one invoice, 29.00 + 0.25 = 29.25, and billing.invoice_created', async () => {
    const t = await tenant('pro', '2031-02-01T00:00:00Z');
    await setUsage(t.tenantId, '2031-02-01', 50_250, 250);
    await closeCycles(s.svc, { at: new Date('2031-03-01T00:00:00Z') });

    const list = await s.call('/api/v1/billing/invoices', { key: t.apiKey });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(list.body.data).toHaveLength(1);
    const inv = list.body.data[0];
    expect(inv).toEqual({
      id: expect.stringMatching(/^inv_/),
      number: `AMP-${t.tenantId.replaceAll('-', '').slice(0, 8).toUpperCase()}-0001`,
      tenant_id: t.tenantId,
      billed_to: { name: expect.any(String), email: expect.stringContaining('@') },
      status: 'open',
      currency: 'usd',
      period_start: '2031-02-01T00:00:00.000Z',
      period_end: '2031-03-01T00:00:00.000Z',
      lines: [
        { description: 'Pro plan, February 2031', quantity: 1, unit_amount_usd: '29.00', amount_usd: '29.00' },
        { description: 'Executions included in the plan: 50,000', quantity: 50_000, unit_amount_usd: '0.00', amount_usd: '0.00' },
        { description: 'Overage: 250 executions × 0.001 USD', quantity: 250, unit_amount_usd: '0.001', amount_usd: '0.25' },
      ],
      subtotal_usd: '29.25',
      total_usd: '29.25',
      created_at: expect.any(String),
      due_at: expect.any(String),
      paid_at: null,
      voided_at: null,
      pdf_url: `/api/v1/billing/invoices/${inv.id}.pdf`,
    });
    // Addressed to the tenant as it was at issue; due 14 days later.
    const [owner] = await s.svc.db.select().from(tenants).where(eq(tenants.id, t.tenantId));
    expect(inv.billed_to).toEqual({ name: owner!.agentName, email: owner!.ownerEmail });
    expect(Date.parse(inv.due_at) - Date.parse(inv.created_at)).toBe(14 * 86_400_000);
    const one = await s.call(`/api/v1/billing/invoices/${inv.id}`, { key: t.apiKey });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(inv);

    const recorded = await createdEvents(t.tenantId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.data).toEqual({
      invoice_id: inv.id,
      number: inv.number,
      tenant_id: t.tenantId,
      period_start: '2031-02-01T00:00:00.000Z',
      period_end: '2031-03-01T00:00:00.000Z',
      total_usd: '29.25',
      currency: 'usd',
      status: 'open',
      invoice_url: `/api/v1/billing/invoices/${inv.id}`,
    });
  });

  it('a mid-cycle upgrade free -> pro (day 11 of 30) is prorated by days on each plan', async () => {
    const t = await tenant('pro', '2031-10-15T00:00:00Z');
    await s.svc.db.delete(planChanges).where(eq(planChanges.tenantId, t.tenantId));
    await s.svc.db.insert(planChanges).values({
      id: newId('pch'),
      tenantId: t.tenantId,
      fromTerms: snapshot('free'),
      toTerms: snapshot('pro'),
      actor: 'tenant',
      changedAt: new Date('2031-11-11T14:00:00Z'),
    });
    await closeCycles(s.svc, { at: new Date('2031-12-01T00:00:00Z') });

    // October was free throughout: nothing to bill, no invoice. November: 10 days free, 20 pro.
    const [inv, ...rest] = await invoicesOf(t.tenantId);
    expect(rest).toHaveLength(0);
    const body = (await s.call(`/api/v1/billing/invoices/${inv!.id}`, { key: t.apiKey })).body;
    expect(body.period_start).toBe('2031-11-01T00:00:00.000Z');
    expect(body.lines).toEqual([
      { description: 'Free plan, 1 Nov – 10 Nov (10 of 30 days)', quantity: 1, unit_amount_usd: '0.00', amount_usd: '0.00' },
      { description: 'Pro plan, 11 Nov – 30 Nov (20 of 30 days)', quantity: 1, unit_amount_usd: '19.33', amount_usd: '19.33' },
    ]);
    expect(body.total_usd).toBe('19.33');
  });

  it('closing twice, and concurrently (on two instances on PostgreSQL), makes one invoice and one event per cycle; one webhook delivery', async () => {
    const receiver = await startReceiver();
    try {
      const t = await tenant('pro', '2032-01-01T00:00:00Z');
      const sub = await s.call('/api/v1/webhooks', { key: t.apiKey, body: { url: receiver.url, events: ['billing.invoice_created'] } });
      expect(sub.status).toBe(201);
      const at = new Date('2032-02-01T00:00:00Z');
      const instances = second ? [s, second, s, second] : [s, s, s, s];
      await Promise.all(instances.map((i) => closeCycles(i.svc, { at })));
      await closeCycles(s.svc, { at });
      await closeCycles((second ?? s).svc, { at: new Date('2032-02-15T00:00:00Z') });

      const rows = await invoicesOf(t.tenantId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ number: 1, cycleStart: '2032-01-01', totalMicroUsd: 29_000_000 });
      const recorded = await createdEvents(t.tenantId);
      expect(recorded).toHaveLength(1);
      const deliveries = await s.svc.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, sub.body.id));
      expect(deliveries).toHaveLength(1);
      const [got] = await receiver.waitFor(1);
      expect(got!.body).toMatchObject({
        id: recorded[0]!.id,
        event: 'billing.invoice_created',
        data: { invoice_id: rows[0]!.id, total_usd: '29.00', currency: 'usd' },
      });
    } finally {
      await receiver.close();
    }
  });

  it('a free tenant with nothing to bill gets no invoice (and no event)', async () => {
    const t = await tenant('free', '2031-01-05T00:00:00Z');
    await setUsage(t.tenantId, '2031-01-01', 1_000, 0);
    await closeCycles(s.svc, { at: new Date('2031-06-01T00:00:00Z') });
    expect(await invoicesOf(t.tenantId)).toHaveLength(0);
    expect(await createdEvents(t.tenantId)).toHaveLength(0);
    const list = await s.call('/api/v1/billing/invoices', { key: t.apiKey });
    expect(list.body).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('a tenant whose charges pass the exact range fails alone: logged with its id, the tenants after it invoiced, and it is invoiced by a later run once fixed', async () => {
    const bad = await tenant('pro', '2036-01-01T00:00:00Z');
    // Terms stored before the price caps existed: 3 executions past a quota of 0 at the largest
    // exact price come to more than the largest exact amount.
    await s.svc.db
      .update(tenants)
      .set({ executionsPerMonth: 0, overageUnitMicroUsd: Number.MAX_SAFE_INTEGER, monthlyFeeMicroUsd: Number.MAX_SAFE_INTEGER })
      .where(eq(tenants.id, bad.tenantId));
    await setUsage(bad.tenantId, '2036-01-01', 3, 3);
    // Tenants are closed in tenant_id order: at least one sorts after the failing one.
    const good = [await tenant('pro', '2036-01-01T00:00:00Z')];
    while (!good.some((g) => g.tenantId > bad.tenantId)) good.push(await tenant('pro', '2036-01-01T00:00:00Z'));

    const logged = vi.spyOn(s.svc.logger, 'error');
    const failures: CloseFailure[] = [];
    try {
      const created = await closeCycles(s.svc, { at: new Date('2036-02-01T00:00:00Z'), onFailure: (f) => failures.push(f) });
      for (const g of good) expect(created.filter((r) => r.tenantId === g.tenantId).map((r) => r.totalMicroUsd)).toEqual([29_000_000]);
      expect(failures).toEqual([
        { tenant_id: bad.tenantId, cycle: '2036-01', error: 'conflict', message: expect.stringMatching(/more than 9007199254\.74 USD/) },
      ]);
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ tenantId: bad.tenantId, cycle: '2036-01' }),
        expect.stringContaining('closing a cycle failed'),
      );
    } finally {
      logged.mockRestore();
    }
    expect(await invoicesOf(bad.tenantId)).toHaveLength(0);
    expect(await createdEvents(bad.tenantId)).toHaveLength(0);

    // Nothing was lost: once an operator corrects the terms, the next run invoices the cycle.
    await s.svc.db
      .update(tenants)
      .set({ overageUnitMicroUsd: 1_000_000_000, monthlyFeeMicroUsd: null })
      .where(eq(tenants.id, bad.tenantId));
    const retried: CloseFailure[] = [];
    const later = await closeCycles(s.svc, { at: new Date('2036-02-01T01:07:00Z'), onFailure: (f) => retried.push(f) });
    expect(retried.filter((f) => f.tenant_id === bad.tenantId)).toEqual([]);
    expect(later.filter((r) => r.tenantId === bad.tenantId).map((r) => [r.number, r.totalMicroUsd])).toEqual([[1, 3_029_000_000]]);
    expect(later.filter((r) => good.some((g) => g.tenantId === r.tenantId))).toEqual([]);
  });

  it('numbers are sequential per tenant across cycles, older missed cycles are caught up, the list is newest first and paginated', async () => {
    const t = await tenant('business', '2033-01-20T00:00:00Z');
    // The service was "down" for three months: one run catches up January to March.
    const created = await closeCycles(s.svc, { at: new Date('2033-04-10T00:00:00Z') });
    expect(created.filter((r) => r.tenantId === t.tenantId).map((r) => [r.number, r.cycleStart])).toEqual([
      [1, '2033-01-01'],
      [2, '2033-02-01'],
      [3, '2033-03-01'],
    ]);
    await closeCycles(s.svc, { at: new Date('2033-05-01T00:00:00Z') });
    const prefix = `AMP-${t.tenantId.replaceAll('-', '').slice(0, 8).toUpperCase()}-`;

    const page1 = await s.call('/api/v1/billing/invoices?limit=3', { key: t.apiKey });
    expect(page1.body.data.map((i: { number: string }) => i.number)).toEqual([`${prefix}0004`, `${prefix}0003`, `${prefix}0002`]);
    expect(page1.body.data[0].total_usd).toBe('299.00');
    expect(page1.body.has_more).toBe(true);
    const page2 = await s.call(`/api/v1/billing/invoices?limit=3&cursor=${page1.body.next_cursor}`, { key: t.apiKey });
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.body.data.map((i: { number: string }) => i.number)).toEqual([`${prefix}0001`]);
    expect(page2.body.data[0].period_start).toBe('2033-01-01T00:00:00.000Z');
    expect((await createdEvents(t.tenantId)).map((e) => e.data.number).sort()).toEqual([1, 2, 3, 4].map((n) => `${prefix}000${n}`));
    expectError(await s.call('/api/v1/billing/invoices?status=late', { key: t.apiKey }), 400, 'invalid_request');
    expect((await s.call('/api/v1/billing/invoices?status=paid', { key: t.apiKey })).body.data).toEqual([]);
  });

  it('the PDF: application/pdf at {id}.pdf and ?format=pdf, starting %PDF-, with the total in its text', async () => {
    const t = await tenant('pro', '2034-03-01T00:00:00Z');
    await setUsage(t.tenantId, '2034-03-01', 51_000, 1_000);
    await closeCycles(s.svc, { at: new Date('2034-04-01T00:00:00Z') });
    const [row] = await invoicesOf(t.tenantId);
    for (const p of [`/api/v1/billing/invoices/${row!.id}.pdf`, `/api/v1/billing/invoices/${row!.id}?format=pdf`]) {
      const res = await fetchPdf(p, t.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="AMP-[0-9A-F]{8}-0001\.pdf"$/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.headers.get('x-ratelimit-limit')).toBe('300');
      const bytes = await res.arrayBuffer();
      expect(Buffer.from(bytes).subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const text = await pdfText(bytes);
      expect(text).toContain('30.00');
      expect(text).toContain('Overage: 1,000 executions × 0.001 USD');
      expect(text).toContain('Executions included in the plan: 50,000');
      expect(text).toContain('Open: due ');
    }
    // ?format=json is the JSON object.
    const json = await s.call(`/api/v1/billing/invoices/${row!.id}?format=json`, { key: t.apiKey });
    expect(json.status).toBe(200);
    expect(json.body.total_usd).toBe('30.00');
    expectError(await s.call(`/api/v1/billing/invoices/${row!.id}?format=xml`, { key: t.apiKey }), 400, 'invalid_request');
  });

  it("another tenant's invoice is 404 (JSON and PDF); a modules:read key gets 403; no key 401", async () => {
    const owner = await tenant('pro', '2034-05-01T00:00:00Z');
    await closeCycles(s.svc, { at: new Date('2034-06-01T00:00:00Z') });
    const [row] = await invoicesOf(owner.tenantId);
    const other = await tenant('pro', '2034-05-01T00:00:00Z');
    const id = row!.id;
    expectError(await s.call(`/api/v1/billing/invoices/${id}`, { key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`/api/v1/billing/invoices/${id}.pdf`, { key: other.apiKey }), 404, 'not_found');
    expectError(await s.call(`/api/v1/billing/invoices/${id}?format=pdf`, { key: other.apiKey }), 404, 'not_found');
    expectError(await s.call('/api/v1/billing/invoices/inv_doesnotexist.pdf', { key: owner.apiKey }), 404, 'not_found');
    expect((await s.call('/api/v1/billing/invoices', { key: other.apiKey })).body.data.map((i: { id: string }) => i.id)).not.toContain(id);

    const key = await s.call('/api/v1/keys', { key: owner.apiKey, body: { name: 'reader', scopes: ['modules:read'] } });
    expect(key.status).toBe(201);
    const reader = key.body.api_key;
    for (const p of [
      '/api/v1/billing/invoices',
      `/api/v1/billing/invoices/${id}`,
      `/api/v1/billing/invoices/${id}.pdf`,
      `/api/v1/billing/invoices/${id}?format=pdf`,
    ]) {
      expect(expectError(await s.call(p, { key: reader }), 403, 'insufficient_scope').required_scope).toBe('billing:read');
      expectError(await s.call(p), 401, 'unauthorized');
    }
    const billingKey = await s.call('/api/v1/keys', { key: owner.apiKey, body: { name: 'billing', scopes: ['billing:read'] } });
    expect((await s.call(`/api/v1/billing/invoices/${id}`, { key: billingKey.body.api_key })).status).toBe(200);
  });

  it('admin: open -> paid and open -> void; anything else 409; unknown 404; without the token 401', async () => {
    const t = await tenant('pro', '2035-01-01T00:00:00Z');
    await closeCycles(s.svc, { at: new Date('2035-03-01T00:00:00Z') });
    const [a, b] = await invoicesOf(t.tenantId);

    const paid = await admin(`/api/v1/admin/invoices/${a!.id}/pay`);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id: a!.id, status: 'paid', voided_at: null });
    expect(Date.parse(paid.body.paid_at)).not.toBeNaN();
    expect(expectError(await admin(`/api/v1/admin/invoices/${a!.id}/pay`), 409, 'conflict').status).toBe('paid');
    expectError(await admin(`/api/v1/admin/invoices/${a!.id}/void`), 409, 'conflict');

    const voided = await admin(`/api/v1/admin/invoices/${b!.id}/void`);
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ status: 'void', paid_at: null });
    expectError(await admin(`/api/v1/admin/invoices/${b!.id}/pay`), 409, 'conflict');
    expectError(await admin(`/api/v1/admin/invoices/${b!.id}/void`), 409, 'conflict');

    expectError(await admin('/api/v1/admin/invoices/inv_nope/pay'), 404, 'not_found');
    expectError(await s.call(`/api/v1/admin/invoices/${b!.id}/pay`, { method: 'POST' }), 401, 'unauthorized');
    expectError(await s.call(`/api/v1/admin/invoices/${b!.id}/pay`, { method: 'POST', key: t.apiKey }), 401, 'unauthorized');

    // The tenant sees the new states; a voided cycle is not invoiced again.
    const list = await s.call('/api/v1/billing/invoices', { key: t.apiKey });
    expect(list.body.data.map((i: { status: string }) => i.status)).toEqual(['void', 'paid']);
    await closeCycles(s.svc, { at: new Date('2035-03-01T00:00:00Z') });
    expect(await invoicesOf(t.tenantId)).toHaveLength(2);
  });

  it('admin POST /api/v1/admin/billing/close closes as of `at` and answers what it created; again: nothing', async () => {
    // On the real clock (the endpoint's `at` may not reach past the next cycle): the current
    // cycle, closed early by an `at` at its end. Pro throughout (no prorated change).
    const { cycle, next, horizon } = realCycles();
    const t = await tenant('pro', cycle);
    await s.svc.db.delete(planChanges).where(eq(planChanges.tenantId, t.tenantId));
    const first = await s.call('/api/v1/admin/billing/close', { headers: { 'x-admin-token': ADMIN_TOKEN }, body: { at: next } });
    expect(first.status).toBe(200);
    expect(first.body.at).toBe(next);
    const mine = first.body.invoices.filter((i: { tenant_id: string }) => i.tenant_id === t.tenantId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ total_usd: '29.00', period_start: cycle });
    const again = await s.call('/api/v1/admin/billing/close', { headers: { 'x-admin-token': ADMIN_TOKEN }, body: { at: next } });
    expect(again.body.invoices).toEqual([]);
    expectError(
      await s.call('/api/v1/admin/billing/close', { headers: { 'x-admin-token': ADMIN_TOKEN }, body: { at: 'next tuesday' } }),
      400,
      'invalid_request',
    );
    // An instant past the next cycle would invoice months that have not begun: refused, nothing written.
    for (const at of [horizon, '9999-12-31T23:59:59.999Z']) {
      const far = await s.call('/api/v1/admin/billing/close', { headers: { 'x-admin-token': ADMIN_TOKEN }, body: { at } });
      expectError(far, 400, 'invalid_request');
      expect(far.body.message).toContain(`must be before ${horizon}`);
    }
    expect(await invoicesOf(t.tenantId)).toHaveLength(1);
    expectError(await s.call('/api/v1/admin/billing/close', { body: {} }), 401, 'unauthorized');
  });

  it('the hourly close is a pg-boss cron schedule stored in the database (it survives restarts; one per period across instances)', async () => {
    const [schedule] = await s.svc.boss.getSchedules(BILLING_CLOSE_QUEUE);
    expect(schedule).toMatchObject({ name: BILLING_CLOSE_QUEUE, cron: '7 * * * *' });
  });

  it('billing:close: a bad --at exits 2 with a clear message, before touching any database', { timeout: 120_000 }, async () => {
    for (const at of ['next-tuesday', '2031-13-01T00:00:00Z', '2031-12-01']) {
      const r = await runCli(['--at', at], { DATA_DIR: s.config.dataDir, DATABASE_URL: s.config.databaseUrl });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--at must be an ISO 8601 date-time');
      expect(r.stdout).toBe('');
    }
    const future = await runCli(['--at', '9999-12-31T23:59:59Z'], { DATA_DIR: s.config.dataDir, DATABASE_URL: s.config.databaseUrl });
    expect(future.code).toBe(2);
    expect(future.stderr).toContain(`--at must be before ${realCycles().horizon}`);
    expect(future.stdout).toBe('');
    const unknown = await runCli(['--when', 'now'], {});
    expect(unknown.code).toBe(2);
  });

  if (backend === 'embedded') {
    it(
      'billing:close refuses to open the embedded database while the service runs (exit 1, pointing at the admin endpoint)',
      { timeout: 120_000 },
      async () => {
        const r = await runCli(['--at', realCycles().next], { DATA_DIR: s.config.dataDir, PORT: String(s.port) });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('POST /api/v1/admin/billing/close');
      },
    );
  } else {
    it(
      'billing:close --at closes the cycles on the service database and prints the invoices as JSON lines',
      { timeout: 240_000 },
      async () => {
        // The real clock's current cycle, closed early (--at may not reach past the next cycle).
        const { cycle, next } = realCycles();
        const t = await tenant('pro', cycle);
        await s.svc.db.delete(planChanges).where(eq(planChanges.tenantId, t.tenantId));
        await setUsage(t.tenantId, cycle.slice(0, 10), 50_250, 250);
        const env = { DATA_DIR: s.config.dataDir, DATABASE_URL: s.config.databaseUrl, PORT: '0', ...ENV };
        const r = await runCli(['--at', next], env);
        expect(r.code).toBe(0);
        const lines = r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        const mine = lines.filter((l) => l.tenant_id === t.tenantId);
        expect(mine).toHaveLength(1);
        expect(mine[0]).toMatchObject({ total_usd: '29.25', period_start: cycle, status: 'open' });
        const rows = await invoicesOf(t.tenantId);
        expect(rows.map((row) => row.id)).toEqual([mine[0].id]);
        expect(await createdEvents(t.tenantId)).toHaveLength(1);
      },
    );
  }
});
