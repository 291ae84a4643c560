export { AppCrypto, DecryptionError } from './app-crypto';
export type { CryptoPurpose } from './app-crypto';
export { CryptoModule } from './crypto.module';
export { readOrCreateAppSecret } from './app-secret';
export { ScopedTokens } from './scoped-tokens';
export type { ScopedTokenSubject } from './scoped-tokens';
