import { expect, registerUser, signIn, test } from './fixtures';

test('an API token made in Settings is shown once, lists medications, and is refused once revoked', async ({
  page,
  request,
}) => {
  const account = await registerUser(request);
  const created = await request.post('/api/medications', {
    headers: { Authorization: `Bearer ${account.token}` },
    data: { name: 'Aspirin', unit: 'mg', default_quantity: 1, frequency: 'daily' },
  });
  expect(created.status(), await created.text()).toBe(201);

  await signIn(page, account, '/settings?section=security');
  const card = page.getByTestId('api-tokens');
  await expect(card.getByText('No API tokens yet.')).toBeVisible();
  await card.getByRole('button', { name: 'Create API token' }).click();
  const form = page.getByRole('dialog', { name: 'Create API token' });
  await form.getByLabel('Name').fill('Home Assistant');
  await form.getByRole('radio', { name: /^Read/ }).check();
  await form.getByRole('button', { name: 'Create token' }).click();

  const shown = page.getByRole('dialog', { name: 'Token "Home Assistant" created' });
  await expect(shown.getByText('you will not see it again')).toBeVisible();
  const secret = await shown.getByTestId('api-token-secret').inputValue();
  expect(secret).toMatch(/^pbx_[A-Za-z0-9_-]{43}$/);
  await shown.getByRole('button', { name: 'Done' }).click();
  // Once closed, the secret is nowhere on the page.
  await expect(page.getByTestId('api-token-secret')).toHaveCount(0);
  const row = card.getByTestId('api-token-row');
  await expect(row.getByRole('heading', { name: 'Home Assistant' })).toBeVisible();
  await expect(row.getByTestId('api-token-scope')).toHaveText('Read');
  expect(await page.content()).not.toContain(secret);

  const bearer = { Authorization: `Bearer ${secret}` };
  const listed = await request.get('/api/medications', { headers: bearer });
  expect(listed.status()).toBe(200);
  const body = (await listed.json()) as { data: { name: string }[] };
  expect(body.data.map((medication) => medication.name)).toEqual(['Aspirin']);
  const accountRoute = await request.get('/api/auth/me', { headers: bearer });
  expect(accountRoute.status()).toBe(403);

  await page.reload();
  await expect(row).toContainText('Last used');
  await row.getByRole('button', { name: 'Revoke' }).click();
  const confirm = page.getByRole('dialog', { name: 'Revoke API token?' });
  await confirm.getByRole('button', { name: 'Revoke' }).click();
  await expect(card.getByText('"Home Assistant" is revoked.')).toBeVisible();
  await expect(card.getByTestId('api-token-row')).toHaveCount(0);

  const refused = await request.get('/api/medications', { headers: bearer });
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { code: string }).code).toBe('api_token_invalid');
});
