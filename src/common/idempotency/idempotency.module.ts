import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';

/**
 * Idempotency-Key records (PostgreSQL, shared by every API instance). Global so that the interceptor
 * @Idempotent() puts on a route, which Nest instantiates in that route's module, finds its repository.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyKeysRepository],
  exports: [IdempotencyKeysRepository],
})
export class IdempotencyModule {}
