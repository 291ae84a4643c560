import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { setGlobalPrefix } from './app.factory';
import { AppModule } from './app.module';
import { loadConfig } from './config/app-config';
import { buildOpenApiDocument } from './openapi';

export const OPENAPI_FILE = join(__dirname, '..', 'openapi.json');
export const REGENERATE_COMMAND = 'npm run openapi';

/**
 * The document a default `npm start` serves at /api/docs-json, built without connecting to anything:
 * Nest's preview mode registers the routes but instantiates no provider (no PostgreSQL, no Redis).
 * The environment is ignored so that the committed file does not depend on who generated it.
 */
export async function generateOpenApiDocument(): Promise<OpenAPIObject> {
  const config = loadConfig({});
  const app = await NestFactory.create(AppModule.forRoot(config), new FastifyAdapter(), { preview: true, logger: false });
  try {
    setGlobalPrefix(app);
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}

export function serialise(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** `node dist/export-openapi.js` writes openapi.json; `--check` exits 1 if the committed file is stale. */
async function main(): Promise<void> {
  const generated = serialise(await generateOpenApiDocument());
  if (process.argv.includes('--check')) {
    if (!isDeepStrictEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')), JSON.parse(generated))) {
      process.stderr.write(`openapi.json does not match the code; regenerate it with \`${REGENERATE_COMMAND}\` and commit it\n`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(OPENAPI_FILE, generated);
  process.stderr.write(`wrote ${OPENAPI_FILE}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
