import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { QueueWorkers } from './queue-workers';

/** Starts this process's queue workers; imported by WorkersModule (the API unless WORKERS=off, and dist/worker.js). */
@Module({ imports: [DiscoveryModule], providers: [QueueWorkers] })
export class QueueWorkersModule {}
