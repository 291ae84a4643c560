import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RateLimitGuard } from '../traffic/rate-limit.guard';
import { ApiKeyGuard, RoleGuard, ScopeGuard } from './guards';

/**
 * Registers the global guards; Nest runs APP_GUARDs in the order they are listed here (see guards.ts).
 * The application names the module that provides the `Authenticator` (the API keys module), so that
 * common/ depends on no domain module; that module is made global with the guards.
 */
@Module({})
export class AuthModule {
  static forRoot(authenticatorModule: Type | DynamicModule): DynamicModule {
    return {
      module: AuthModule,
      global: true,
      imports: [authenticatorModule],
      providers: [
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: ScopeGuard },
        { provide: APP_GUARD, useClass: RoleGuard },
      ],
      exports: [authenticatorModule],
    };
  }
}
