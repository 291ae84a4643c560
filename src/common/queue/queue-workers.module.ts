import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JobOutboxRelay } from './job-outbox-relay';
import { QueueWorkers } from './queue-workers';

/**
 * Starts this process's queue workers and the job outbox's relay; imported by WorkersModule (the API
 * unless WORKERS=off, and dist/worker.js).
 */
@Module({ imports: [DiscoveryModule], providers: [QueueWorkers, JobOutboxRelay] })
export class QueueWorkersModule {}
