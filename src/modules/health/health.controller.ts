import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../../common/auth/route-policy.decorator';
import { JobQueue } from '../../common/queue/job-queue';
import { RedisService } from '../../common/redis/redis.service';
import { SkipRateLimit } from '../../common/traffic/rate-limit.guard';

@ApiTags('Health')
@Controller('health')
@Public()
@SkipRateLimit()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisService,
    private readonly jobs: JobQueue,
  ) {}

  @Get('live')
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: PostgreSQL and Redis answer (503 otherwise)' })
  @ApiServiceUnavailableResponse({ description: 'PostgreSQL or Redis is down' })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.db.pingCheck('database', { timeout: 2000 }), () => this.redisCheck()]);
  }

  /** Both connections a request may use: commands (rate limits) and the queues' producer. Each fails at once while Redis is away. */
  private async redisCheck() {
    const indicator = this.indicators.check('redis');
    try {
      await this.redis.client.ping();
      if (!this.jobs.available) return indicator.down({ message: 'the queue connection is reconnecting' });
      return indicator.up();
    } catch (err) {
      return indicator.down({ message: (err as Error).message });
    }
  }
}
