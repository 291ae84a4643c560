import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isUuid } from '../../common/ids';
import type { IdempotencyCaller } from '../../common/idempotency/idempotent.decorator';
import type { IdempotencyScope } from '../../common/idempotency/idempotency-keys.repository';
import { BookingPagesRepository } from './booking-pages.repository';

/** A public booking's Idempotency-Keys are kept per booking page, in its tenant and mode. */
@Injectable()
export class PublicBookingCaller implements IdempotencyCaller {
  constructor(private readonly schedulers: BookingPagesRepository) {}

  async scopeOf(request: FastifyRequest): Promise<IdempotencyScope | null> {
    const id = (request.params as { id?: string }).id;
    const scheduler = id && isUuid(id) ? await this.schedulers.findPublic(id.toLowerCase()) : null;
    return scheduler && { tenantId: scheduler.tenantId, mode: scheduler.mode, callerId: scheduler.id };
  }
}
