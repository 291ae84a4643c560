import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AppCrypto } from './app-crypto';

/** AppCrypto under the configured secrets (start-up has resolved APP_SECRET). */
export const appCryptoFor = (config: AppConfig): AppCrypto => new AppCrypto(config.appSecret, config.secrets.previous);

/** AppCrypto under the application secret, for every module. */
@Global()
@Module({
  providers: [{ provide: AppCrypto, inject: [AppConfig], useFactory: appCryptoFor }],
  exports: [AppCrypto],
})
export class CryptoModule {}
