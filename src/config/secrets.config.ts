import { IsOptional, IsString, Matches } from 'class-validator';
import { ConfigError } from './env';

/** The application secret every encryption and signature key is derived from (src/common/crypto). */
export class SecretsEnv {
  /** `production`: APP_SECRET must be set; a secret generated beside the data is for development only. */
  @IsOptional()
  @IsString()
  NODE_ENV?: string = undefined;

  /** Unset: one is generated into DATA_DIR/app-secret on first start (development only; production sets it). */
  @IsOptional()
  @Matches(/^\S{32,512}$/, { message: 'must be 32-512 characters without spaces (e.g. openssl rand -base64 32)' })
  APP_SECRET?: string = undefined;

  /** Earlier application secrets, comma-separated: what they encrypted still opens after a rotation. */
  @IsOptional()
  @Matches(/^\S{32,512}(,\S{32,512})*$/, { message: 'must be comma-separated secrets of 32-512 characters' })
  APP_SECRET_PREVIOUS?: string = undefined;
}

/** `appSecret` unset: start-up fills it in from DATA_DIR (see readOrCreateAppSecret). */
export interface SecretSettings {
  appSecret?: string;
  previous: string[];
}

export function secretSettings(vars: SecretsEnv): SecretSettings {
  // Checked before anything touches the disk: in a container DATA_DIR is read-only, and each process
  // would otherwise generate a secret of its own that no other process could open ciphertexts with.
  if (vars.NODE_ENV === 'production' && !vars.APP_SECRET) {
    throw new ConfigError(
      'APP_SECRET is required when NODE_ENV=production: set the same 32+ random characters (openssl rand -base64 32) for the API and every worker',
    );
  }
  return { appSecret: vars.APP_SECRET, previous: vars.APP_SECRET_PREVIOUS?.split(',') ?? [] };
}
