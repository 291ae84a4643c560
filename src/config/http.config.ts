import { IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { isIP } from 'node:net';
import { ConfigError, IntVar } from './env';

/** Fastify's `trustProxy`: false (the peer is the client), true (any peer), a hop count, or the trusted proxies' addresses. */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for address ranges, which Fastify accepts beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY as Fastify takes it, or undefined when the value is none of its forms. */
export function parseTrustProxy(value: string): TrustProxy | undefined {
  const v = value.trim().toLowerCase();
  if (['true', 'on', 'yes'].includes(v)) return true;
  if (['', 'false', 'off', 'no', '0'].includes(v)) return false;
  if (/^\d+$/.test(v)) return Number(v) <= 64 ? Number(v) : undefined;
  const entries = v.split(',').map((e) => e.trim());
  return entries.every(isProxyAddress) ? entries : undefined;
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Where the API listens and how it names itself to browsers and to the links it sends. */
export class HttpEnv {
  @IsString() HOST = '127.0.0.1';

  @IntVar(0, 65535)
  PORT = 3000;

  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http(s) URL' })
  PUBLIC_URL?: string = undefined;

  /** Origins (scheme://host[:port], comma-separated) whose pages may call the keyed routes from a browser. */
  @IsOptional()
  @Matches(/^\s*https?:\/\/[^/\s,]+\/?\s*(,\s*https?:\/\/[^/\s,]+\/?\s*)*$/, {
    message: 'must be comma-separated origins such as https://portal.example.com (scheme, host and port only)',
  })
  CORS_ORIGINS?: string = undefined;

  /** Who may name the client in X-Forwarded-For: off, true, a hop count, or the proxies' addresses/CIDRs. */
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseTrustProxy(value) !== undefined,
      defaultMessage: () => 'must be true, false, a hop count, or comma-separated proxy addresses or CIDRs',
    },
  })
  TRUST_PROXY = 'false';
}

export interface HttpSettings {
  host: string;
  port: number;
  publicUrl: string;
  /** PUBLIC_URL was given (not the default http://HOST:PORT), so pages may name it beside their own origin. */
  publicUrlSet: boolean;
  /** Browser origins allowed to call the keyed routes (CORS_ORIGINS), normalised as browsers send them. */
  corsOrigins: string[];
  trustProxy?: TrustProxy;
}

export function httpSettings(vars: HttpEnv): HttpSettings {
  return {
    host: vars.HOST,
    port: vars.PORT,
    publicUrl: (vars.PUBLIC_URL ?? `http://${vars.HOST}:${vars.PORT}`).replace(/\/$/, ''),
    publicUrlSet: vars.PUBLIC_URL !== undefined,
    corsOrigins: corsOrigins(vars.CORS_ORIGINS),
    trustProxy: parseTrustProxy(vars.TRUST_PROXY),
  };
}

/** CORS_ORIGINS as browsers send an Origin (lower-case host, no default port); a URL that does not parse stops start-up. */
function corsOrigins(value: string | undefined): string[] {
  return (value?.split(',') ?? []).map((entry) => {
    try {
      return new URL(entry.trim()).origin;
    } catch {
      throw new ConfigError(`Invalid configuration: CORS_ORIGINS has an origin that is not a URL (got "${entry.trim()}")`);
    }
  });
}
