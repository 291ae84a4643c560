import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AppCrypto } from './app-crypto';

/** AppCrypto under the application secret, for every module (start-up has resolved the secret). */
@Global()
@Module({
  providers: [{ provide: AppCrypto, inject: [AppConfig], useFactory: (c: AppConfig) => new AppCrypto(c.appSecret, c.secrets.previous) }],
  exports: [AppCrypto],
})
export class CryptoModule {}
