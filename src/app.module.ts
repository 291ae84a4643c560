import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AuthModule } from './common/auth/auth.module';
import { ProblemDetailsFilter } from './common/http/errors/problem-details.filter';
import { MetricsController } from './common/observability/metrics.controller';
import { MetricsService } from './common/observability/metrics.service';
import { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { EmailModule } from './modules/email/email.module';
import { EncountersModule } from './modules/encounters/encounters.module';
import { SequencesModule } from './modules/email/sequences/sequences.module';
import { FormsModule } from './modules/forms/forms.module';
import { AuditModule } from './modules/audit/audit.module';
import { EventsModule } from './modules/events/events.module';
import { HealthModule } from './modules/health/health.module';
import { PatientsModule } from './modules/patients/patients.module';
import { BookingPagesModule } from './modules/booking-pages/booking-pages.module';
import { SchedulingModule } from './modules/scheduling/scheduling.module';
import { SettingsModule } from './modules/settings/settings.module';
import { SmsModule } from './modules/sms/sms.module';
import { SmsInboundModule } from './modules/sms-inbound/sms-inbound.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { TenantsModule } from './modules/tenants/tenants.module';
import { TestClocksModule } from './modules/test-clocks/test-clocks.module';
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
        EncountersModule,
        BookingPagesModule,
        FormsModule,
        SmsModule,
        SmsInboundModule,
        EventsModule,
        AuditModule,
        WebhooksModule,
        EmailModule,
        SequencesModule,
        TestClocksModule,
        ...(config.workers.enabled ? [WorkersModule] : []),
      ],
      controllers: [MetricsController],
      providers: [
        MetricsService,
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        // No global interceptor: @Idempotent() binds the Idempotency-Key interceptor to its routes, and
        // app.factory.ts binds each route's response headers to hooks of that route (common/http/requests/route-bindings.ts).
      ],
    };
  }
}
