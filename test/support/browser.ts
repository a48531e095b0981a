import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (.ci/run installs it), driven by playwright-core; CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium for browser tests; fails with the fix when the browser is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's chromium package (.ci/run does)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** The real server's Web UI, which `npm run test:temporal` starts and names in TEMPORAL_UI_URL. */
export function temporalUiUrl(): string {
  const url = process.env.TEMPORAL_UI_URL;
  if (!url) throw new Error('TEMPORAL_UI_URL is not set: run this file with `npm run test:temporal`');
  return url;
}

/**
 * The task queue of a Web UI test's turns: the one a deployment has (TEMPORAL_TASK_QUEUE's default) while
 * `UPDATE_SCREENSHOTS=1` writes the docs' screenshots, which a user compares with their own UI; otherwise the
 * harness's own, so test files running side by side never take each other's tasks. Screenshots are updated
 * in band (`npm run test:temporal -- web-ui --runInBand`), and each file ends the turns it left running.
 */
export function screenshotTaskQueue(): string | undefined {
  return process.env.UPDATE_SCREENSHOTS === '1' ? 'convengine-turns' : undefined;
}
