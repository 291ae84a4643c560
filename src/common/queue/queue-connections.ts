import { getQueueToken } from '@nestjs/bullmq';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { DependencyStatus } from '../observability/dependency-status';
import { QueueName } from './queues';

/**
 * The producers' queue connections, told to DependencyStatus: without an error listener BullMQ prints
 * every reconnection failure of each queue raw on stderr.
 */
@Injectable()
export class QueueConnections implements OnModuleInit {
  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly dependencies: DependencyStatus,
  ) {}

  onModuleInit(): void {
    for (const name of Object.values(QueueName)) {
      const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
      this.dependencies.watchBull(queue, 'queue-producers');
    }
  }
}
