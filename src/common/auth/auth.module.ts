import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeysModule } from '../../modules/api-keys/api-keys.module';
import { RateLimitGuard } from '../traffic/rate-limit.guard';
import { ApiKeyGuard, RoleGuard, ScopeGuard } from './guards';

/** Registers the global guards; Nest runs APP_GUARDs in the order they are listed here (see guards.ts). */
@Global()
@Module({
  imports: [ApiKeysModule],
  providers: [
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ScopeGuard },
    { provide: APP_GUARD, useClass: RoleGuard },
  ],
  exports: [ApiKeysModule],
})
export class AuthModule {}
