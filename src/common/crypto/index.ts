export { AppCrypto, DecryptionError } from './app-crypto';
export type { CryptoPurpose } from './app-crypto';
export { CryptoModule } from './crypto.module';
export { readOrCreateAppSecret } from './app-secret';
