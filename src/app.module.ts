import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { AuthModule } from './common/auth/auth.module';
import { ProblemDetailsFilter } from './common/http/problem-details.filter';
import { ResponseHeadersInterceptor } from './common/http/response-headers';
import { MetricsController } from './common/observability/metrics.controller';
import { MetricsService } from './common/observability/metrics.service';
import { IdempotencyInterceptor } from './common/traffic/idempotency.interceptor';
import { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { FormsModule } from './modules/forms/forms.module';
import { AuditModule } from './modules/audit/audit.module';
import { EventsModule } from './modules/events/events.module';
import { HealthModule } from './modules/health/health.module';
import { PatientsModule } from './modules/patients/patients.module';
import { SchedulingModule } from './modules/scheduling/scheduling.module';
import { SettingsModule } from './modules/settings/settings.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { TenantsModule } from './modules/tenants/tenants.module';
import { WorkersModule } from './workers.module';

/** The API: every domain module behind the global guards, plus workers unless WORKERS=off. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        // The API keys module provides the Authenticator that the global ApiKeyGuard verifies keys with.
        AuthModule.forRoot(ApiKeysModule),
        HealthModule,
        TenantsModule,
        ApiKeysModule,
        SettingsModule,
        PatientsModule,
        SchedulingModule,
        FormsModule,
        EventsModule,
        AuditModule,
        WebhooksModule,
        ...(config.workers.enabled ? [WorkersModule] : []),
      ],
      controllers: [MetricsController],
      providers: [
        MetricsService,
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        // The same instance as the onSend hook of app.factory.ts, which stores what this interceptor claimed.
        { provide: APP_INTERCEPTOR, useExisting: IdempotencyInterceptor },
        // After the line above, so inside it: Location, ETag and Cache-Control from each route's decorators.
        { provide: APP_INTERCEPTOR, useClass: ResponseHeadersInterceptor },
      ],
    };
  }
}
