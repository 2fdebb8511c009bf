/**
 * Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by playwright-core.
 * Missing chromium skips the tests with a message on a developer machine, and fails them under CI.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO } from '../helpers/paths.js';

export const CHROMIUM = process.env.LEAKSCOPE_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(REPO, 'test-artifacts');

/** True when the browser tests can run; throws under CI when chromium is missing. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`chromium missing under CI: ${CHROMIUM} (apt-get install -y chromium)`);
  console.warn(`skipping browser tests: ${CHROMIUM} not found (apt-get install -y chromium); under CI this fails`);
  return false;
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

export function artifactsDir(): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return ARTIFACTS;
}
