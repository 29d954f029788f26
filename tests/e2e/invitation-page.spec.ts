/**
 * The page an invitation link opens says, before anyone signs in, who invited them to which
 * workspace and with which role (the link's lookup); signed in with another address, Accept is
 * off with the reason; a used, an expired and a revoked link each say so plainly with what to do.
 */
import type { Page, Route } from '@playwright/test';
import { api, check, expect, expectFitsNarrowScreen, newOwner, test, uniqueEmail } from './support';

async function inviteFromMembersPage(page: Page, email: string, role: string): Promise<string> {
  await page.goto('/dashboard/members');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption(role);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const link = (await page.getByTestId('invitation-link').textContent())?.trim() ?? '';
  expect(link).toMatch(/\/invitations\/amp_inv_\w+$/);
  return new URL(link).pathname;
}

/** The lookup's real answer, with the link shown as expired a day ago (the service keeps links 7 days; the test cannot wait). */
async function asExpired(route: Route) {
  const response = await route.fetch();
  const expiredAt = new Date(Date.now() - 86_400_000).toISOString();
  const text = (await response.text())
    .replace(/"status":"pending"/g, '"status":"expired"')
    .replace(/"expires_at":"[^"]+"/g, `"expires_at":"${expiredAt}"`);
  await route.fulfill({ response, body: text });
}

test('an invitation link shows who invited whom where, before signing in; used, expired and revoked links say so', async ({ browser }) => {
  test.setTimeout(600_000);
  const owner = await newOwner(browser, { agentName: 'Harbor Labs' });
  expect((await api(owner.page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  const personEmail = uniqueEmail('invited-dev');
  const acceptPath = await inviteFromMembersPage(owner.page, personEmail, 'developer');

  // Signed out: the workspace, who invited, the role and its meaning, the address, then sign in or sign up.
  const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, viewport: { width: 1280, height: 900 } });
  const visitor = await context.newPage();
  await visitor.goto(acceptPath);
  await expect(visitor.getByRole('heading', { name: 'You have been invited to a workspace' })).toBeVisible();
  await expect(visitor.getByTestId('invitation-workspace')).toHaveText('Harbor Labs');
  await expect(visitor.getByTestId('invitation-inviter')).toHaveText(owner.email);
  await expect(visitor.getByTestId('invitation-role')).toContainText('Developer');
  await expect(visitor.getByTestId('invitation-role')).toContainText('No members, no billing');
  await expect(visitor.getByTestId('invitation-details')).toContainText(personEmail);
  await expect(visitor.getByRole('link', { name: 'Sign in to accept' })).toBeVisible();
  await check(visitor, 'invitation-details-signed-out');
  await expectFitsNarrowScreen(visitor);

  // Expired: said plainly, with whom to ask for a new link; no accept.
  await visitor.route('**/api/trpc/members.lookupInvitation*', asExpired);
  await visitor.reload();
  const closed = visitor.getByTestId('invitation-closed');
  await expect(closed.getByRole('heading', { name: 'This invitation has expired' })).toBeVisible();
  await expect(closed).toContainText(`Ask ${owner.email} to send it again`);
  await expect(visitor.getByRole('link', { name: 'Sign in to accept' })).toHaveCount(0);
  await check(visitor, 'invitation-expired');
  await visitor.unroute('**/api/trpc/members.lookupInvitation*');

  // Signed in as someone else (the owner here): Accept is off, and why.
  await owner.page.goto(acceptPath);
  await expect(owner.page.getByTestId('invitation-workspace')).toHaveText('Harbor Labs');
  const accept = owner.page.getByRole('button', { name: 'Accept invitation' });
  await expect(accept).toBeDisabled();
  await expect(accept).toHaveAccessibleDescription(/It was sent to .+, and you are signed in as/);
  await check(owner.page, 'invitation-other-email');

  // The invited person accepts; the link then says it was used.
  const person = await newOwner(browser, { email: personEmail, agentName: 'Own Space' });
  await person.page.goto(acceptPath);
  await expect(person.page.getByTestId('invitation-inviter')).toHaveText(owner.email);
  await person.page.getByRole('button', { name: 'Accept invitation' }).click();
  await person.page.waitForURL((url) => url.pathname === '/dashboard');
  await person.page.goto(acceptPath);
  await expect(person.page.getByRole('heading', { name: 'This invitation has already been used' })).toBeVisible();
  await expect(person.page.getByTestId('invitation-closed')).toContainText('Harbor Labs is already in your dashboard');
  await check(person.page, 'invitation-used');

  // Revoked: the link no longer works, with what to do.
  const second = await api(owner.page, owner.apiKey, 'POST', '/api/v1/members/invitations', {
    email: uniqueEmail('revoked'),
    role: 'viewer',
  });
  expect(second.status).toBe(201);
  expect((await api(owner.page, owner.apiKey, 'DELETE', `/api/v1/members/invitations/${String(second.body!.id)}`)).status).toBe(200);
  await visitor.goto(new URL(String(second.body!.accept_url)).pathname);
  await expect(visitor.getByRole('heading', { name: 'This invitation link no longer works' })).toBeVisible();
  await expect(visitor.getByTestId('invitation-closed')).toContainText('It was revoked, replaced by a newer one, or mistyped');
  await check(visitor, 'invitation-revoked');
  await expectFitsNarrowScreen(visitor);
  await context.close();
});
