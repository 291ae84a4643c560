import { existsSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, chromium } from 'playwright-core';

/** Debian's package; CI installs it (.ci/run). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * A headless Chromium for the browser tests. `hosts` are names it resolves to 127.0.0.1, so that a test can
 * serve the app (or a second site) under a real host name over plain http, as an internal deployment is
 * reached. Without Chromium the suite fails saying how to install it: these tests never skip.
 */
export async function launchChromium(hosts: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (browser tests do not skip)`);
  }
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
  if (hosts.length) args.push(`--host-resolver-rules=${hosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`);
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/** One browser for the enclosing describe block, launched in beforeAll and closed in afterAll. */
export function useBrowser(hosts: string[] = []): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium(hosts);
  }, 60_000);
  afterAll(() => browser?.close());
  return {
    get browser() {
      if (!browser) throw new Error('useBrowser: the browser starts in beforeAll; read it inside tests and hooks');
      return browser;
    },
  };
}

/** A second site: a plain HTTP server on a free loopback port that answers every GET with `html`. */
export async function serveSite(html: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
