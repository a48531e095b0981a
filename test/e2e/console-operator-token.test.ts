/**
 * The turn console with two API tokens (api/auth.ts): its routes are the operator's, so the gateway's token
 * (API_TOKEN) typed into its token form is refused with the reason (403 OPERATOR_TOKEN_REQUIRED) and the form asks
 * again; the operator's token (OPERATOR_API_TOKEN) opens it.
 */
import { ConsoleBrowser } from '../support/console-browser';

const GATEWAY = 'gateway-s3cret';
const OPERATOR = 'operator-s3cret';
const c = ConsoleBrowser.forFile(120_000, { apiToken: GATEWAY, operatorToken: OPERATOR });

test("the gateway token is refused on the token form with the reason; the operator's opens the console", async () => {
  const page = await c.open('#/');
  const input = page.locator('input[name=token]');
  await input.waitFor();
  expect(await page.locator('#token-refused').count()).toBe(0);

  await input.fill(GATEWAY);
  await input.press('Enter');
  const refused = page.locator('#token-refused');
  await refused.waitFor();
  expect(await refused.innerText()).toContain(
    "The API refused this token (OPERATOR_TOKEN_REQUIRED: This route is an operator's: it takes the operator token " +
      '(OPERATOR_API_TOKEN), not the gateway token (API_TOKEN).)'
  );
  expect(await page.title()).toBe('API token · ConvEngine console');

  await page.locator('input[name=token]').fill(OPERATOR);
  await page.locator('input[name=token]').press('Enter');
  await page.locator('form.filters').waitFor();
  expect(await page.locator('#token-refused').count()).toBe(0);
  await page.close();
});
