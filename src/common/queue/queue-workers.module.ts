import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DueJobs } from './due-jobs';
import { JobOutboxRelay } from './job-outbox-relay';
import { PeriodicJobs } from './periodic-jobs';
import { QueueWorkers } from './queue-workers';

/**
 * Starts this process's queue workers, puts the periodic jobs' schedulers in Redis, keeps delayed jobs due
 * by the clock, and handles the job outbox's relay; imported by WorkersModule (the API unless WORKERS=off,
 * and dist/worker.js).
 */
@Module({ imports: [DiscoveryModule], providers: [QueueWorkers, PeriodicJobs, DueJobs, JobOutboxRelay] })
export class QueueWorkersModule {}
